import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyHeapSettings, relaunchNodeArguments } from './heap.ts';

const HEAP_MODULE = fileURLToPath(new URL('./heap.ts', import.meta.url));

describe('relaunchNodeArguments', () => {
  it('when a bound is wanted and none is given, then the script runs again with it, its arguments unchanged', () => {
    expect(relaunchNodeArguments(16, ['--enable-source-maps'], undefined, ['/node', '/app/bin/benefits.js', 'serve'])).toEqual([
      '--max-semi-space-size=16',
      '--enable-source-maps',
      '/app/bin/benefits.js',
      'serve',
    ]);
  });

  it('when the code is given with -e, then its arguments follow "--" (Node would read "--help" as its own)', () => {
    expect(relaunchNodeArguments(8, ['-e', 'code'], '', ['/node', 'sweep', '--help'])).toEqual([
      '--max-semi-space-size=8',
      '-e',
      'code',
      '--',
      'sweep',
      '--help',
    ]);
  });

  it.each([
    ['HEAP_SEMI_SPACE_MB is 0', 0, [], undefined],
    ['the command line gives a bound', 16, ['--max-semi-space-size=64'], undefined],
    ['the command line gives it in V8 spelling', 16, ['--max_semi_space_size=4'], undefined],
    ['NODE_OPTIONS gives a bound', 16, [], '--trace-warnings --max-semi-space-size=32'],
  ])('when %s, then the process is not run again', (_case, semiSpaceMb, execArgv, nodeOptions) => {
    expect(relaunchNodeArguments(semiSpaceMb, execArgv, nodeOptions, ['/node', 'bin/benefits.js', 'serve'])).toBeUndefined();
  });
});

describe('applyHeapSettings', () => {
  it.each([
    ['HEAP_SEMI_SPACE_MB', 'lots', 'HEAP_SEMI_SPACE_MB must be a whole number from 0 to 1024 (got "lots")'],
    ['HEAP_GROWING_PERCENT', '-5', 'HEAP_GROWING_PERCENT must be a whole number from 0 to 1000 (got "-5")'],
  ])('when %s is invalid, then serve is refused with a message naming it', (name, value, message) => {
    expect(applyHeapSettings(['serve'], { [name]: value })).toBe(message);
  });

  it('when the command is short-lived or asks for help, then nothing is read or changed', () => {
    expect(applyHeapSettings(['openapi'], { HEAP_SEMI_SPACE_MB: 'lots' })).toBeUndefined();
    expect(applyHeapSettings(['serve', '--help'], { HEAP_SEMI_SPACE_MB: 'lots' })).toBeUndefined();
  });

  it('when serve starts without a bound, then the same process (same id) runs again with one, once', async () => {
    const code = [
      `const { applyHeapSettings } = await import(${JSON.stringify(HEAP_MODULE)});`,
      `applyHeapSettings(process.argv.slice(1));`,
      `console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv.filter((a) => a.startsWith('--max')), args: process.argv.slice(1) }));`,
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, HEAP_SEMI_SPACE_MB: '12' };
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code, '--', 'serve', '--port-is-not-an-option'], { env });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exitCode = await new Promise((resolve) => child.on('close', resolve));
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ pid: child.pid, execArgv: ['--max-semi-space-size=12'], args: ['serve', '--port-is-not-an-option'] });
  });
});
