import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killServe, startServe, type ServerProcess } from '../helpers/cli.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.ts';
import { ApiClient } from '../helpers/test-app.ts';
import { address } from '../helpers/factories.ts';

const keyEnv: Record<string, string> = { BENEFITS_ENCRYPTION_KEY: 'cd'.repeat(32) };

let database: TestDatabase;
let server: ServerProcess | undefined;

beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterEach(async () => {
  await killServe(server);
  await database.destroy();
});

async function post(client: ApiClient, path: string, body?: unknown) {
  const response = await client.post(path, body);
  if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
  return response.body;
}

describe(`carrier hand-off across a restart (${testDatabaseKind()})`, () => {
  it('when the server dies with a carrier job still to retry, then the restarted server delivers it and the enrollment is synced', async () => {
    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    const key = /(bk_live_[0-9A-Za-z]+)/.exec(server.output())![1]!;
    const client = new ApiClient(server.url, key);
    const employer = await post(client, '/employers', { legal_name: 'Restart Co', address: address() });
    const carrier = await post(client, '/carriers', { legal_name: 'Restart Health' });
    // The sandbox carrier fails the first attempt, so a retry is pending when the server dies.
    const group = await post(client, '/groups', {
      employer: employer.id,
      carrier: carrier.id,
      group_number: 'R-1',
      connection_method: 'api',
      metadata: { sandbox_transient_failures: '1' },
    });
    const plan = await post(client, '/plans', {
      group: group.id,
      plan_name: 'Dental',
      line_of_coverage: 'dental',
      effective_start: '2026-01-01',
      effective_end: '2030-12-31',
    });
    await post(client, '/plan_configurations', { plan: plan.id });
    const member = await post(client, '/members', {
      employer: employer.id,
      first_name: 'Ren',
      last_name: 'Start',
      dob: '1980-01-01',
      address: address(),
      hire_date: '2020-01-01',
    });
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const effectiveStart = day(30);
    const window = await post(client, '/open_enrollment_windows', {
      employer: employer.id,
      start_date: day(-1),
      end_date: day(10),
      renewal_date: effectiveStart,
      plans: [plan.id],
    });
    await post(client, `/open_enrollment_windows/${window.id}/activate`);
    const enrollment = await post(client, '/enrollments', {
      member: member.id,
      category: 'open_enrollment',
      effective_start: effectiveStart,
      enrolled_plans: [{ plan: plan.id }],
    });
    await post(client, `/enrollments/${enrollment.id}/save_and_submit`);
    await post(client, `/enrollments/${enrollment.id}/approve`);

    // Let the first attempt fail, then kill the process before the retry is due.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const job = await database.db.selectFrom('jobs').select(['state', 'attempts']).executeTakeFirst();
      if (job?.attempts === 1 && job.state === 'queued') break;
      if (Date.now() > deadline) throw new Error(`the first attempt did not fail in time: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    server.child.kill('SIGKILL');
    await server.exited;
    expect((await database.db.selectFrom('enrollments').select('status').where('id', '=', enrollment.id).executeTakeFirstOrThrow()).status).toBe('approved');

    server = await startServe({ DATABASE_URL: database.url, ...keyEnv });
    const restarted = new ApiClient(server.url, key);
    const until = Date.now() + 20_000;
    let status = 'approved';
    while (status !== 'synced' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await restarted.get(`/enrollments/${enrollment.id}`)).body.status;
    }
    expect(status).toBe('synced');
    const [change] = (await restarted.get(`/enrollments/${enrollment.id}/benefit_changes`)).body;
    expect(change).toMatchObject({ connection_method: 'api', delivery_state: 'completed' });
    // The sandbox counts its deliberate failures in memory, so the restarted process fails once more first.
    const job = await database.db.selectFrom('jobs').select(['state', 'attempts']).executeTakeFirstOrThrow();
    expect(job.state).toBe('done');
    expect(job.attempts).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
