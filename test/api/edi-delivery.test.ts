import { createServer } from 'node:net';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildChangeCommit, buildJobHandlers } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { Database } from '../../src/db/schema.ts';
import { DEFAULT_MAX_ATTEMPTS, enqueueJob } from '../../src/jobs/job-queue.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { EdiAcknowledgements } from '../../src/modules/edi/edi-acknowledgement.service.ts';
import { DELIVER_EDI_FILE_JOB, EdiFileService } from '../../src/modules/edi/edi-file.service.ts';
import { EdiScheduler } from '../../src/modules/edi/edi-scheduler.ts';
import type { SftpOptions } from '../../src/modules/edi/sftp-transport.ts';
import { Encrypter } from '../../src/shared/crypto.ts';
import { observeDeliveries } from '../../src/observability/delivery-observer.ts';
import { parseExposition } from '../helpers/prometheus.ts';
import { createMember } from '../helpers/factories.ts';
import { newProviderAdmin } from '../helpers/more-factories.ts';
import { testDatabaseKind } from '../helpers/database.ts';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { generateEd25519KeyPair, publicKeyFingerprint, SFTP_TEST_USER, startSftpTestServer, type SftpTestServer } from '../helpers/sftp-server.ts';
import { ApiClient, createTestApp, DEVELOPMENT_OUTBOUND_ENV, DEVELOPMENT_SFTP, ok, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant } from '../helpers/x12.ts';

// Carrier EDI delivery against a real SFTP server: the upload job, its retries and permanent failures,
// resends, download delivery, the daily scheduled build and the pickup of the carrier's acknowledgements.

const NOW = '2026-03-02T15:00:00.000Z';
const logLines: { level: string; obj: object; msg: string }[] = [];
const log = {
  info: (obj: object, msg: string) => void logLines.push({ level: 'info', obj, msg }),
  warn: (obj: object, msg: string) => void logLines.push({ level: 'warn', obj, msg }),
  error: (obj: object, msg: string) => void logLines.push({ level: 'error', obj, msg }),
};

let t: TestContext;
let worker: JobWorker;
let server: SftpTestServer;

beforeAll(async () => {
  // The SFTP server runs in this process, on loopback: the development switch, as for a developer's machine.
  t = await createTestApp({ now: NOW, env: DEVELOPMENT_OUTBOUND_ENV });
  const handlers = buildJobHandlers(t.services, {
    adapter: new SandboxCarrierAdapter(),
    edi: DEVELOPMENT_SFTP,
    observer: observeDeliveries(t.app.metrics, log),
  });
  worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers, log, batchSize: 20 });
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});
beforeEach(async () => {
  t.clock.set(NOW);
  logLines.length = 0;
  server = await startSftpTestServer();
});
afterEach(async () => {
  await server.close();
});

/** Runs every job that is due now, until none is left. */
async function runDueJobs(): Promise<void> {
  while ((await worker.runDueJobs()) > 0);
}

function sftpDelivery(overrides: Record<string, unknown> = {}) {
  return {
    method: 'sftp',
    host: server.host,
    port: server.port,
    username: SFTP_TEST_USER.username,
    password: SFTP_TEST_USER.password,
    host_key_fingerprint: server.hostKeyFingerprint,
    inbound_directory: '/inbound',
    outbound_directory: '/outbound',
    ...overrides,
  };
}

async function putProfile(w: EnrollmentWorld, delivery: Record<string, unknown>, schedule: { time: string; time_zone: string } | null = null) {
  return ok(
    w.admin.request('PUT', `/groups/${w.groups.ediGroup.id}/edi_profile`, {
      body: {
        interchange_sender: { qualifier: 'ZZ', id: 'BENEFITSCO' },
        interchange_receiver: { qualifier: 'ZZ', id: 'CARRIER' },
        application_sender_code: 'BENEFITSCO',
        application_receiver_code: 'CARRIER',
        sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
        payer: { name: 'World Health Co', id: '987654321' },
        companion_guide: { subscriber_id_source: 'member_id' },
        schedule,
        delivery,
      },
    }),
  );
}

/** An enrollment world whose edi group has a profile and one approved vision enrollment waiting for a file. */
async function worldWithChange(delivery: Record<string, unknown>, schedule: { time: string; time_zone: string } | null = null) {
  const w = await createEnrollmentWorld(t);
  await putProfile(w, delivery, schedule);
  const enrollment = await approvedEnrollment(w, {
    enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00', enrolled_dependents: [{ dependent: w.family.spouse.id }] }],
  });
  return { w, enrollment };
}

/** Builds the group's change file, parsed with x12-parser and checked against the guide (test/helpers/x12.ts). */
async function buildChangeFile(w: EnrollmentWorld) {
  const file = await ok(w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change' }), 201);
  await expectGuideConformant(file, (await w.admin.get(`/edi_files/${file.id}/content`)).text);
  return file;
}

async function contentOf(w: EnrollmentWorld, fileId: string): Promise<Buffer> {
  const response = await w.admin.get(`/edi_files/${fileId}/content`);
  expect(response.status).toBe(200);
  return Buffer.from(response.text, 'utf8');
}

async function jobsOf(fileId: string) {
  const rows = await t.database.db.selectFrom('jobs').selectAll().where('kind', '=', DELIVER_EDI_FILE_JOB).execute();
  return rows.filter((row) => (JSON.parse(row.payload) as { edi_file?: string }).edi_file === fileId);
}

async function deliveryFailedEvents(w: EnrollmentWorld, fileId: string) {
  return (await ok(w.admin.get(`/events?type=edi_file.delivery_failed&object_id=${fileId}`))).results as {
    object_type: string;
    data: Record<string, unknown>;
  }[];
}

/** A port on this machine where nothing listens (connections to it are refused). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function changesOf(w: EnrollmentWorld, ids: string[]) {
  return Promise.all(ids.map((id) => ok(w.admin.get(`/benefit_changes/${id}`))));
}

/** A 999 from the carrier (ISA06 CARRIER) accepting our functional group `groupControlNumber`, transaction set 0001. */
function accepting999(groupControlNumber: number): string {
  const isa = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    'CARRIER'.padEnd(15),
    'ZZ',
    'BENEFITSCO'.padEnd(15),
    '260302',
    '1000',
    '^',
    '00501',
    '000000777',
    '0',
    'T',
    ':',
  ].join('*');
  return [
    `${isa}~`,
    'GS*FA*CARRIER*BENEFITSCO*20260302*1000*777*X*005010X231A1~',
    'ST*999*0001*005010X231A1~',
    `AK1*BE*${groupControlNumber}*005010X220A1~`,
    'AK2*834*0001*005010X220A1~',
    'IK5*A~',
    'AK9*A*1*1*1~',
    'SE*6*0001~',
    'GE*1*777~',
    'IEA*1*000000777~',
  ].join('\n');
}

/** A 999 accepting the group AK102 names, from `sender` to `receiver` (the carrier's to us by default), AK101 and AK201 as given. */
function carrier999({
  ak102,
  sender = 'CARRIER',
  receiver = 'BENEFITSCO',
  ak101 = 'BE',
  ak201 = '834',
}: {
  ak102: string;
  sender?: string;
  receiver?: string;
  ak101?: string;
  ak201?: string;
}): string {
  return accepting999(0)
    .replace(`*${'CARRIER'.padEnd(15)}*`, `*${sender.padEnd(15)}*`)
    .replace(`*${'BENEFITSCO'.padEnd(15)}*`, `*${receiver.padEnd(15)}*`)
    .replace('AK1*BE*0*', `AK1*${ak101}*${ak102}*`)
    .replace('AK2*834*', `AK2*${ak201}*`);
}

function schedulerOn(db: Kysely<Database>, sftp: SftpOptions = DEVELOPMENT_SFTP) {
  const encrypter = new Encrypter(TEST_ENCRYPTION_KEY);
  const changes = buildChangeCommit({ clock: t.clock });
  const files = new EdiFileService({ db, clock: t.clock, encrypter, encryptionKey: TEST_ENCRYPTION_KEY, changes });
  return new EdiScheduler({
    db,
    clock: t.clock,
    files,
    acknowledgements: new EdiAcknowledgements({ db, clock: t.clock, changes, files }),
    encrypter,
    log,
    sftp,
  });
}

/** Runs every job that is due now with handlers that connect as `sftp` says (instead of the development switch). */
async function runDueJobsWith(sftp: SftpOptions): Promise<void> {
  const handlers = buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter(), edi: sftp });
  const other = new JobWorker({ db: t.database.db, clock: t.clock, handlers, log, batchSize: 20 });
  try {
    while ((await other.runDueJobs()) > 0);
  } finally {
    await other.stop();
  }
}

/** Leaves a delivery job as a worker that died during its last attempt does: running, no attempts left, its lock expired. */
async function abandonAtLastAttempt(jobId: string): Promise<void> {
  await t.database.db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      attempts: eb.ref('max_attempts'),
      locked_by: 'a-process-that-died',
      locked_until: new Date(t.clock.now().getTime() - 1).toISOString(),
    }))
    .where('id', '=', jobId)
    .execute();
}

describe('the delivery job', () => {
  it('when a change file is built for an sftp profile, then the job uploads its exact bytes and the file and its changes are delivered and sent', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    expect(file.status).toBe('ready');
    expect((await changesOf(w, file.benefit_changes)).map((change) => change.delivery_state)).toEqual(['awaiting_file']);

    await runDueJobs();

    const content = await contentOf(w, file.id);
    expect(server.file(`/inbound/${file.file_name}`)).toEqual(content);
    expect([...server.files.keys()].filter((path) => path.endsWith('.part'))).toEqual([]);
    const delivered = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(delivered).toMatchObject({
      status: 'delivered',
      remote_path: `/inbound/${file.file_name}`,
      delivered_at: NOW,
      delivery_error: null,
      delivery_attempts: 1,
    });
    expect((await changesOf(w, file.benefit_changes)).map((change) => change.delivery_state)).toEqual(['sent']);
    expect((await jobsOf(file.id)).map((job) => [job.state, job.attempts])).toEqual([['done', 1]]);
  });

  it("when the pinned host key is not the server's, then the file is delivery_failed, nothing is uploaded, no credential is sent, and the job does not retry", async () => {
    const { w } = await worldWithChange(sftpDelivery({ host_key_fingerprint: publicKeyFingerprint(generateEd25519KeyPair().public) }));
    const file = await buildChangeFile(w);

    await runDueJobs();
    t.clock.advance(2 * 60 * 60 * 1000);
    await runDueJobs();

    const failed = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(failed.status).toBe('delivery_failed');
    expect(failed.delivery_error).toMatch(/host key .* does not match the pinned fingerprint/);
    expect(failed.delivery_error).not.toContain(SFTP_TEST_USER.password);
    expect(failed.delivered_at).toBeNull();
    expect(server.files.size).toBe(0);
    expect(server.authAttempts).toEqual([]);
    expect((await jobsOf(file.id)).map((job) => [job.state, job.attempts])).toEqual([['failed', 1]]);
    expect((await changesOf(w, file.benefit_changes)).map((change) => change.delivery_state)).toEqual(['awaiting_file']);
    expect(JSON.stringify(logLines)).not.toContain(SFTP_TEST_USER.password);
  });

  it('when the connection drops mid-upload, then the job retries after its backoff and the second attempt delivers the whole file', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    server.dropConnectionAfterBytes(100);
    const file = await buildChangeFile(w);
    expect(file.byte_count).toBeGreaterThan(100);

    await runDueJobs();
    expect(server.file(`/inbound/${file.file_name}`)).toBeUndefined();
    const [retrying] = await jobsOf(file.id);
    expect(retrying).toMatchObject({ state: 'queued', attempts: 1 });
    expect(retrying!.last_error).toMatch(/lost|closed/);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('ready');

    // The first retry waits at most 5 s (job-queue.ts retryDelayMs).
    t.clock.advance(5_001);
    await runDueJobs();

    expect(server.file(`/inbound/${file.file_name}`)).toEqual(await contentOf(w, file.id));
    expect([...server.files.keys()].filter((path) => path.endsWith('.part'))).toEqual([]);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('delivered');
    expect((await jobsOf(file.id)).map((job) => [job.state, job.attempts])).toEqual([['done', 2]]);
  });

  it('when every attempt fails for a reason that may pass, then each is seen on the file as it happens, and the last one records the file delivery_failed with its event', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    server.refuseConnections(DEFAULT_MAX_ATTEMPTS);
    const file = await buildChangeFile(w);
    expect(file).toMatchObject({ delivery_attempts: 0, delivery_error: null, next_delivery_attempt_at: NOW });

    for (let attempt = 1; attempt <= DEFAULT_MAX_ATTEMPTS; attempt++) {
      await runDueJobs();
      const [job] = await jobsOf(file.id);
      expect(job!.attempts).toBe(attempt);
      const current = await ok(w.admin.get(`/edi_files/${file.id}`));
      const last = attempt === DEFAULT_MAX_ATTEMPTS;
      expect(current).toMatchObject({
        status: last ? 'delivery_failed' : 'ready',
        delivery_attempts: attempt,
        delivery_error: expect.stringMatching(/127\.0\.0\.1:\d+/),
        // When the queue tries again, as the job says (job-queue.ts retryDelayMs); none after the last.
        next_delivery_attempt_at: last ? null : job!.run_at,
      });
      expect((await deliveryFailedEvents(w, file.id)).length).toBe(last ? 1 : 0);
      // Past the longest backoff (an hour).
      t.clock.advance(60 * 60 * 1000 + 1);
    }

    const failed = await ok(w.admin.get(`/edi_files/${file.id}`));
    const [event] = await deliveryFailedEvents(w, file.id);
    expect(event).toMatchObject({ object_type: 'edi_file', data: { status: 'delivery_failed', group: w.groups.ediGroup.id } });
    expect(logLines.filter((line) => line.level === 'error' && line.msg === 'job failed; no attempts left')).toHaveLength(1);
    // The server hangs up as soon as it accepts: "Could not connect to ..." or "... closed the connection during the handshake".
    expect(failed.delivery_error).toMatch(/Could not connect to 127\.0\.0\.1:\d+|127\.0\.0\.1:\d+ closed the connection during the handshake/);
    expect((await jobsOf(file.id)).map((job) => job.state)).toEqual(['failed']);
    expect(server.files.size).toBe(0);
  });

  it('when a delivered file is sent again, then the same stored bytes go under the same name with the same control numbers', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    await runDueJobs();
    const first = server.file(`/inbound/${file.file_name}`);
    expect(first).toBeDefined();
    server.putFile(`/inbound/${file.file_name}`, 'overwritten by the carrier');

    t.clock.advance(60_000);
    const resent = await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    expect(resent.status).toBe('delivered');
    await runDueJobs();

    expect(server.file(`/inbound/${file.file_name}`)).toEqual(first);
    expect([...server.files.keys()]).toEqual([`/inbound/${file.file_name}`]);
    const after = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(after).toMatchObject({
      file_name: file.file_name,
      interchange_control_number: file.interchange_control_number,
      group_control_number: file.group_control_number,
      content_sha256: file.content_sha256,
      delivery_attempts: 2,
      delivered_at: t.clock.now().toISOString(),
    });
    expect(await contentOf(w, file.id)).toEqual(first);
  });

  it('when /deliver is called while a delivery is still queued, then no second job is queued: one upload at a time', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    expect((await jobsOf(file.id)).filter((job) => job.state === 'queued')).toHaveLength(1);
    await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    expect((await jobsOf(file.id)).filter((job) => job.state === 'queued')).toHaveLength(1);
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivered', delivery_attempts: 1 });
  });

  it('when the profile delivers by download, then POST /deliver marks the file delivered without any job', async () => {
    const { w } = await worldWithChange({ method: 'download' });
    const file = await buildChangeFile(w);
    expect(file.status).toBe('ready');

    const delivered = await ok(w.admin.post(`/edi_files/${file.id}/deliver`));

    expect(delivered).toMatchObject({ status: 'delivered', remote_path: null, delivered_at: NOW });
    expect(await jobsOf(file.id)).toEqual([]);
    expect((await changesOf(w, file.benefit_changes)).map((change) => change.delivery_state)).toEqual(['sent']);
    expect(server.connectionCount).toBe(0);
  });
});

describe('delivery state and retry', () => {
  it('when an attempt fails and more remain, then the file shows the attempt, its error without the address the host resolved to, and when the queue tries again', async () => {
    const { w } = await worldWithChange(sftpDelivery({ host: 'localhost', port: await closedPort() }));
    const file = await buildChangeFile(w);

    await runDueJobs();

    const [job] = await jobsOf(file.id);
    expect(job).toMatchObject({ state: 'queued', attempts: 1 });
    const current = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(current).toMatchObject({ status: 'ready', delivery_attempts: 1, next_delivery_attempt_at: job!.run_at, delivered_at: null });
    // The first retry waits 2.5 to 5 s (job-queue.ts retryDelayMs).
    expect(Date.parse(current.next_delivery_attempt_at) - Date.parse(NOW)).toBeGreaterThanOrEqual(2_500);
    expect(Date.parse(current.next_delivery_attempt_at) - Date.parse(NOW)).toBeLessThanOrEqual(5_000);
    expect(current.delivery_error).toEqual(expect.any(String));
    expect(current.delivery_error).not.toContain('127.0.0.1');
    expect(current.delivery_error).not.toContain(SFTP_TEST_USER.password);
    expect(await deliveryFailedEvents(w, file.id)).toEqual([]);
  });

  it('when the SFTP server keeps refusing connections, then the file and the list show each attempt, its error and the next attempt, and each failure is logged with the file id and counted', async () => {
    const { w } = await worldWithChange(sftpDelivery({ host: 'localhost', port: await closedPort() }));
    const file = await buildChangeFile(w);
    const failures = async () => parseExposition((await t.anonymous.get('/metrics')).text).value('benefits_delivery_failures_total', { channel: 'edi' }) ?? 0;
    const failedBefore = await failures();

    for (const attempt of [1, 2]) {
      await runDueJobs();
      const [job] = await jobsOf(file.id);
      const shown = await ok(w.admin.get(`/edi_files/${file.id}`));
      expect(shown).toMatchObject({ status: 'ready', delivery_attempts: attempt, next_delivery_attempt_at: job!.run_at });
      expect(shown.delivery_error).toMatch(/refused|connect/i);
      const listed = (await ok(w.admin.get(`/edi_files?group=${w.groups.ediGroup.id}`))).results.find((row: { id: string }) => row.id === file.id);
      expect(listed).toMatchObject({ delivery_attempts: attempt, delivery_error: shown.delivery_error, next_delivery_attempt_at: job!.run_at });
      const warning = logLines.find(
        (line) =>
          line.level === 'warn' &&
          (line.obj as { ediFile?: string; attempt?: number }).ediFile === file.id &&
          (line.obj as { attempt?: number }).attempt === attempt,
      );
      expect(warning).toMatchObject({
        msg: 'edi delivery failed; will retry',
        obj: { channel: 'edi', group: w.groups.ediGroup.id, reason: shown.delivery_error, retryAt: job!.run_at },
      });
      expect(JSON.stringify(warning)).not.toContain(SFTP_TEST_USER.password);
      // At least: once the clock moves, retries of earlier tests' files fall due as well.
      expect(await failures()).toBeGreaterThanOrEqual(failedBefore + attempt);
      t.clock.set(job!.run_at);
    }
  });

  it('when a ready file waits for its next attempt, then retry brings that attempt forward to now, and its success clears the error and the next attempt time', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    server.refuseConnections(1);
    const file = await buildChangeFile(w);
    await runDueJobs();
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).next_delivery_attempt_at).not.toBe(NOW);
    await runDueJobs();
    expect(server.file(`/inbound/${file.file_name}`)).toBeUndefined();

    const retried = await ok(w.admin.post(`/edi_files/${file.id}/retry`));

    expect(retried).toMatchObject({ status: 'ready', delivery_attempts: 1, next_delivery_attempt_at: NOW });
    expect((await jobsOf(file.id)).map((job) => [job.state, job.run_at])).toEqual([['queued', NOW]]);
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({
      status: 'delivered',
      delivery_attempts: 2,
      delivery_error: null,
      next_delivery_attempt_at: null,
      delivered_at: NOW,
    });
    expect(server.file(`/inbound/${file.file_name}`)).toEqual(await contentOf(w, file.id));
    expect((await jobsOf(file.id)).map((job) => [job.state, job.attempts])).toEqual([['done', 2]]);
  });

  it('when a delivery_failed file is retried twice at once after its profile is fixed, then one delivery is queued and it delivers the file', async () => {
    const { w } = await worldWithChange(sftpDelivery({ host_key_fingerprint: publicKeyFingerprint(generateEd25519KeyPair().public) }));
    const file = await buildChangeFile(w);
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivery_failed', delivery_attempts: 1, next_delivery_attempt_at: null });
    await putProfile(w, sftpDelivery());
    t.clock.advance(60_000);
    const now = t.clock.now().toISOString();

    const [first, second] = await Promise.all([w.admin.post(`/edi_files/${file.id}/retry`), w.admin.post(`/edi_files/${file.id}/retry`)]);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body).toMatchObject({ status: 'delivery_failed', next_delivery_attempt_at: now });
    expect((await jobsOf(file.id)).map((job) => job.state).sort()).toEqual(['failed', 'queued']);
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({
      status: 'delivered',
      delivery_attempts: 2,
      delivery_error: null,
      next_delivery_attempt_at: null,
    });
    expect(server.file(`/inbound/${file.file_name}`)).toEqual(await contentOf(w, file.id));
    expect((await jobsOf(file.id)).map((job) => job.state).sort()).toEqual(['done', 'failed']);
  });

  it('when the server stops during the last attempt, then the next claim fails the job and the file becomes delivery_failed with its event, as after a last attempt that failed', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    const [job] = await jobsOf(file.id);
    await abandonAtLastAttempt(job!.id);

    await runDueJobs();

    expect((await jobsOf(file.id)).map((row) => [row.state, row.attempts])).toEqual([['failed', DEFAULT_MAX_ATTEMPTS]]);
    const failed = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(failed).toMatchObject({
      status: 'delivery_failed',
      delivery_attempts: 1,
      delivery_error: expect.stringMatching(/^Not sent: the server stopped during the last delivery attempt/),
      next_delivery_attempt_at: null,
      delivered_at: null,
    });
    expect(failed.delivery_error).not.toMatch(/127\.0\.0\.1|localhost/);
    const events = await deliveryFailedEvents(w, file.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ object_type: 'edi_file', data: { status: 'delivery_failed', group: w.groups.ediGroup.id } });
    expect(server.connectionCount).toBe(0);

    // As after any failed delivery: retry sends it.
    await ok(w.admin.post(`/edi_files/${file.id}/retry`));
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivered', delivery_error: null });
  });

  it('when the server stopped during the last attempt but another delivery of the file is pending, then the file is left to that one', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    const [job] = await jobsOf(file.id);
    await abandonAtLastAttempt(job!.id);
    const later = new Date(Date.parse(NOW) + 60_000);
    await enqueueJob(t.database.db, t.clock, { kind: DELIVER_EDI_FILE_JOB, payload: { edi_file: file.id }, runAt: later });

    await runDueJobs();

    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'ready', delivery_attempts: 0, delivery_error: null });
    expect(await deliveryFailedEvents(w, file.id)).toEqual([]);
    t.clock.set(later.toISOString());
    await runDueJobs();
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivered', delivery_attempts: 1 });
  });

  it('when retry makes no sense (a delivered file, a download profile), then it is 409 and nothing changes; another provider gets 404', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    await runDueJobs();
    const delivered = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(delivered.status).toBe('delivered');

    const refused = await w.admin.post(`/edi_files/${file.id}/retry`);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.message).toMatch(/delivered/);

    const { w: downloadWorld } = await worldWithChange({ method: 'download' });
    const ready = await buildChangeFile(downloadWorld);
    const notSftp = await downloadWorld.admin.post(`/edi_files/${ready.id}/retry`);
    expect(notSftp.status, notSftp.text).toBe(409);

    const other = await newProviderAdmin(t, 'edi-retry-other');
    expect((await other.post(`/edi_files/${file.id}/retry`)).status).toBe(404);
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(delivered);
    expect(await ok(downloadWorld.admin.get(`/edi_files/${ready.id}`))).toEqual(ready);
    expect(await jobsOf(ready.id)).toEqual([]);
    expect((await jobsOf(file.id)).map((job) => job.state)).toEqual(['done']);
  });
});

describe('the EDI scheduler', () => {
  it("when two schedulers check at the same time, then the day's change file is built once, and not before the scheduled local time", async () => {
    // 06:00 in Chicago on 2026-03-02 (CST, UTC-6) is 12:00 UTC.
    const { w } = await worldWithChange(sftpDelivery(), { time: '06:00', time_zone: 'America/Chicago' });
    // On PostgreSQL the second scheduler has a pool of its own, as a second server would. node:sqlite is
    // synchronous: a second connection in this process would wait for the first one's write lock on the very
    // event loop the first needs to finish, so on SQLite both share the process's one connection.
    const other = testDatabaseKind() === 'postgres' ? openDatabase(t.database.url) : undefined;
    try {
      const schedulers = [schedulerOn(t.database.db), schedulerOn(other?.db ?? t.database.db)];
      const filesOfGroup = async () => (await ok(w.admin.get(`/edi_files?group=${w.groups.ediGroup.id}`))).results as { id: string }[];

      t.clock.set('2026-03-02T11:59:00.000Z');
      await Promise.all(schedulers.map((scheduler) => scheduler.checkNow()));
      expect(await filesOfGroup()).toEqual([]);

      t.clock.set('2026-03-02T12:00:00.000Z');
      const summaries = await Promise.all(schedulers.map((scheduler) => scheduler.checkNow()));
      const files = await filesOfGroup();
      expect(files).toHaveLength(1);
      expect(summaries.flatMap((summary) => summary.built).filter((id) => id === files[0]!.id)).toHaveLength(1);
      expect(await jobsOf(files[0]!.id)).toHaveLength(1);

      // A change approved later the same day waits for tomorrow's file.
      const colleague = await createMember(w.admin, { employer: w.employer.id, dob: '1990-01-01', hire_date: '2025-01-01' });
      await approvedEnrollment(w, { member: colleague.id, enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00' }] });
      t.clock.set('2026-03-02T18:00:00.000Z');
      await Promise.all(schedulers.map((scheduler) => scheduler.checkNow()));
      expect(await filesOfGroup()).toHaveLength(1);
      // And tomorrow's, once its time has come.
      t.clock.set('2026-03-03T12:00:00.000Z');
      await Promise.all(schedulers.map((scheduler) => scheduler.checkNow()));
      expect(await filesOfGroup()).toHaveLength(2);
    } finally {
      await other?.close();
    }
  });

  it('when the carrier leaves a 999 accepting a delivered file, then the pickup applies it, completes its changes, syncs the enrollment and removes the remote file', async () => {
    const { w, enrollment } = await worldWithChange(sftpDelivery(), { time: '06:00', time_zone: 'America/Chicago' });
    const file = await buildChangeFile(w);
    await runDueJobs();
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('delivered');
    server.putFile('/outbound/999_000000777.x12', accepting999(file.group_control_number));
    server.putFile('/outbound/notes.txt', 'SECRET-LOOKING CONTENT NOT X12');
    t.clock.advance(60 * 60 * 1000);

    const summary = await schedulerOn(t.database.db).checkNow();

    expect(summary.acknowledgements).toBe(1);
    const accepted = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(accepted).toMatchObject({ status: 'accepted', acknowledged_at: t.clock.now().toISOString() });
    const changes = await changesOf(w, file.benefit_changes);
    expect(changes.map((change) => [change.delivery_state, change.completed_at])).toEqual([['completed', t.clock.now().toISOString()]]);
    expect((await ok(w.admin.get(`/enrollments/${enrollment.id}`))).status).toBe('synced');
    expect(server.file('/outbound/999_000000777.x12')).toBeUndefined();
    // What the service cannot read stays for a person, and its content is not logged.
    expect(server.file('/outbound/notes.txt')).toBeDefined();
    expect(logLines.some((line) => line.level === 'warn' && JSON.stringify(line.obj).includes('notes.txt'))).toBe(true);
    expect(JSON.stringify(logLines)).not.toContain('SECRET-LOOKING');
  });
});

describe('the acknowledgement pickup: matching and paging', () => {
  it('when the folder holds a 999 for an 837 to another receiver under our group control number, then the pickup applies nothing, stores it unmatched with why, leaves it there and never downloads it again', async () => {
    const { w, enrollment } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    await runDueJobs();
    const attack = carrier999({ ak102: String(file.group_control_number), receiver: 'OTHERSENDER', ak101: 'HC', ak201: '837' });
    server.putFile('/outbound/999_from_elsewhere.x12', attack);

    const summary = await schedulerOn(t.database.db).checkNow();

    // (Profiles of earlier tests point at servers since closed: their pickups fail, and are not counted here.)
    expect(summary).toMatchObject({ acknowledgements: 0, unmatchedAcknowledgements: 1 });
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivered', acknowledgement: null, acknowledged_at: null });
    expect((await changesOf(w, file.benefit_changes)).map((change) => change.delivery_state)).toEqual(['sent']);
    expect((await ok(w.admin.get(`/enrollments/${enrollment.id}`))).status).toBe('approved');
    expect(server.file('/outbound/999_from_elsewhere.x12')?.toString()).toBe(attack);
    const listed = await ok(w.admin.get('/edi_unmatched_acknowledgements'));
    expect(listed).toEqual({
      next: null,
      previous: null,
      results: [
        {
          id: expect.stringMatching(/^eack_/),
          object: 'edi_unmatched_acknowledgement',
          received_via: 'sftp_pickup',
          remote_file: '999_from_elsewhere.x12',
          kind: '999',
          interchange_sender: { qualifier: 'ZZ', id: 'CARRIER' },
          interchange_receiver: { qualifier: 'ZZ', id: 'OTHERSENDER' },
          interchange_control_number: '000000777',
          control_number: String(file.group_control_number),
          edi_file: file.id,
          reason: expect.stringContaining('ISA08 is OTHERSENDER (expected BENEFITSCO)'),
          mismatches: [
            { element: 'ISA08', expected: 'BENEFITSCO', found: 'OTHERSENDER' },
            { element: 'AK101', expected: 'BE', found: 'HC' },
            { element: 'AK201', expected: '834', found: '837' },
          ],
          created_at: NOW,
        },
      ],
    });

    // Admins of the provider only.
    const readOnly = new ApiClient(t.baseUrl, (await ok(w.admin.post('/api_keys', { role: 'read_only' }), 201)).key);
    expect((await readOnly.get('/edi_unmatched_acknowledgements')).status).toBe(403);
    const otherAdmin = await newProviderAdmin(t, 'edi-pickup-other');
    expect((await ok(otherAdmin.get('/edi_unmatched_acknowledgements'))).results).toEqual([]);

    // Later pickups (another process: nothing in memory) neither download it again nor store it twice.
    const downloads = server.downloads.length;
    expect(downloads).toBe(1);
    t.clock.advance(16 * 60_000);
    await schedulerOn(t.database.db).checkNow();
    expect(server.downloads.length).toBe(downloads);
    expect((await ok(w.admin.get('/edi_unmatched_acknowledgements'))).results).toHaveLength(1);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('delivered');
  });

  it('when the folder holds X12 that is not a readable 999 or TA1 and a text file, then the first is stored unmatched as unreadable, both stay and neither is downloaded again', async () => {
    const { w } = await worldWithChange(sftpDelivery());
    const file = await buildChangeFile(w);
    await runDueJobs();
    const broken = accepting999(file.group_control_number).replace(/SE\*\d+\*/, 'SE*99*');
    server.putFile('/outbound/broken.x12', broken);
    server.putFile('/outbound/readme.txt', 'Dear partner, our folder rules');

    const summary = await schedulerOn(t.database.db).checkNow();

    expect(summary).toMatchObject({ acknowledgements: 0, unmatchedAcknowledgements: 1 });
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('delivered');
    const [unreadable, ...others] = (await ok(w.admin.get('/edi_unmatched_acknowledgements'))).results;
    expect(others).toEqual([]);
    expect(unreadable).toMatchObject({ remote_file: 'broken.x12', kind: 'unreadable', edi_file: null, mismatches: [], interchange_sender: null });
    expect(unreadable.reason).toContain('SE01 does not count the segments');
    expect(server.file('/outbound/broken.x12')).toBeDefined();
    expect(server.file('/outbound/readme.txt')).toBeDefined();
    expect(server.downloads).toHaveLength(2);

    t.clock.advance(16 * 60_000);
    await schedulerOn(t.database.db).checkNow();
    expect(server.downloads).toHaveLength(2);
    expect((await ok(w.admin.get('/edi_unmatched_acknowledgements'))).results).toHaveLength(1);
    // A file that changes (another size or time) is a new one: read again.
    server.putFile('/outbound/readme.txt', 'Dear partner, our folder rules have changed');
    t.clock.advance(16 * 60_000);
    await schedulerOn(t.database.db).checkNow();
    expect(server.downloads).toEqual(['/outbound/broken.x12', '/outbound/readme.txt', '/outbound/readme.txt']);
  });

  it('when 1,500 other files lie ahead of the 999 in the folder, then pickups page through them all, each downloaded once, the 999 applies and moves to the archive, and a later pickup downloads nothing', async () => {
    await server.close();
    server = await startSftpTestServer({ directories: ['/inbound', '/outbound', '/archive'] });
    const { w, enrollment } = await worldWithChange(sftpDelivery({ archive_directory: '/archive' }));
    const file = await buildChangeFile(w);
    await runDueJobs();
    // A second delivered file keeps the folder watched once the first is acknowledged.
    const colleague = await createMember(w.admin, { employer: w.employer.id, dob: '1990-01-01', hire_date: '2025-01-01' });
    await approvedEnrollment(w, { member: colleague.id, enrolled_plans: [{ plan: w.plans.vision.id, premium: '10.00' }] });
    t.clock.advance(1000);
    const second = await buildChangeFile(w);
    await runDueJobs();
    expect((await ok(w.admin.get(`/edi_files/${second.id}`))).status).toBe('delivered');

    // Reports, and 999s another carrier sent to another trading partner, all listed before the real 999.
    for (let index = 0; index < 1_500; index++) {
      const name = `a_${String(index).padStart(4, '0')}`;
      if (index % 15 === 0) server.putFile(`/outbound/${name}.x12`, carrier999({ ak102: '5', sender: 'OTHERCARRIER', receiver: 'SOMEONE' }));
      else server.putFile(`/outbound/${name}.txt`, `daily report ${index}`);
    }
    server.putFile('/outbound/z_999.x12', accepting999(file.group_control_number));

    const scheduler = schedulerOn(t.database.db);
    let checks = 0;
    while ((await ok(w.admin.get(`/edi_files/${file.id}`))).status === 'delivered' && checks < 10) {
      await scheduler.checkNow();
      checks += 1;
      // A pickup cut short (500 downloads at most) is due again at the next check, a minute later.
      t.clock.advance(60_000);
    }

    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'accepted' });
    expect((await ok(w.admin.get(`/enrollments/${enrollment.id}`))).status).toBe('synced');
    expect(checks).toBe(4);
    expect(server.file('/outbound/z_999.x12')).toBeUndefined();
    expect(server.file('/archive/z_999.x12')?.toString()).toBe(accepting999(file.group_control_number));
    expect(server.downloads).toHaveLength(1_501);
    expect(new Set(server.downloads).size).toBe(1_501);
    // What it could not use stays where it was; the foreign 999s are listed as unmatched.
    expect([...server.files.keys()].filter((path) => path.startsWith('/outbound/'))).toHaveLength(1_500);
    const unmatched = await ok(w.admin.get('/edi_unmatched_acknowledgements?page_size=100'));
    expect(unmatched.results).toHaveLength(100);
    expect(unmatched.next).toBeNull();
    expect(unmatched.results[0].reason).toContain('No file of ours sent to ZZ/OTHERCARRIER');

    // A later pickup (another process: nothing in memory) downloads nothing again.
    t.clock.advance(16 * 60_000);
    const later = await schedulerOn(t.database.db).checkNow();
    expect(later).toMatchObject({ acknowledgements: 0, unmatchedAcknowledgements: 0 });
    expect(server.downloads).toHaveLength(1_501);
    expect((await ok(w.admin.get(`/edi_files/${second.id}`))).status).toBe('delivered');
  }, 120_000);
});

describe('the outbound address policy at connect time', () => {
  // Loopback refused as deployed; any port, so that the address is what is refused, not the test server's port.
  const WITHOUT_SWITCH: SftpOptions = { policy: { allowLoopback: false, allowedPorts: [[1, 65_535]] } };

  it('when a profile names localhost and the service runs without the development switch, then the upload never reaches the server and the file fails at once without an address in its error', async () => {
    const { w } = await worldWithChange(sftpDelivery({ host: 'localhost' }));
    const file = await buildChangeFile(w);

    await runDueJobsWith(WITHOUT_SWITCH);
    t.clock.advance(2 * 60 * 60 * 1000);
    await runDueJobsWith(WITHOUT_SWITCH);

    const failed = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(failed.status).toBe('delivery_failed');
    expect(failed.delivery_error).toBe('Refused to connect to localhost: it does not resolve to public internet addresses only.');
    expect(server.connectionCount).toBe(0);
    expect(server.files.size).toBe(0);
    // Refused is final: no retries that would connect twelve times.
    expect((await jobsOf(file.id)).map((job) => [job.state, job.attempts])).toEqual([['failed', 1]]);
    expect(JSON.stringify(await jobsOf(file.id))).not.toContain('127.0.0.1');
  });

  it('when the profile names a host that resolves to loopback, then delivery and pickup are refused without the switch, and neither the error nor the log names the address', async () => {
    const resolveToLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    const { w } = await worldWithChange(sftpDelivery({ host: 'sftp.carrier.example' }), { time: '06:00', time_zone: 'America/Chicago' });
    const file = await buildChangeFile(w);

    await runDueJobsWith({ ...WITHOUT_SWITCH, resolve: resolveToLoopback });

    const failed = await ok(w.admin.get(`/edi_files/${file.id}`));
    expect(failed.status).toBe('delivery_failed');
    expect(failed.delivery_error).toBe('Refused to connect to sftp.carrier.example: it does not resolve to public internet addresses only.');
    expect(server.connectionCount).toBe(0);

    // The same name, allowed to reach loopback (the switch on): the file goes to the very address checked.
    await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    await runDueJobsWith({ ...DEVELOPMENT_SFTP, resolve: resolveToLoopback });
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe('delivered');
    const connections = server.connectionCount;
    server.putFile('/outbound/999_000000777.x12', accepting999(file.group_control_number));
    t.clock.advance(60 * 60 * 1000);

    const summary = await schedulerOn(t.database.db, { ...WITHOUT_SWITCH, resolve: resolveToLoopback }).checkNow();

    // (Earlier tests' profiles name 127.0.0.1 themselves and are refused too: only this group's lines are ours.)
    expect(summary.acknowledgements).toBe(0);
    expect(server.connectionCount).toBe(connections);
    expect(server.file('/outbound/999_000000777.x12')).toBeDefined();
    const ours = logLines.filter(
      (line) => JSON.stringify(line.obj).includes(w.groups.ediGroup.id) || JSON.stringify(line.obj).includes('sftp.carrier.example'),
    );
    expect(ours.find((line) => line.msg.startsWith('EDI acknowledgement pickup failed'))?.obj).toMatchObject({
      group: w.groups.ediGroup.id,
      error: 'Refused to connect to sftp.carrier.example: it does not resolve to public internet addresses only.',
    });
    expect(JSON.stringify(ours)).not.toContain('127.0.0.1');
  });
});
