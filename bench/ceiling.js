// The ceiling: a bare Fastify 5 server that answers a scenario's request straight from the database driver
// (node:sqlite or pg), with no authentication, validation, hooks or query builder. What the service does on
// top of this is what the benchmark's ratio measures.
//
// Run as a child process by the benchmark:
//   CEILING_ROUTES=carriers-get CEILING_DATABASE=sqlite CEILING_SQLITE_PATH=/tmp/.../bench.db PORT=... node bench/ceiling.js
//   CEILING_ROUTES=carriers-get CEILING_DATABASE=postgres CEILING_POSTGRES_URL=postgres://... PORT=... node bench/ceiling.js
// Each name in CEILING_ROUTES is a module bench/ceilings/<name>.js exporting sqlite(app, db) and postgres(app, pool).

import { DatabaseSync } from 'node:sqlite';
import Fastify from 'fastify';
import pg from 'pg';

const kind = process.env.CEILING_DATABASE;
const routes = (process.env.CEILING_ROUTES ?? '').split(',').filter(Boolean);
const app = Fastify({ logger: false });
let close;

if (kind === 'sqlite') {
  const db = new DatabaseSync(required('CEILING_SQLITE_PATH'));
  db.exec('PRAGMA journal_mode = WAL');
  close = () => db.close();
  for (const name of routes) (await import(`./ceilings/${name}.js`)).sqlite(app, db);
} else if (kind === 'postgres') {
  const url = required('CEILING_POSTGRES_URL');
  const pool = new pg.Pool({ connectionString: url, max: 10, options: new URL(url).searchParams.get('options') ?? undefined });
  close = () => pool.end();
  for (const name of routes) (await import(`./ceilings/${name}.js`)).postgres(app, pool);
} else {
  throw new Error('CEILING_DATABASE must be sqlite or postgres');
}

app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(required('PORT')), host: process.env.HOST ?? '127.0.0.1' });

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    app
      .close()
      .then(() => close())
      .finally(() => process.exit(0));
  });
}

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
