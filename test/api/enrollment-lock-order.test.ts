import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { testDatabaseKind } from '../helpers/database.ts';
import { createEnrollment, enrollmentWorldPerFile } from '../helpers/enrollment-world.ts';

// Clock: 2026-03-02. The lock order of docs/architecture.md: the member, then the enrollment, on every path.
const context = enrollmentWorldPerFile();

describe('two changes to one enrollment at once', () => {
  it.runIf(testDatabaseKind() === 'postgres')(
    'when a PATCH and a save_and_submit of one new enrollment arrive together, 50 times, then none is answered 500',
    async () => {
      const { w } = context;
      const answers: { status: number; type: string | undefined }[] = [];
      for (let round = 0; round < 50; round += 1) {
        const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
        // Two requests, so two connections of the pool, each in its own transaction.
        const [patched, submitted] = await Promise.all([
          w.admin.patch(`/enrollments/${enrollment.id}`, {
            enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: [{ dependent: w.family.spouse.id }] }],
          }),
          w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`),
        ]);
        for (const response of [patched, submitted]) answers.push({ status: response.status, type: response.body?.type });
      }
      // Whichever ran second either saw the other's outcome (a pending enrollment is not edited) or collided with
      // it and was told to retry: a documented 409, never a 500.
      expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
      expect(answers.filter((answer) => answer.status !== 200 && !(answer.status === 409 && answer.type === 'invalid_state'))).toEqual([]);
    },
    120_000,
  );
});

/**
 * A second connection that holds the enrollment and then asks for the member, so that a request that holds the
 * member and waits for the enrollment deadlocks with it. Its own deadlock_timeout is long, so PostgreSQL's
 * detector, run first by the request's backend, aborts the request and never this connection.
 */
async function collider(url: string, enrollmentId: string) {
  return holder(url, 'enrollments', enrollmentId);
}

/** A second connection holding one row (FOR UPDATE) in a transaction of its own until it commits. */
async function holder(url: string, table: 'enrollments' | 'members', id: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`SET deadlock_timeout = '30s'`);
  await client.query('BEGIN');
  await client.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`, [id]);
  const pid = ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
  // Only backends this connection blocks count: other tests may share the server.
  const blockedByIt = async () =>
    Number(((await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rows[0] as { n: string }).n);
  return {
    query: (text: string, values?: unknown[]) => client.query(text, values),
    /** Resolves once another backend waits for a lock this connection holds (the request, for the enrollment). */
    async untilRequestWaits() {
      await expect.poll(blockedByIt, { interval: 20 }).toBeGreaterThan(0);
    },
    close: () => client.end(),
  };
}

describe('every change of an enrollment locks its member first', () => {
  it.runIf(testDatabaseKind() === 'postgres')(
    'when another transaction holds the member, then an edit, a save_and_submit, a reopen and a cancel each wait for it, and go through once it lets go',
    async () => {
      const { t, w } = context;
      const medical = { enrolled_plans: [{ plan: w.plans.medical.id }] };
      const submittedEnrollment = async () => {
        const enrollment = await createEnrollment(w, medical);
        expect((await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`)).status).toBe(200);
        return enrollment;
      };
      const changes: [string, () => Promise<{ id: string }>, (id: string) => Promise<{ status: number; body: any }>, string][] = [
        ['edit', () => createEnrollment(w, medical), (id) => w.admin.patch(`/enrollments/${id}`, { metadata: { edited: 'yes' } }), 'not_started'],
        ['save_and_submit', () => createEnrollment(w, medical), (id) => w.admin.post(`/enrollments/${id}/save_and_submit`), 'pending'],
        ['reopen', submittedEnrollment, (id) => w.admin.post(`/enrollments/${id}/reopen`), 'not_started'],
        ['cancel', () => createEnrollment(w, medical), (id) => w.admin.post(`/enrollments/${id}/cancel`), 'cancelled'],
      ];
      for (const [name, arrange, change, status] of changes) {
        const enrollment = await arrange();
        const other = await holder(t.database.url, 'members', w.member.id);
        try {
          const answer = change(enrollment.id);
          // The request waits for the member: had it locked the enrollment first, nothing would block it here.
          await other.untilRequestWaits();
          await other.query('COMMIT');
          const { status: code, body } = await answer;
          expect({ name, code, status: body.status }).toEqual({ name, code: 200, status });
        } finally {
          await other.close();
        }
      }
    },
    60_000,
  );
});

describe('a request PostgreSQL aborts as a deadlock', () => {
  it.runIf(testDatabaseKind() === 'postgres')(
    'when it collides once, then its transaction runs again and it succeeds; when twice, then it is a 409 to send again, not kept for its Idempotency-Key',
    async () => {
      const { t, w } = context;
      for (const collisions of [1, 2]) {
        const enrollment = await createEnrollment(w, { enrolled_plans: [{ plan: w.plans.medical.id }] });
        const headers = { 'idempotency-key': `collide-${collisions}` };
        const other = await collider(t.database.url, enrollment.id);
        try {
          const submitted = w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`, undefined, { headers });
          for (let collision = 1; collision <= collisions; collision += 1) {
            // The request holds the member and waits for the enrollment; asking for the member closes the cycle.
            await other.query('SAVEPOINT cycle');
            await other.untilRequestWaits();
            await other.query('SELECT id FROM members WHERE id = $1 FOR UPDATE', [w.member.id]);
            // The request was aborted; dropping the member lock (not the enrollment's) lets its next run wait again.
            await other.query('ROLLBACK TO SAVEPOINT cycle');
          }
          await other.query('COMMIT');
          const answer = await submitted;
          if (collisions === 1) {
            expect(answer.status).toBe(200);
            expect(answer.body.status).toBe('pending');
          } else {
            expect(answer.status).toBe(409);
            expect(answer.body).toMatchObject({ type: 'invalid_state', message: expect.stringMatching(/send the request again/) });
            expect((await w.admin.get(`/enrollments/${enrollment.id}`)).body.status).toBe('not_started');
            // The 409 was not kept: the same request with the same key runs, and is not a replay.
            const again = await w.admin.post(`/enrollments/${enrollment.id}/save_and_submit`, undefined, { headers });
            expect(again.status).toBe(200);
            expect(again.headers.get('idempotent-replayed')).toBeNull();
            expect(again.body.status).toBe('pending');
          }
        } finally {
          await other.close();
        }
      }
    },
    60_000,
  );
});
