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
  if (!process.argv.includes('--check')) {
    writeFileSync(target, generated);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: out of step
  }
  if (committed !== generated) {
    console.error(`${target.pathname ?? target} is out of step with the OpenAPI document: ${howToRegenerate}.`);
    process.exit(1);
  }
}
