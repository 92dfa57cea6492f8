import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_LEASE_MS, requestFingerprint } from '../../src/http/idempotency.ts';
import { testDatabaseKind } from '../helpers/database.ts';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { address } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const body = (name: string) => ({ legal_name: name, address: address() });

async function countEmployers(client = t.admin): Promise<number> {
  return (await client.get('/employers?page_size=100')).body.results.length;
}

describe('Idempotency-Key', () => {
  it('when a POST is repeated with the same key and body, then the first response is replayed and nothing runs twice', async () => {
    const client = await t.client('admin', { provider: 'replay' });
    const headers = { 'idempotency-key': 'create-acme-1' };
    const first = await client.post('/employers', body('Acme'), { headers });
    const second = await client.post('/employers', body('Acme'), { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countEmployers(client)).toBe(1);
  });

  it('when the same key comes with a different body, then 409 idempotency_error', async () => {
    const headers = { 'idempotency-key': 'create-acme-2' };
    await t.admin.post('/employers', body('Acme'), { headers });
    const conflict = await t.admin.post('/employers', body('Globex'), { headers });
    expect(conflict.status).toBe(409);
    expect(conflict.body.type).toBe('idempotency_error');
  });

  it('when a 4xx answered the first request, then the retry replays the 4xx', async () => {
    const headers = { 'idempotency-key': 'bad-key-request' };
    const first = await t.admin.post('/api_keys', { role: 'employer', employer: 'er_missing' }, { headers });
    const second = await t.admin.post('/api_keys', { role: 'employer', employer: 'er_missing' }, { headers });
    expect(first.status).toBe(400);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
  });

  it('when the body failed validation, then the retry replays the 400', async () => {
    const headers = { 'idempotency-key': 'invalid-body-1' };
    const first = await t.admin.post('/employers', { legal_name: 42, address: address() }, { headers });
    const second = await t.admin.post('/employers', { legal_name: 42, address: address() }, { headers });
    expect(first.status).toBe(400);
    expect(first.body.type).toBe('validation_error');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(400);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('when keys are scoped per API key, then another key may use the same value', async () => {
    const a = await t.client('admin', { provider: 'scope-a' });
    const b = await t.client('admin', { provider: 'scope-a' });
    const headers = { 'idempotency-key': 'shared-value' };
    const fromA = await a.post('/employers', body('From A'), { headers });
    const fromB = await b.post('/employers', body('From B'), { headers });
    expect(fromA.status).toBe(201);
    expect(fromB.status).toBe(201);
    expect(fromB.body.id).not.toBe(fromA.body.id);
  });

  it('when two requests with one key arrive together, then the work runs once and both get the same answer', async () => {
    const client = await t.client('admin', { provider: 'concurrent' });
    const headers = { 'idempotency-key': 'concurrent-1' };
    const responses = await Promise.all(Array.from({ length: 5 }, () => client.post('/employers', body('Once'), { headers })));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await countEmployers(client)).toBe(1);
  });

  it('when 24 hours have passed, then the key is forgotten and the request runs again', async () => {
    const client = await t.client('admin', { provider: 'expiry' });
    const headers = { 'idempotency-key': 'expires' };
    const first = await client.post('/employers', body('Day one'), { headers });
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    const second = await client.post('/employers', body('Day two'), { headers });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('when the path is unknown, then 404 (the key is not claimed)', async () => {
    const headers = { 'idempotency-key': 'unknown-path-1' };
    const response = await t.admin.post('/no_such_resources', { name: 'x' }, { headers });
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
  });

  it('when the key is malformed, then 400', async () => {
    const response = await t.admin.post('/employers', body('A'), { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(response.status).toBe(400);
  });

  it('when a response carried a secret shown once, then the kept response does not hold it in plain text, and the replay still returns it', async () => {
    const key = await t.admin.post('/api_keys', { role: 'read_only' }, { headers: { 'idempotency-key': 'secret-key-1' } });
    const endpoint = await t.admin.post(
      '/webhook_endpoints',
      { url: 'https://hooks.example.com/benefits', enabled_events: ['*'] },
      { headers: { 'idempotency-key': 'secret-endpoint-1' } },
    );
    expect(key.status).toBe(201);
    expect(endpoint.status).toBe(201);
    const kept = await t.database.db
      .selectFrom('idempotency_keys')
      .select(['idempotency_key', 'response_body'])
      .where('idempotency_key', 'in', ['secret-key-1', 'secret-endpoint-1'])
      .execute();
    expect(kept).toHaveLength(2);
    for (const row of kept) {
      expect(row.response_body).not.toContain(key.body.key);
      expect(row.response_body).not.toContain(endpoint.body.secret);
      expect(row.response_body).not.toContain('"id"');
    }
    const replayedKey = await t.admin.post('/api_keys', { role: 'read_only' }, { headers: { 'idempotency-key': 'secret-key-1' } });
    const replayedEndpoint = await t.admin.post(
      '/webhook_endpoints',
      { url: 'https://hooks.example.com/benefits', enabled_events: ['*'] },
      { headers: { 'idempotency-key': 'secret-endpoint-1' } },
    );
    expect(replayedKey.headers.get('idempotent-replayed')).toBe('true');
    expect(replayedKey.body).toEqual(key.body);
    expect(replayedEndpoint.body).toEqual(endpoint.body);
  });
});

describe('Idempotency-Key after a crash', () => {
  async function apiKeyIdOf(client: ApiClient): Promise<string> {
    const keyHash = createHash('sha256').update(client.key!).digest('hex');
    return (await t.database.db.selectFrom('api_keys').select('id').where('key_hash', '=', keyHash).executeTakeFirstOrThrow()).id;
  }

  /** The reservation as a process killed while running `POST path` leaves it: held by an owner that is gone. */
  async function leaveReservation(client: ApiClient, key: string, path: string, requestBody: unknown, state: 'in_progress' | 'committed', ageMs: number) {
    const since = new Date(t.clock.now().getTime() - ageMs).toISOString();
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        api_key_id: await apiKeyIdOf(client),
        idempotency_key: key,
        request_hash: requestFingerprint('POST', path, JSON.stringify(requestBody)),
        state,
        response_status: null,
        response_body: null,
        created_at: since,
        owner: 'dead-process',
        leased_at: since,
      })
      .execute();
  }

  async function reservation(key: string) {
    return t.database.db.selectFrom('idempotency_keys').select(['state', 'owner', 'response_status']).where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** A row trigger (`timing` such as 'AFTER INSERT ON employers') running `statement` when `condition` holds; returns its removal. */
  async function createTrigger(name: string, timing: string, condition: string, statement: string): Promise<() => Promise<void>> {
    const db = t.database.db;
    if (testDatabaseKind() === 'postgres') {
      await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${statement}; RETURN NEW; END $$`).execute(db);
      await sql.raw(`CREATE TRIGGER ${name} ${timing} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION ${name}()`).execute(db);
      return async () => void (await sql.raw(`DROP FUNCTION ${name}() CASCADE`).execute(db));
    }
    await sql.raw(`CREATE TRIGGER ${name} ${timing} FOR EACH ROW WHEN ${condition} BEGIN ${statement}; END`).execute(db);
    return async () => void (await sql.raw(`DROP TRIGGER ${name}`).execute(db));
  }

  /**
   * A retry past the lease takes `key` over the moment the request claims it (a trigger on the claim hands the
   * reservation to another owner, committed with the claim): the request runs on, no longer holding its key.
   */
  function takeOverWhenClaimed(key: string) {
    return createTrigger(
      'take_over_on_claim',
      'AFTER INSERT ON idempotency_keys',
      `NEW.idempotency_key = '${key}'`,
      `UPDATE idempotency_keys SET owner = 'the-retry' WHERE idempotency_key = '${key}'`,
    );
  }

  /** Records each key marked committed (in the transaction that marks it: a rolled-back mark leaves no trace). */
  async function recordCommitMarks() {
    await sql`CREATE TABLE committed_marks (idempotency_key text NOT NULL)`.execute(t.database.db);
    const drop = await createTrigger(
      'record_commit_mark',
      'AFTER UPDATE ON idempotency_keys',
      "NEW.state = 'committed' AND OLD.state = 'in_progress'",
      'INSERT INTO committed_marks (idempotency_key) VALUES (NEW.idempotency_key)',
    );
    return {
      keys: async () =>
        (await sql<{ idempotency_key: string }>`SELECT idempotency_key FROM committed_marks ORDER BY idempotency_key`.execute(t.database.db)).rows.map(
          (row) => row.idempotency_key,
        ),
      drop: async () => {
        await drop();
        await sql`DROP TABLE committed_marks`.execute(t.database.db);
      },
    };
  }

  async function employerNames(client: ApiClient): Promise<string[]> {
    return ((await client.get('/employers?page_size=100')).body.results as { legal_name: string }[]).map((employer) => employer.legal_name).sort();
  }

  it('when the process died before the first request committed, then retries wait out the lease, one takes the key over, and the request runs once', async () => {
    const client = await t.client('admin', { provider: 'abandoned' });
    const headers = { 'idempotency-key': 'abandoned-1' };
    await leaveReservation(client, 'abandoned-1', '/employers', body('Abandoned'), 'in_progress', 0);

    const retries = Promise.all([1, 2, 3].map(() => client.post('/employers', body('Abandoned'), { headers })));
    await delay(300);
    expect(await countEmployers(client)).toBe(0);
    expect(await reservation('abandoned-1')).toMatchObject({ state: 'in_progress', owner: 'dead-process' });
    t.clock.advance(IDEMPOTENCY_LEASE_MS);
    const responses = await retries;

    expect(responses.map((response) => response.status)).toEqual([201, 201, 201]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await countEmployers(client)).toBe(1);
    const replay = await client.post('/employers', body('Abandoned'), { headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(responses[0]!.body.id);
  });

  it('when the process died after the first request committed but before its response was kept, then a retry gets 409 saying it took effect, and nothing runs again', async () => {
    const client = await t.client('admin', { provider: 'lost-response' });
    await leaveReservation(client, 'lost-response-1', '/employers', body('Lost'), 'committed', IDEMPOTENCY_LEASE_MS);

    const retry = await client.post('/employers', body('Lost'), { headers: { 'idempotency-key': 'lost-response-1' } });

    expect(retry.status).toBe(409);
    expect(retry.body.type).toBe('idempotency_error');
    expect(retry.body.message).toMatch(/took effect, but its response was lost/);
    expect(await countEmployers(client)).toBe(0);
    expect(await reservation('lost-response-1')).toMatchObject({ state: 'committed', owner: 'dead-process', response_status: null });
  });

  it('when a retry took the key over while the first request still ran, then the first one rolls back its write and leaves the retry its key', async () => {
    const client = await t.client('admin', { provider: 'taken-over' });
    const dropTakeover = await takeOverWhenClaimed('taken-over-1');
    try {
      const response = await client.post('/employers', body('Taken over'), { headers: { 'idempotency-key': 'taken-over-1' } });

      expect(response.status).toBe(409);
      expect(response.body.type).toBe('idempotency_error');
    } finally {
      await dropTakeover();
    }
    expect(await countEmployers(client)).toBe(0);
    expect(await reservation('taken-over-1')).toMatchObject({ state: 'in_progress', owner: 'the-retry', response_status: null });
  });

  it('when keyed requests run at once, then each write marks its own key committed (API keys, which record no event, too), and one whose key was taken over rolls back alone', async () => {
    const client = await t.client('admin', { provider: 'concurrent-marks' });
    const marks = await recordCommitMarks();
    const dropTakeover = await takeOverWhenClaimed('marks-taken-over');
    try {
      const post = (path: string, requestBody: unknown, key: string) => client.post(path, requestBody, { headers: { 'idempotency-key': key } });
      const responses = await Promise.all([
        post('/employers', body('Marks A'), 'marks-a'),
        post('/employers', body('Marks B'), 'marks-b'),
        post('/employers', body('Marks taken over'), 'marks-taken-over'),
        post('/employers', body('Marks C'), 'marks-c'),
        post('/api_keys', { role: 'read_only' }, 'marks-api-key'),
      ]);

      expect(responses.map((response) => response.status)).toEqual([201, 201, 409, 201, 201]);
      expect(await marks.keys()).toEqual(['marks-a', 'marks-api-key', 'marks-b', 'marks-c']);
    } finally {
      await dropTakeover();
      await marks.drop();
    }
    expect(await employerNames(client)).toEqual(['Marks A', 'Marks B', 'Marks C']);
  });
});
