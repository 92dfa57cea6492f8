import { readFileSync } from 'node:fs';

/**
 * The service's version, package.json's: what /healthz, /readyz, benefits_build_info and the spans report. Read
 * from the file beside src/ and dist/ alike (both are one folder below the package's root).
 */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
