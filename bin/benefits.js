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
try {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    console.error('benefits is not built yet: run "npm install" (or "npm run build") in the project first.');
    process.exit(1);
  }
  throw error;
}
