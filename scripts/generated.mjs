// Shared by the scripts that make files from the OpenAPI document.
import { readFileSync, writeFileSync } from 'node:fs';

/** The OpenAPI document (JSON text) the sources describe: `benefits openapi`, from the TypeScript sources. */
export async function openApiDocumentText() {
  const { main } = await import('../src/cli.ts');
  let text = '';
  const code = await main(['openapi'], (chunk) => (text += chunk));
  if (code !== 0) process.exit(code);
  return text;
}

/**
 * Writes a generated file, or with `--check` on the command line only compares it with the file on disk and
 * exits 1 (saying how to regenerate it) when they differ.
 */
export function writeOrCheck(target, generated, howToRegenerate) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: out of step
  }
  if (!process.argv.includes('--check')) {
    // Unchanged files are left alone: a build during the tests (the packaging test's) must not truncate a file
    // another test is reading.
    if (committed !== generated) writeFileSync(target, generated);
    return;
  }
  if (committed !== generated) {
    console.error(`${target.pathname ?? target} is out of step with the OpenAPI document: ${howToRegenerate}.`);
    process.exit(1);
  }
}
