import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import * as root from '../../src/index.ts';
import { computeWebhookSignature, verifyWebhookSignature } from '../../src/webhooks.ts';

// `benefits-enrollment-service/webhooks` (src/webhooks.ts): the signature check a webhook receiver needs, without
// the server (docs/webhooks.md). Its import graph stays node:crypto only, and it runs on the system's Node 20.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'src/webhooks.ts');
const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE) ? Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]']).toString()) : 24;

/** Every source file the module loads (relative imports followed) and every package or builtin it imports. */
function importGraph(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) pending.push(resolve(dirname(file), fileName));
      else external.add(fileName);
    }
  }
  return { files: [...files].map((file) => relative(ROOT, file)).sort(), external: [...external].sort() };
}

const SECRET = `whsec_${Buffer.from('a receiver secret of 32 bytes!!!').toString('base64')}`;
const PAYLOAD = '{"type":"enrollment.approved","data":{"id":"enr_1"}}';

const workDirectories: string[] = [];
afterAll(() => {
  for (const directory of workDirectories) rmSync(directory, { recursive: true, force: true });
});

describe('benefits-enrollment-service/webhooks', () => {
  it('when its import graph is walked, then it is src/webhooks.ts and the signature module, importing node:crypto only', () => {
    expect(importGraph(ENTRY)).toEqual({ files: ['src/modules/webhooks/webhook-signature.ts', 'src/webhooks.ts'], external: ['node:crypto'] });
  });

  it('when package.json is read, then ./webhooks points at the built module and its types; the root and ./client stay', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(manifest.exports).toMatchObject({
      '.': './dist/index.js',
      './client': './dist/client/index.js',
      './webhooks': { types: './dist/webhooks.d.ts', default: './dist/webhooks.js' },
    });
  });

  it('when the root entry point is imported, then it still exports the same verification helper', () => {
    expect(root.verifyWebhookSignature).toBe(verifyWebhookSignature);
  });

  it.skipIf(systemMajor >= 24)(
    `when the module is loaded by the system's Node ${systemMajor}, then it verifies a signature and refuses a tampered body`,
    () => {
      // The module as the build writes it (TypeScript to JavaScript, .ts imports rewritten to .js), file by file.
      const out = mkdtempSync(join(tmpdir(), 'benefits-webhooks-'));
      workDirectories.push(out);
      writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
      for (const file of importGraph(ENTRY).files) {
        const { outputText } = ts.transpileModule(readFileSync(join(ROOT, file), 'utf8'), {
          fileName: file,
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true },
        });
        const target = join(out, file.replace(/^src\//, '').replace(/\.ts$/, '.js'));
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, outputText);
      }
      const id = 'msg_2Lr1xqYSbpFKdVfoQ3gh3UeXTkI';
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = `v1,${computeWebhookSignature({ id, timestamp, payload: PAYLOAD, secret: SECRET })}`;
      const script = `
      import { verifyWebhookSignature } from ${JSON.stringify(join(out, 'webhooks.js'))};
      const headers = { 'webhook-id': process.env.ID, 'webhook-timestamp': process.env.TIMESTAMP, 'webhook-signature': process.env.SIGNATURE };
      const secret = process.env.SECRET;
      console.log(JSON.stringify({
        node: process.versions.node,
        valid: verifyWebhookSignature({ payload: process.env.PAYLOAD, headers, secret }),
        tampered: verifyWebhookSignature({ payload: process.env.PAYLOAD.replace('enr_1', 'enr_2'), headers, secret }),
        sqlite: process.moduleLoadList?.some((name) => name.includes('sqlite')) ?? false,
      }));`;
      const result = spawnSync(SYSTEM_NODE, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ID: id, TIMESTAMP: String(timestamp), SIGNATURE: signature, SECRET, PAYLOAD },
      });
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({ node: expect.stringMatching(new RegExp(`^${systemMajor}\\.`)), valid: true, tampered: false, sqlite: false });
    },
  );
});
