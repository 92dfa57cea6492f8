import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION_NAME } from '../../src/modules/api-keys/key-change-notices.ts';
import { testDatabaseKind } from '../helpers/database.ts';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';

// PostgreSQL only: verified keys are kept in memory while the server hears every change to api_keys (the
// api_keys trigger's notices, src/modules/api-keys/key-change-notices.ts). SQLite's data_version does the same
// and is tested through the CLI (test/api/cli.test.ts).
describe.skipIf(testDatabaseKind() !== 'postgres')('API key change notices on PostgreSQL', () => {
  let t: TestContext;
  let sql: pg.Client;

  beforeAll(async () => {
    t = await createTestApp();
    sql = new pg.Client({ connectionString: t.database.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await t.close();
  });

  async function newKey(): Promise<{ id: string; client: ApiClient }> {
    const created = await t.admin.post('/api_keys', { role: 'admin' });
    expect(created.status).toBe(201);
    return { id: created.body.id, client: new ApiClient(t.baseUrl, created.body.key) };
  }

  /** Revokes a key straight in the database, from another connection; `quietly` with triggers off, so no notice goes out. */
  async function revokeElsewhere(id: string, quietly = false): Promise<void> {
    if (quietly) await sql.query("set session_replication_role = 'replica'");
    try {
      await sql.query('update api_keys set revoked_at = now() where id = $1', [id]);
    } finally {
      if (quietly) await sql.query("set session_replication_role = 'origin'");
    }
  }

  /** The status of GET /employers with the key, asked until it is `status` or a second has passed. */
  async function statusWithin(client: ApiClient, status: number): Promise<number> {
    const deadline = Date.now() + 1000;
    for (;;) {
      const answered = (await client.get('/employers')).status;
      if (answered === status || Date.now() > deadline) return answered;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * Makes a key, has it verified, revokes it quietly and asks again, until the server serves the revoked key
   * from memory (200) or `withinMs` has passed; gives the last key and the status it got. Asked in a loop
   * because the notice of the key's own creation reaches the listener at a time of its own: heard after the
   * key was verified, it rightly forgets the verification, and the quiet revoke is then seen.
   */
  async function revokedKeyServedFromMemory(withinMs: number): Promise<{ client: ApiClient; status: number }> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const key = await newKey();
      expect((await key.client.get('/employers')).status).toBe(200);
      await revokeElsewhere(key.id, true);
      const status = (await key.client.get('/employers')).status;
      if (status === 200 || Date.now() > deadline) return { client: key.client, status };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('when a key is revoked by another connection, then the server refuses it once the notice arrives', async () => {
    const { id, client } = await newKey();
    expect((await client.get('/employers')).status).toBe(200);
    await revokeElsewhere(id);
    expect(await statusWithin(client, 401)).toBe(401);
  });

  it('when a change sends no notice (triggers off), then the verified key is still served from memory: the cache is real', async () => {
    const { client, status } = await revokedKeyServedFromMemory(5000);
    expect(status).toBe(200);
    // A notice about another schema's keys (another deployment in the same database) is not this server's.
    await sql.query("select pg_notify('benefits_api_keys', 'another_deployment')");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await client.get('/employers')).status).toBe(200);
    // Any later change to api_keys (here a new key) tells the server to forget what it verified.
    await newKey();
    expect(await statusWithin(client, 401)).toBe(401);
  });

  it('when the listening connection is dropped, then keys are read from the database until it is back, and cached again after', async () => {
    const first = await newKey();
    expect((await first.client.get('/employers')).status).toBe(200);
    await sql.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [APPLICATION_NAME]);
    // Not listening: a change without a notice is seen (asked until the server has noticed the drop), because
    // nothing is served from memory.
    await revokeElsewhere(first.id, true);
    expect(await statusWithin(first.client, 401)).toBe(401);
    // Back after the reconnect delay (asked again for up to 10 s): a verified key is cached again, so a quiet
    // revoke goes unseen. Asked of this server itself: other test files' servers listen under the same name, so
    // counting listeners in pg_stat_activity cannot tell when this one is back.
    expect((await revokedKeyServedFromMemory(10_000)).status).toBe(200);
  });
});
