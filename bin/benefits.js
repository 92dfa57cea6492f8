#!/usr/bin/env node
// Plain JavaScript on purpose: it must run far enough on an old Node to say why it cannot go on.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `benefits needs Node.js 24 or newer, and this is Node.js ${process.version}.\n` +
      'Run it through npm (npm start, npx benefits ...): npm puts the Node 24 installed with the project first on the PATH.',
  );
  process.exit(1);
}
// The built JavaScript (dist/, made at npm install, npm pack and npm start); without it, as in a clone installed
// with --omit=dev (no TypeScript to build with), the TypeScript sources themselves: Node 24 strips their types.
const { existsSync } = await import('node:fs');
const [directory, extension] = existsSync(new URL('../dist/cli.js', import.meta.url)) ? ['../dist/', '.js'] : ['../src/', '.ts'];
try {
  // Before anything else is loaded: serve and sweep may run the process again with a bounded heap (src/heap.ts).
  const { applyHeapSettings } = await import(`${directory}heap${extension}`);
  const problem = applyHeapSettings(process.argv.slice(2));
  if (problem !== undefined) {
    console.error(`benefits: ${problem}`);
    process.exit(1);
  }
  const { main } = await import(`${directory}cli${extension}`);
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && /(dist|src)\/(cli|heap)\.(js|ts)/.test(String(error.message))) {
    console.error('benefits is not built and has no sources: run "npm install" (or "npm run build") in the project first.');
    process.exit(1);
  }
  throw error;
}
