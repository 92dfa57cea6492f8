// Everything the benchmark leaves behind (child processes, temporary files, PostgreSQL schemas) is registered
// here as it is made, and undone in reverse order at the end of the run, on an error, or on Ctrl-C.

import { rmSync } from 'node:fs';

/** @type {{ label: string, run: () => Promise<void> | void, sync?: () => void }[]} */
const actions = [];
let installed = false;

/**
 * Registers an undo action; returns a function that runs it now (once) and forgets it.
 * `sync` is the last resort used from the process 'exit' handler, where nothing asynchronous can run.
 */
export function onCleanup(label, run, sync) {
  installSignalHandlers();
  const action = { label, run, sync };
  actions.push(action);
  let done;
  return () => {
    done ??= (async () => {
      const index = actions.indexOf(action);
      if (index !== -1) actions.splice(index, 1);
      await run();
    })();
    return done;
  };
}

/** Runs every pending action, newest first; failures are reported and do not stop the others. */
export async function cleanupAll() {
  while (actions.length > 0) {
    const action = actions.pop();
    try {
      await action.run();
    } catch (error) {
      console.error(`bench: cleanup "${action.label}" failed: ${String(error)}`);
    }
  }
}

/** Removes a file or directory tree, ignoring one that is already gone. */
export function removePath(path) {
  rmSync(path, { recursive: true, force: true });
}

function installSignalHandlers() {
  if (installed) return;
  installed = true;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`bench: ${signal}, cleaning up`);
      const timer = setTimeout(() => process.exit(130), 15_000);
      timer.unref();
      cleanupAll().finally(() => process.exit(130));
    });
  }
  process.once('exit', () => {
    // Whatever is still registered here: kill and delete synchronously.
    for (const action of actions.splice(0).reverse()) {
      try {
        action.sync?.();
      } catch {
        // nothing more can be done while exiting
      }
    }
  });
}
