import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = `const { main } = await import(${JSON.stringify(`${ROOT}src/cli.ts`)}); process.exitCode = await main(process.argv.slice(1));`;

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.DATABASE_URL;
  delete base.PORT;
  delete base.BENEFITS_ENCRYPTION_KEY;
  return { ...base, LOG_LEVEL: 'info', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the `benefits` command (from source) to completion; `user`: run as that uid/gid (the test runs as root). */
export function runCli(args: string[], env: Record<string, string>, user?: { uid: number; gid: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', ENTRY, '--', ...args], { cwd: ROOT, env: childEnv(env), ...user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Starts `benefits serve` (with `args`) on an ephemeral port and waits until it is ready: it listens, and has
 * printed the first admin key when it makes one (after listening).
 */
export function startServe(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', ENTRY, '--', 'serve', ...args], {
      cwd: ROOT,
      env: childEnv({ PORT: '0', HOST: '127.0.0.1', ...env }),
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => {
      // Never leave the process behind when it does not come up.
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('benefits service ready')) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** Kills a `serve` a test left running (never a process left behind) and waits for it to end. */
export async function killServe(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}
