import { DefaultQueryCompiler } from 'kysely';
const counts = new Map();
const orig = DefaultQueryCompiler.prototype.compileQuery;
DefaultQueryCompiler.prototype.compileQuery = function (node, queryId) {
  const r = orig.call(this, node, queryId);
  const k = r.sql.slice(0, 130);
  counts.set(k, (counts.get(k) ?? 0) + 1);
  return r;
};
process.on('exit', () => {
  const arr = [...counts].sort((a, b) => b[1] - a[1]);
  process.stderr.write(`KYSELY COMPILES ${arr.reduce((a, [, n]) => a + n, 0)}\n`);
  for (const [k, n] of arr.slice(0, 30)) process.stderr.write(`${n}\t${k}\n`);
});
