/**
 * The JavaScript heap the long-running commands (`serve`, `sweep`) run with.
 *
 * What a large file or a day's sweep keeps alive is small (a full 834 of 50,000 members: 20 MB above the
 * idle server's 45 MB), but V8 sizes its heap for speed on the machine it finds: on a machine with many
 * gigabytes it lets the young generation grow to 128 MB (two 64 MB semi-spaces) and the old generation grow to
 * up to four times what survived its last full collection before collecting again. The process then holds
 * 400 MB or more that is almost all garbage (measured in bench/README.md, "Server memory").
 *
 * Two settings bound that slack, each its own variable (0 keeps V8's own choice):
 *
 * - HEAP_SEMI_SPACE_MB bounds a semi-space. V8 reads it only when the process starts, so a command that
 *   needs it runs the process again, under the same process id (`process.execve`), with
 *   `--max-semi-space-size`, unless the process already runs with one (from the command line or NODE_OPTIONS:
 *   the operator's choice wins). `process.execve` is experimental in Node 24 (stability 1; its warning is
 *   never printed, since the process image is replaced first): where Node has none (Windows) or it fails, the
 *   process goes on with V8's own young generation (a warning says so when it failed).
 * - HEAP_GROWING_PERCENT bounds how far the old generation grows past what survived its last full collection.
 *   V8 reads it at each collection, so it is set in the running process (`v8.setFlagsFromString`); a V8 that no
 *   longer knows the flag ignores it, where the command line would refuse to start.
 */
import v8 from 'node:v8';
import { ConfigError, heapConfig, type HeapConfig } from './config.ts';

/** The commands that run long enough, and hold enough, for their heap to matter. */
const LONG_RUNNING = new Set(['serve', 'sweep']);

// The process run again has the flag in its execArgv, so it is never run a second time.
const SEMI_SPACE_FLAG = /^--max[-_]semi[-_]space[-_]size(=|$)/;
const GROWING_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The Node arguments to run this process again with, so that its young generation is bounded; undefined when
 * it needs no second run (no bound wanted, or one already given).
 */
export function relaunchNodeArguments(
  semiSpaceMb: number,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  argv: readonly string[],
): string[] | undefined {
  if (semiSpaceMb === 0) return undefined;
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.some((argument) => SEMI_SPACE_FLAG.test(argument))) return undefined;
  // Code given with -e / -p takes its arguments after "--", or Node would read them as its own options.
  const evaluated = execArgv.some((argument) => /^(-e|-p|--eval|--print)(=|$)/.test(argument));
  return [`--max-semi-space-size=${semiSpaceMb}`, ...execArgv, ...(evaluated ? ['--'] : []), ...argv.slice(1)];
}

/**
 * Applies the heap settings for `args` (the command line after the script): for `serve` and `sweep`, runs
 * the process again with a bounded young generation when needed (this call then does not return), and sets the
 * old generation's growth. Returns a message when a variable is invalid; the caller stops with it.
 */
export function applyHeapSettings(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const [command, ...rest] = args;
  if (command === undefined || !LONG_RUNNING.has(command) || rest.includes('--help') || rest.includes('-h')) return undefined;
  let settings: HeapConfig;
  try {
    settings = heapConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  const nodeArguments = relaunchNodeArguments(settings.semiSpaceMb, process.execArgv, env.NODE_OPTIONS, process.argv);
  if (nodeArguments !== undefined && typeof process.execve === 'function') {
    try {
      process.execve(process.execPath, [process.execPath, ...nodeArguments], env);
    } catch (error) {
      // The process image was not replaced: it goes on as it is, with V8's own young generation.
      process.emitWarning(`could not run again with --max-semi-space-size (${(error as Error).message}); V8 sizes the young generation`, 'HeapSettings');
    }
  }
  // A --heap-growing-percent on the command line is the operator's choice, as for the semi-space (only there:
  // Node refuses it in NODE_OPTIONS).
  if (settings.growingPercent > 0 && !process.execArgv.some((argument) => GROWING_FLAG.test(argument))) {
    v8.setFlagsFromString(`--heap-growing-percent=${settings.growingPercent}`);
  }
  return undefined;
}
