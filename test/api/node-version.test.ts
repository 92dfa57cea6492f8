import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE) ? Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]']).toString()) : 24;

describe('Node version guard', () => {
  // Only meaningful where the machine's own Node is older than 24, as on the project's machines.
  it.skipIf(systemMajor >= 24)('when started on Node older than 24, then it exits with a clear message', () => {
    const bin = fileURLToPath(new URL('../../bin/benefits.js', import.meta.url));
    const result = spawnSync(SYSTEM_NODE, [bin, 'serve'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('benefits needs Node.js 24 or newer');
  });
});
