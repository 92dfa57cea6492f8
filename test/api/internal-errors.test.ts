import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let app: App;
const logs: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  app = await buildApp({
    config: loadConfig({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' }),
    db: database.db,
    clock: new FixedClock('2026-01-01T00:00:00.000Z'),
    encryptionKey: Buffer.alloc(32, 1),
    logStream: { write: (line) => void logs.push(line) },
  });
  // A route that fails the way a bug would; registered only in this test.
  app.get('/boom', { config: { public: true } }, async () => {
    throw new Error('connection string postgres://admin:hunter2@db/prod');
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await database.destroy();
});

describe('unexpected errors', () => {
  it('when a handler fails unexpectedly, then 500 internal_error hides the cause and the log keeps it with the request id', async () => {
    const response = await app.inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(500);
    const body = response.json();
    expect(body.type).toBe('internal_error');
    expect(response.body).not.toContain('hunter2');
    const logged = logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
    expect(logged.reqId).toBe(body.request_id);
    expect(logged.err.message).toContain('hunter2');
  });
});
