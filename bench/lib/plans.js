// The query plan of exactly the SQL the service runs: a repository function of dist/ is called on a Kysely
// handle that captures the SELECT it builds, and that SQL is explained (EXPLAIN QUERY PLAN on SQLite,
// EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL) and timed on its own, with no HTTP and no other load.

import { performance } from 'node:perf_hooks';
import { CompiledQuery } from 'kysely';

const TIMED_RUNS = 200;

/**
 * Calls `run(db)` (which runs one SELECT through a repository function) and explains that SELECT. Returns
 * { sql, plan: [line], median_ms }: `median_ms` is the median time of the query alone over 200 runs
 * (including the driver's row decoding, excluding everything the HTTP layer does).
 */
export async function explainQuery(db, kind, run) {
  let captured;
  const capture = {
    transformQuery({ node, queryId }) {
      if (node.kind === 'SelectQueryNode') captured = { node, queryId };
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
  await run(db.withPlugin(capture));
  if (!captured) throw new Error('explainQuery: the function ran no SELECT');
  const compiled = db.getExecutor().compileQuery(captured.node, captured.queryId);

  let plan;
  if (kind === 'sqlite') {
    const { rows } = await db.executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
    plan = rows.map((row) => row.detail);
  } else {
    const { rows } = await db.executeQuery(CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${compiled.sql}`, [...compiled.parameters]));
    plan = rows.map((row) => row['QUERY PLAN']);
  }

  const times = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const started = performance.now();
    await db.executeQuery(compiled);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { sql: compiled.sql, plan, median_ms: Math.round(times[Math.floor(times.length / 2)] * 1000) / 1000 };
}
