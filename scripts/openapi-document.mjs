// Writes the OpenAPI document to the file named as the first argument (stdout without one), straight from
// the TypeScript sources (Node 24 strips the types): for `npm run lint:openapi` and the typed client's
// generation, which must not depend on a previous build.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openApiDocumentText } from './generated.mjs';

const document = await openApiDocumentText();
if (process.argv[2]) {
  mkdirSync(dirname(process.argv[2]), { recursive: true });
  writeFileSync(process.argv[2], `${document}\n`);
} else {
  process.stdout.write(`${document}\n`);
}
