// The compiled service (dist/), as the benchmark uses it: database opening, migrations, API keys, ids.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT, startNodeServer } from './processes.js';

/** Imports a module of dist/ (e.g. 'db/database.js'), saying what to do when the build is missing. */
export async function importDist(relativePath) {
  const file = join(PROJECT_ROOT, 'dist', relativePath);
  if (!existsSync(file)) {
    throw new Error(`dist/${relativePath} does not exist: build the service first ("npm run build", or run "npm run bench").`);
  }
  return import(pathToFileURL(file).href);
}

/** The service's own modules that every scenario needs. */
export async function loadService() {
  const [database, migrate, apiKeys, ids, clock] = await Promise.all([
    importDist('db/database.js'),
    importDist('db/migrate.js'),
    importDist('modules/api-keys/api-key.service.js'),
    importDist('shared/ids.js'),
    importDist('shared/clock.js'),
  ]);
  return {
    openDatabase: database.openDatabase,
    migrateToLatest: migrate.migrateToLatest,
    ApiKeyService: apiKeys.ApiKeyService,
    newId: ids.newId,
    randomBase62: ids.randomBase62,
    systemClock: clock.systemClock,
  };
}

/** Starts the real server (`benefits serve`) against a database URL, with the rate limit off. */
export async function startService({ databaseUrl, env = {} }) {
  return startNodeServer({
    label: 'service',
    script: 'bin/benefits.js',
    args: ['serve'],
    env: {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      // The limiter counts per API key and the benchmark uses one key: left on, it would throttle the run.
      RATE_LIMIT_MAX: '0',
      // Required on PostgreSQL; a fresh one fits the fresh database (on SQLite it saves writing encryption.key).
      BENEFITS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ...env,
    },
  });
}
