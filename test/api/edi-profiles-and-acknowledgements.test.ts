import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedEnrollment, createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { createEmployer, createMember } from '../helpers/factories.ts';
import { createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { deepArrayText, deepObjectText } from '../helpers/hostile-inputs.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { ApiClient, createTestApp, ok, type ApiResponse, type TestContext } from '../helpers/test-app.ts';
import { expectGuideConformant } from '../helpers/x12.ts';

// Clock: 2026-03-02. Each world is a provider of its own (plan year 2026) whose `ediGroup` holds the vision
// plan; open enrollment coverage starts 2026-04-01. Files are delivered by download (no SFTP server here).
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const MEMBER_SSN = '521443817';
const SFTP_PASSWORD = 'tr0ub4dor&3-carrier-sftp';
const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAnotarealkey\n-----END OPENSSH PRIVATE KEY-----\n';
const PASSPHRASE = 'passphrase-of-the-private-key';
const FINGERPRINT = `SHA256:${'A'.repeat(42)}8`;

/** Our ISA05/06 and the carrier's (ISA07/08 in the 834; sender of its acknowledgements). */
const US = { qualifier: 'ZZ', id: 'BENEFITSCO' };
const CARRIER = { qualifier: 'ZZ', id: 'WORLDHEALTH' };

function profileBody(overrides: Record<string, unknown> = {}) {
  return {
    interchange_sender: US,
    interchange_receiver: CARRIER,
    application_sender_code: 'BENEFITSCO',
    application_receiver_code: 'WORLDHEALTH',
    sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
    payer: { name: 'World Health Co', id: '987654321' },
    delivery: { method: 'download' },
    ...overrides,
  };
}

const sftp = (secrets: Record<string, string> = {}) => ({
  method: 'sftp',
  host: 'sftp.worldhealth.example',
  username: 'benefitsco',
  host_key_fingerprint: FINGERPRINT,
  inbound_directory: '/inbound/834',
  ...secrets,
});

const putProfile = (client: ApiClient, group: string, body: unknown) => client.request('PUT', `/groups/${group}/edi_profile`, { body });

/** A client with a new key of the world's provider (made by its admin). */
async function keyOf(w: EnrollmentWorld, body: Record<string, unknown>): Promise<ApiClient> {
  const created = await ok(w.admin.post('/api_keys', body), 201);
  return new ApiClient(t.baseUrl, created.key);
}

/** A world whose member has an SSN (REF*0F) and whose edi group has a download profile. */
async function ediWorld(): Promise<EnrollmentWorld> {
  const w = await createEnrollmentWorld(t);
  await ok(w.admin.patch(`/members/${w.member.id}`, { ssn: MEMBER_SSN }));
  await ok(putProfile(w.admin, w.groups.ediGroup.id, profileBody()));
  return w;
}

/** The member's open enrollment in vision (from 2026-04-01), covering the given dependents, approved: one edi benefit change. */
function visionEnrollment(w: EnrollmentWorld, dependents: string[] = [], member = w.member.id) {
  return approvedEnrollment(w, { member, enrolled_plans: [{ plan: w.plans.vision.id, enrolled_dependents: dependents.map((dependent) => ({ dependent })) }] });
}

/** Builds a file; one that was built is parsed with x12-parser and checked against the guide (test/helpers/x12.ts). */
async function buildFile(w: EnrollmentWorld, body: Record<string, unknown> = {}) {
  const response = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change', ...body });
  if (response.status === 201) {
    const content = await w.admin.get(`/edi_files/${response.body.id}/content`);
    await expectGuideConformant(response.body, content.text);
  }
  return response;
}

async function changeFile(w: EnrollmentWorld) {
  return ok(buildFile(w), 201);
}

async function deliveredFile(w: EnrollmentWorld) {
  const file = await changeFile(w);
  return ok(w.admin.post(`/edi_files/${file.id}/deliver`));
}

const acknowledge = (w: EnrollmentWorld, file: { id: string }, content: unknown) => w.admin.post(`/edi_files/${file.id}/acknowledgements`, { content });
const changesOf = (w: EnrollmentWorld, enrollment: string) => ok(w.admin.get(`/enrollments/${enrollment}/benefit_changes`));
const enrollmentStatus = async (w: EnrollmentWorld, enrollment: string) => (await ok(w.admin.get(`/enrollments/${enrollment}`))).status;
/** The vision plans the world's member is covered by on `date` (GET /members/{id}/coverage). */
const visionCoverageOn = async (w: EnrollmentWorld, date: string, member = w.member.id) =>
  ((await ok(w.admin.get(`/members/${member}/coverage?date=${date}`))).coverage as { line_of_coverage: string; plan: string }[])
    .filter((item) => item.line_of_coverage === 'vision')
    .map((item) => item.plan);
/** The event types of a record, oldest first. */
const eventTypes = async (w: EnrollmentWorld, objectId: string) =>
  ((await ok(w.admin.get(`/events?object_id=${objectId}`))).results as { event_type: string }[]).map((event) => event.event_type).reverse();
/** Whether the carrier ledger counts what a benefit change tells as told to the carrier, or refused by it. */
async function ledgerOf(benefitChangeId: string): Promise<{ told: boolean; refused: boolean }> {
  const row = await t.database.db
    .selectFrom('carrier_ledger')
    .select(['told_at', 'refused_at'])
    .where('benefit_change_id', '=', benefitChangeId)
    .executeTakeFirstOrThrow();
  return { told: row.told_at !== null, refused: row.refused_at !== null };
}

// ---------------------------------------------------------------------------------------------------------
// Acknowledgements written by hand, as a carrier sends them back.

/** The carrier's ISA (it is the sender now), 106 characters with its terminator. */
function isa(controlNumber: number): string {
  const padded = (id: string) => id.padEnd(15, ' ');
  const text = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    CARRIER.qualifier,
    padded(CARRIER.id),
    US.qualifier,
    padded(US.id),
    '260302',
    '1500',
    '^',
    '00501',
    String(controlNumber).padStart(9, '0'),
    '0',
    'T',
    ':',
  ].join('*');
  return `${text}~`;
}

interface Ack999 {
  /** AK102: the GS06 acknowledged. */
  groupControlNumber: number;
  /** IK501. */
  set: 'A' | 'E' | 'R';
  /** AK901. */
  group: 'A' | 'E' | 'P' | 'R';
  /** IK3/IK4 segments (without terminators), and IK502 codes. */
  errors?: string[];
  setErrors?: string[];
}

/** A 999 of one transaction set (AK2*834*0001) of the group acknowledged. */
function ack999({ groupControlNumber, set, group, errors = [], setErrors = [] }: Ack999): string {
  const body = [
    'ST*999*0001*005010X231A1',
    `AK1*BE*${groupControlNumber}*005010X220A1`,
    'AK2*834*0001*005010X220A1',
    ...errors,
    ['IK5', set, ...setErrors].join('*'),
    `AK9*${group}*1*1*${set === 'R' ? 0 : 1}`,
  ];
  return [
    isa(701),
    'GS*FA*WORLDHEALTH*BENEFITSCO*20260302*1500*701*X*005010X231A1~',
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    'GE*1*701~',
    'IEA*1*000000701~',
  ].join('\n');
}

/** A TA1 for the interchange: TA104 A or R, TA105 the note code. */
function ta1(interchangeControlNumber: number, result: 'A' | 'R', note: string): string {
  return [isa(702), `TA1*${String(interchangeControlNumber).padStart(9, '0')}*260302*1500*${result}*${note}~`, 'IEA*0*000000702~'].join('\n');
}

const accepted = (file: { group_control_number: number }) => ack999({ groupControlNumber: file.group_control_number, set: 'A', group: 'A' });

/** A refusal (4xx), never a server error. */
function expectRefused(label: string, response: ApiResponse) {
  const what = `${label}: ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, what).toBeGreaterThanOrEqual(400);
  expect(response.status, what).toBeLessThan(500);
}

// ---------------------------------------------------------------------------------------------------------

describe('EDI profiles', () => {
  it('when an admin puts a profile twice, then the first creates and the second replaces it (200 both), and GET returns the replacement', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.ediGroup.id;
    const created = await ok(putProfile(w.admin, group, profileBody()));
    expect(created).toEqual({
      group,
      employer: w.employer.id,
      interchange_sender: US,
      interchange_receiver: CARRIER,
      application_sender_code: 'BENEFITSCO',
      application_receiver_code: 'WORLDHEALTH',
      usage_indicator: 'T',
      sponsor: { name: 'World Widgets Inc', tax_id: '123456789' },
      payer: { name: 'World Health Co', id: '987654321', id_qualifier: 'FI' },
      master_policy_number: 'G-edi',
      companion_guide: { line_of_coverage_codes: {}, coverage_level_codes: {}, subscriber_id_source: 'ssn', send_member_ssn: true, send_dependent_ssn: false },
      schedule: null,
      delivery: { method: 'download' },
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });

    t.clock.advance(60_000);
    const replaced = await ok(
      putProfile(
        w.admin,
        group,
        profileBody({
          usage_indicator: 'P',
          master_policy_number: 'POL-77',
          companion_guide: { coverage_level_codes: { member_child: 'E1D' }, subscriber_id_source: 'member_id' },
          schedule: { time: '02:30', time_zone: 'America/Chicago' },
        }),
      ),
    );
    expect(replaced).toMatchObject({
      usage_indicator: 'P',
      master_policy_number: 'POL-77',
      companion_guide: {
        line_of_coverage_codes: {},
        coverage_level_codes: { member_child: 'E1D' },
        subscriber_id_source: 'member_id',
        send_member_ssn: true,
        send_dependent_ssn: false,
      },
      schedule: { time: '02:30', time_zone: 'America/Chicago' },
      created_at: created.created_at,
      updated_at: t.clock.now().toISOString(),
    });
    expect(await ok(w.admin.get(`/groups/${group}/edi_profile`))).toEqual(replaced);

    const events = (await ok(w.admin.get('/events?type=edi_profile.*'))).results;
    expect(events.map((event: { event_type: string }) => event.event_type)).toEqual(['edi_profile.updated', 'edi_profile.created']);
    expect(events[0].data).toEqual({ employer: w.employer.id, group, delivery_method: 'download' });
  });

  it('when an sftp profile is put with a password, then no response, column, log line, event or webhook holds the password; a PUT without a secret keeps it; a private key replaces it', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.ediGroup.id;
    const endpoint = await ok(w.admin.post('/webhook_endpoints', { url: 'https://hooks.integrator.example/edi', enabled_events: ['edi_profile.*'] }), 201);
    const storedSftp = async () =>
      (await t.database.db.selectFrom('edi_profiles').select('sftp').where('group_id', '=', group).executeTakeFirstOrThrow()).sftp ?? '';

    const created = await putProfile(w.admin, group, profileBody({ delivery: sftp({ password: SFTP_PASSWORD }) }));
    expect(created.status, created.text).toBe(200);
    const expectedDelivery = {
      method: 'sftp',
      host: 'sftp.worldhealth.example',
      port: 22,
      username: 'benefitsco',
      host_key_fingerprint: FINGERPRINT,
      inbound_directory: '/inbound/834',
      outbound_directory: null,
      archive_directory: null,
      auth: 'password',
    };
    expect(created.body.delivery).toEqual(expectedDelivery);
    const read = await w.admin.get(`/groups/${group}/edi_profile`);
    expect(read.body.delivery).toEqual(expectedDelivery);
    for (const response of [created, read]) {
      expect(response.text).not.toContain(SFTP_PASSWORD);
      expect(response.text).not.toMatch(/"(password|private_key|passphrase|secret_encrypted|passphrase_encrypted)":/);
    }
    const column = await storedSftp();
    expect(column).not.toContain(SFTP_PASSWORD);
    const { secret_encrypted: firstSecret } = JSON.parse(column) as { secret_encrypted: string };

    // A new schedule without the password again: the stored secret stays as it was.
    t.clock.advance(1000);
    const kept = await ok(putProfile(w.admin, group, profileBody({ delivery: sftp(), schedule: { time: '03:00', time_zone: 'UTC' } })));
    expect(kept.delivery).toEqual(expectedDelivery);
    expect((JSON.parse(await storedSftp()) as { secret_encrypted: string }).secret_encrypted).toBe(firstSecret);

    const withKey = await ok(putProfile(w.admin, group, profileBody({ delivery: sftp({ private_key: PRIVATE_KEY, passphrase: PASSPHRASE }) })));
    expect(withKey.delivery).toEqual({ ...expectedDelivery, auth: 'private_key' });
    const readWithKey = await w.admin.get(`/groups/${group}/edi_profile`);
    expect(readWithKey.body.delivery.auth).toBe('private_key');
    for (const secret of ['notarealkey', PASSPHRASE]) expect(readWithKey.text).not.toContain(secret);
    const keyColumn = await storedSftp();
    for (const secret of [SFTP_PASSWORD, PRIVATE_KEY.trim(), 'notarealkey', PASSPHRASE]) expect(keyColumn).not.toContain(secret);

    const events = await w.admin.get('/events?type=edi_profile.*&page_size=100');
    expect(events.body.results).toHaveLength(3);
    for (const event of events.body.results) expect(event.data).toEqual({ employer: w.employer.id, group, delivery_method: 'sftp' });
    const payloads = await t.database.db.selectFrom('webhook_deliveries').select('payload').where('endpoint_id', '=', endpoint.id).execute();
    expect(payloads).toHaveLength(3);
    const everything = [events.text, ...payloads.map((row) => row.payload), t.logs.join('\n')].join('\n');
    for (const secret of [SFTP_PASSWORD, 'notarealkey', PASSPHRASE]) expect(everything).not.toContain(secret);
  });

  it('when a first sftp profile has no secret, or both a password and a private key, or a passphrase alone, then it is 400 and nothing is stored', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.ediGroup.id;
    const cases: [label: string, delivery: unknown, fieldPath: string[]][] = [
      ['no secret', sftp(), ['delivery']],
      ['password and private key', sftp({ password: SFTP_PASSWORD, private_key: PRIVATE_KEY }), ['delivery']],
      ['passphrase without a key', sftp({ password: SFTP_PASSWORD, passphrase: PASSPHRASE }), ['delivery', 'passphrase']],
    ];
    for (const [label, delivery, fieldPath] of cases) {
      const response = await putProfile(w.admin, group, profileBody({ delivery }));
      expect(response.status, label).toBe(400);
      expect(
        response.body.input_errors.map((error: { field_path: string[] }) => error.field_path),
        label,
      ).toEqual([fieldPath]);
    }
    expect((await w.admin.get(`/groups/${group}/edi_profile`)).status).toBe(404);

    // A download profile first, then sftp without a secret: there is still none to keep.
    await ok(putProfile(w.admin, group, profileBody()));
    expect((await putProfile(w.admin, group, profileBody({ delivery: sftp() }))).status).toBe(400);
    expect((await ok(w.admin.get(`/groups/${group}/edi_profile`))).delivery).toEqual({ method: 'download' });
  });

  it.each([
    ['a FEIN that is not 9 digits', { sponsor: { name: 'World Widgets Inc', tax_id: '12-3456789' } }, ['sponsor', 'tax_id']],
    ['an unknown interchange id qualifier', { interchange_sender: { qualifier: 'QQ', id: 'BENEFITSCO' } }, ['interchange_sender', 'qualifier']],
    ['an interchange id longer than 15', { interchange_receiver: { qualifier: 'ZZ', id: 'X'.repeat(16) } }, ['interchange_receiver', 'id']],
    ['an X12 delimiter in a name', { payer: { name: 'World*Health', id: '987654321' } }, ['payer', 'name']],
    ['an unknown field', { colour: 'blue' }, ['colour']],
    ['an unknown time zone', { schedule: { time: '02:00', time_zone: 'Mars/Olympus_Mons' } }, ['schedule', 'time_zone']],
    [
      'an archive_directory that is the outbound folder',
      { delivery: sftp({ password: SFTP_PASSWORD, outbound_directory: '/outbound/999', archive_directory: '/outbound/999/' }) },
      ['delivery', 'archive_directory'],
    ],
    [
      'an archive_directory without an outbound folder',
      { delivery: sftp({ password: SFTP_PASSWORD, archive_directory: '/archive' }) },
      ['delivery', 'archive_directory'],
    ],
    ['a time past 23:59', { schedule: { time: '24:00', time_zone: 'UTC' } }, ['schedule', 'time']],
    [
      'a host key fingerprint that is not SHA256',
      { delivery: sftp({ password: SFTP_PASSWORD, host_key_fingerprint: 'MD5:16:27:ac:a5:76:28:2d:36' }) },
      ['delivery', 'host_key_fingerprint'],
    ],
  ])('when the profile has %s, then it is 400 naming the field', async (_label, overrides, fieldPath) => {
    const w = await createEnrollmentWorld(t);
    const response = await putProfile(w.admin, w.groups.ediGroup.id, profileBody(overrides));
    expect(response.status, response.text).toBe(400);
    expect(response.body.input_errors.map((error: { field_path: string[] }) => error.field_path)).toContainEqual(fieldPath);
    expect((await w.admin.get(`/groups/${w.groups.ediGroup.id}/edi_profile`)).status).toBe(404);
  });

  // docs/decisions.md "Outbound connections": the service as deployed (no development switch, SFTP ports 22 and 2222).
  describe('an sftp delivery pointing inside the network', () => {
    let w: EnrollmentWorld;
    beforeAll(async () => {
      w = await createEnrollmentWorld(t);
    });
    const profileRows = () => t.database.db.selectFrom('edi_profiles').select('group_id').where('group_id', '=', w.groups.ediGroup.id).execute();
    const profileEvents = async () => (await ok(w.admin.get('/events?type=edi_profile.created'))).results.length;

    it.each([
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['[::ffff:127.0.0.1]', 'loopback'],
      ['127.1', 'loopback'],
      ['2130706433', 'loopback'],
      ['localhost', 'loopback'],
      ['sftp.localhost', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['[fe80::1]', 'link-local'],
      ['10.0.0.1', 'private'],
      ['172.16.0.0', 'private'],
      ['192.168.1.10', 'private'],
      ['[fd00::1]', 'private'],
      ['100.64.0.0', 'carrier-grade NAT'],
      ['0.0.0.0', 'unspecified'],
      ['[::]', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['192.0.2.10', 'documentation'],
      ['[64:ff9b::a9fe:a9fe]', 'link-local'],
      ['[2002:a9fe:a9fe::]', 'link-local'],
      ['metadata.google.internal', 'private'],
      ['metadata', 'private'],
      ['carrier.local', 'link-local'],
    ])('when the host is %s, then it is 400 at delivery.host (%s) and no profile row or event is written', async (host, kind) => {
      const eventsBefore = await profileEvents();

      const response = await putProfile(w.admin, w.groups.ediGroup.id, profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), host } }));

      expect(response.status, response.text).toBe(400);
      expect(response.body.input_errors).toEqual([
        {
          field: 'host',
          field_path: ['delivery', 'host'],
          message: `Must not be a ${kind} address or name: the service connects to public internet addresses only.`,
        },
      ]);
      expect(await profileRows()).toEqual([]);
      expect(await profileEvents()).toBe(eventsBefore);
    });

    it.each([6379, 21, 23, 80, 443, 2221, 2223, 5432])(
      'when the port is %s, then it is 400 at delivery.port naming the allowed ports, and nothing is written',
      async (port) => {
        const response = await putProfile(w.admin, w.groups.ediGroup.id, profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), port } }));

        expect(response.status, response.text).toBe(400);
        expect(response.body.input_errors).toEqual([
          { field: 'port', field_path: ['delivery', 'port'], message: 'Must be 22 or 2222: the SFTP ports this service connects to.' },
        ]);
        expect(await profileRows()).toEqual([]);
      },
    );

    it('when both host and port are refused, then one 400 names both; a stored profile stays as it was', async () => {
      await ok(putProfile(w.admin, w.groups.ediGroup.id, profileBody()));

      const response = await putProfile(
        w.admin,
        w.groups.ediGroup.id,
        profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), host: '169.254.169.254', port: 6379 } }),
      );

      expect(response.status).toBe(400);
      expect(response.body.input_errors.map((error: { field_path: string[] }) => error.field_path.join('.'))).toEqual(['delivery.host', 'delivery.port']);
      expect((await ok(w.admin.get(`/groups/${w.groups.ediGroup.id}/edi_profile`))).delivery).toEqual({ method: 'download' });
      await ok(w.admin.delete(`/groups/${w.groups.ediGroup.id}/edi_profile`));
    });

    it.each([
      ['a public name on port 22', 'sftp.worldhealth.example', undefined],
      ['a public name on port 2222', 'sftp.worldhealth.example', 2222],
      ['a public IPv4 literal', '93.184.216.34', 22],
      ['a public IPv6 literal', '[2606:4700:4700::1111]', 22],
    ])('when the delivery names %s, then it is stored (names are checked again when connecting)', async (_label, host, port) => {
      const delivery = { ...sftp({ password: SFTP_PASSWORD }), host, ...(port === undefined ? {} : { port }) };

      const stored = await ok(putProfile(w.admin, w.groups.ediGroup.id, profileBody({ delivery })));

      expect(stored.delivery).toMatchObject({ host, port: port ?? 22 });
      await ok(w.admin.delete(`/groups/${w.groups.ediGroup.id}/edi_profile`));
    });
  });

  // Type.Partial drops the inner object's additionalProperties: false; the schema gives it again.
  it.each([
    ['line_of_coverage_codes', { line_of_coverage_codes: { pets: 'PET' } }],
    ['coverage_level_codes', { coverage_level_codes: { member_and_goldfish: 'EGF' } }],
  ])('when companion_guide.%s names something that is not one, then it is 400 naming it', async (name, companion_guide) => {
    const w = await createEnrollmentWorld(t);
    const response = await putProfile(w.admin, w.groups.ediGroup.id, profileBody({ companion_guide }));
    expect(response.status, response.text).toBe(400);
    expect(response.body.input_errors.map((error: { field_path: string[] }) => error.field_path[1])).toEqual([name]);
  });

  it('when the profile is deleted, then GET is 404, a second DELETE is 404, and its files stay', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await changeFile(w);
    const deleted = await ok(w.admin.delete(`/groups/${w.groups.ediGroup.id}/edi_profile`));
    expect(deleted).toEqual({ id: w.groups.ediGroup.id, object: 'edi_profile', deleted: true });
    expect((await w.admin.get(`/groups/${w.groups.ediGroup.id}/edi_profile`)).status).toBe(404);
    expect((await w.admin.delete(`/groups/${w.groups.ediGroup.id}/edi_profile`)).status).toBe(404);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).id).toBe(file.id);
    // Without a profile nothing more is built.
    expect((await buildFile(w)).status).toBe(409);
  });
});

describe('who may use the EDI routes', () => {
  it('when a non-admin key calls an EDI admin route, then it is 403 (and reading file records is allowed); another provider gets 404', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await changeFile(w);
    const group = w.groups.ediGroup.id;
    const readOnly = await keyOf(w, { role: 'read_only' });
    const employerKey = await keyOf(w, { role: 'employer', employer: w.employer.id });
    const readOnlyOfEmployer = await keyOf(w, { role: 'read_only', employer: w.employer.id });
    const calls: [method: string, path: string, body?: unknown][] = [
      ['GET', `/groups/${group}/edi_profile`],
      ['PUT', `/groups/${group}/edi_profile`, profileBody()],
      ['DELETE', `/groups/${group}/edi_profile`],
      ['POST', '/edi_files', { group, kind: 'change' }],
      ['GET', `/edi_files/${file.id}/content`],
      ['POST', `/edi_files/${file.id}/confirm`],
      ['POST', `/edi_files/${file.id}/cancel`],
      ['POST', `/edi_files/${file.id}/deliver`],
      ['POST', `/edi_files/${file.id}/retry`],
      ['POST', `/edi_files/${file.id}/resend`],
      ['POST', `/edi_files/${file.id}/acknowledgements`, { content: accepted(file) }],
    ];
    for (const client of [readOnly, employerKey, readOnlyOfEmployer]) {
      for (const [method, path, body] of calls) {
        const response = await client.request(method, path, body === undefined ? {} : { body });
        expect(response.status, `${method} ${path}: ${response.text}`).toBe(403);
      }
      expect((await ok(client.get(`/edi_files/${file.id}`))).id).toBe(file.id);
      expect((await ok(client.get('/edi_files'))).results.map((record: { id: string }) => record.id)).toEqual([file.id]);
    }

    // A key of another employer of the same provider sees none of this group's files.
    const otherEmployer = await createEmployer(w.admin, { legal_name: 'Other Widgets Inc' });
    const otherEmployerKey = await keyOf(w, { role: 'read_only', employer: otherEmployer.id });
    expect((await otherEmployerKey.get(`/edi_files/${file.id}`)).status).toBe(404);
    expect((await ok(otherEmployerKey.get('/edi_files'))).results).toEqual([]);

    const otherAdmin = await newProviderAdmin(t, 'edi-other');
    for (const [method, path, body] of calls.filter(([, path]) => path !== '/edi_files')) {
      const response = await otherAdmin.request(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(404);
    }
    expect((await otherAdmin.get(`/edi_files/${file.id}`)).status).toBe(404);
    expect((await ok(otherAdmin.get('/edi_files'))).results).toEqual([]);
    const built = await otherAdmin.post('/edi_files', { group, kind: 'change' });
    // The group is a field of the body: 400 naming it, as for every create that refers to another's record.
    expect(built.status, built.text).toBe(400);
    expect(errorFields(built)).toEqual(['group']);

    // Nothing of it happened: the file is as it was, the profile still there.
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
    expect((await ok(w.admin.get(`/groups/${group}/edi_profile`))).group).toBe(group);
  });
});

describe('building files', () => {
  it('when the group is not an edi group, or has no profile, then building is 409; action on a change file is refused', async () => {
    const w = await createEnrollmentWorld(t);
    for (const group of [w.groups.apiGroup.id, w.groups.manualGroup.id]) {
      const response = await w.admin.post('/edi_files', { group, kind: 'change' });
      expect(response.status, response.text).toBe(409);
      expect(response.body.message).toMatch(/connection_method/);
    }
    // A profile on a group that is not edi does not make it one.
    await ok(putProfile(w.admin, w.groups.apiGroup.id, profileBody()));
    expect((await w.admin.post('/edi_files', { group: w.groups.apiGroup.id, kind: 'full' })).status).toBe(409);

    const noProfile = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'full', as_of: '2026-04-15' });
    expect(noProfile.status, noProfile.text).toBe(409);
    expect(noProfile.body.message).toMatch(/no EDI profile/);

    await ok(putProfile(w.admin, w.groups.ediGroup.id, profileBody()));
    const withAction = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'change', action: 'replace' });
    expect([400, 409]).toContain(withAction.status);
    const unknownAction = await w.admin.post('/edi_files', { group: w.groups.ediGroup.id, kind: 'full', action: 'change' });
    expect(unknownAction.status).toBe(400);
    // Nothing waits for a file yet.
    expect((await buildFile(w)).status).toBe(409);
    expect((await ok(w.admin.get('/edi_files'))).results).toEqual([]);
  });

  it('when files are listed with ?group=, ?kind= and ?status=, then only those match; an unknown query parameter is 400', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    t.clock.advance(1000);
    const change = await changeFile(w);
    t.clock.advance(1000);
    const full = await ok(buildFile(w, { kind: 'full', as_of: '2026-04-15' }), 201);
    const ids = async (query: string) => (await ok(w.admin.get(`/edi_files${query}`))).results.map((file: { id: string }) => file.id);

    expect(await ids('')).toEqual([full.id, change.id]);
    expect(await ids(`?group=${w.groups.ediGroup.id}`)).toEqual([full.id, change.id]);
    expect(await ids(`?group=${w.groups.apiGroup.id}`)).toEqual([]);
    expect(await ids('?kind=full')).toEqual([full.id]);
    expect(await ids('?kind=change')).toEqual([change.id]);
    expect(await ids('?status=awaiting_confirmation')).toEqual([full.id]);
    expect(await ids('?status=ready')).toEqual([change.id]);
    expect(await ids(`?group=${w.groups.ediGroup.id}&kind=change&status=ready`)).toEqual([change.id]);
    expect(await ids('?kind=full&status=ready')).toEqual([]);

    for (const query of ['?colour=blue', '?kind=partial', '?status=lost', '?group=not an id']) {
      const response = await w.admin.get(`/edi_files${query}`);
      expect(response.status, `${query}: ${response.text}`).toBe(400);
    }
  });

  it('when the content is downloaded, then it is X12 as an attachment to admins only, encrypted at rest, and never in events, webhooks or logs', async () => {
    const w = await ediWorld();
    const endpoint = await ok(w.admin.post('/webhook_endpoints', { url: 'https://hooks.integrator.example/edi-files', enabled_events: ['edi_file.*'] }), 201);
    await visionEnrollment(w, [w.family.child.id]);
    const file = await changeFile(w);
    expect(file).toMatchObject({ kind: 'change', action: 'change', status: 'ready', delivery_method: 'download', member_count: 1, left_out: [] });

    const content = await w.admin.get(`/edi_files/${file.id}/content`);
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toMatch(/^application\/edi-x12/);
    expect(content.headers.get('content-disposition')).toBe(`attachment; filename="${file.file_name}"`);
    expect(content.text.startsWith('ISA*')).toBe(true);
    expect(content.text).toContain(`GS*BE*BENEFITSCO*WORLDHEALTH*`);
    expect(content.text).toContain(MEMBER_SSN);
    expect(Buffer.byteLength(content.text)).toBe(file.byte_count);
    expect((await (await keyOf(w, { role: 'read_only' })).get(`/edi_files/${file.id}/content`)).status).toBe(403);

    const chunks = await t.database.db.selectFrom('edi_file_chunks').select('content').where('edi_file_id', '=', file.id).execute();
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(chunk.content).not.toContain('ISA*');
      expect(chunk.content).not.toContain(MEMBER_SSN);
    }

    await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    const events = await ok(w.admin.get('/events?type=edi_file.*&page_size=100'));
    // Both at one instant of the test clock: their order is not the point.
    expect(events.results.map((event: { event_type: string }) => event.event_type).sort()).toEqual(['edi_file.created', 'edi_file.delivered']);
    for (const event of events.results) {
      expect(event.data).toEqual({ employer: w.employer.id, group: w.groups.ediGroup.id, kind: 'change', status: expect.any(String) });
    }
    const payloads = await t.database.db.selectFrom('webhook_deliveries').select('payload').where('endpoint_id', '=', endpoint.id).execute();
    expect(payloads).toHaveLength(2);
    const everything = [JSON.stringify(events), ...payloads.map((row) => row.payload), t.logs.join('\n')].join('\n');
    expect(everything).not.toContain('ISA*');
    expect(everything).not.toContain(MEMBER_SSN);
  });
});

describe('full files', () => {
  it('when a full file is built, accepted, and then coverage ends, then the next full file lists who is missing and waits for confirmation; cancel only while it waits', async () => {
    const w = await ediWorld();
    const { spouse, child } = w.family;
    // The carrier holds vision for the member, spouse and child since 2026-01-01.
    await ok(
      w.admin.post('/enrollments', {
        member: w.member.id,
        category: 'carrier_sync',
        effective_start: '2026-01-01',
        enrolled_plans: [{ plan: w.plans.vision.id, enrolled_dependents: [{ dependent: spouse.id }, { dependent: child.id }] }],
      }),
      201,
    );

    const first = await ok(buildFile(w, { kind: 'full', as_of: '2026-03-02' }), 201);
    expect(first).toMatchObject({
      kind: 'full',
      action: 'replace',
      status: 'awaiting_confirmation',
      as_of: '2026-03-02',
      member_count: 1,
      missing: [],
      benefit_changes: [],
    });
    expect((await w.admin.post(`/edi_files/${first.id}/deliver`)).status).toBe(409);
    const confirmed = await ok(w.admin.post(`/edi_files/${first.id}/confirm`));
    expect(confirmed).toMatchObject({ status: 'ready', confirmed_at: t.clock.now().toISOString() });
    expect((await w.admin.post(`/edi_files/${first.id}/confirm`)).status).toBe(409);
    expect((await w.admin.post(`/edi_files/${first.id}/cancel`)).status).toBe(409);
    expect(await ok(w.admin.post(`/edi_files/${first.id}/deliver`))).toMatchObject({ status: 'delivered', delivery_attempts: 1 });
    expect(await ok(acknowledge(w, first, accepted(first)))).toMatchObject({ status: 'accepted' });

    // A divorce drops the spouse from vision from 2026-03-01.
    await approvedEnrollment(w, {
      category: 'qle',
      reason: 'divorce',
      change_date: '2026-02-27',
      effective_start: '2026-03-01',
      enrolled_plans: [{ plan: w.plans.vision.id, enrolled_dependents: [{ dependent: child.id }] }],
    });
    t.clock.advance(1000);
    const second = await ok(buildFile(w, { kind: 'full', as_of: '2026-03-02' }), 201);
    expect(second).toMatchObject({
      status: 'awaiting_confirmation',
      missing: [{ member: w.member.id, person: spouse.id, line_of_coverage: 'vision' }],
    });
    expect(second.interchange_control_number).toBe(first.interchange_control_number + 1);
    expect(await ok(w.admin.post(`/edi_files/${second.id}/cancel`))).toMatchObject({ status: 'cancelled' });
    expect((await w.admin.post(`/edi_files/${second.id}/cancel`)).status).toBe(409);
    expect((await w.admin.post(`/edi_files/${second.id}/confirm`)).status).toBe(409);
    expect((await w.admin.post(`/edi_files/${second.id}/deliver`)).status).toBe(409);

    // A verify file (BGN08 4) asks the carrier to compare and ends nobody's coverage: nobody is missing, and it too waits.
    t.clock.advance(1000);
    const third = await ok(buildFile(w, { kind: 'full', as_of: '2026-03-02', action: 'verify' }), 201);
    expect(third).toMatchObject({ action: 'verify', status: 'awaiting_confirmation', missing: [] });
    expect(await ok(w.admin.post(`/edi_files/${third.id}/confirm`))).toMatchObject({ status: 'ready' });
    expect((await w.admin.post(`/edi_files/${third.id}/cancel`)).status).toBe(409);
  });
});

describe('acknowledgements', () => {
  it('when a 999 accepts the file, then it is accepted, its benefit changes completed with a memo, and the enrollment synced; a second acknowledgement is 409', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w, [w.family.spouse.id]);
    const [change] = await changesOf(w, enrollment.id);
    expect(change).toMatchObject({ delivery_state: 'awaiting_file' });
    const file = await changeFile(w);
    expect(file.benefit_changes).toEqual([change.id]);

    // Not delivered yet: the carrier cannot have acknowledged it.
    const early = await acknowledge(w, file, accepted(file));
    expect(early.status, early.text).toBe(409);
    const delivered = await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
    expect(delivered).toMatchObject({ status: 'delivered', delivered_at: t.clock.now().toISOString() });
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent' });

    t.clock.advance(60_000);
    const acknowledged = await ok(acknowledge(w, file, accepted(file)));
    expect(acknowledged).toMatchObject({
      status: 'accepted',
      acknowledged_at: t.clock.now().toISOString(),
      acknowledgement: { kind: '999', result: 'accepted', codes: ['AK9:A', 'IK5:A'], received_at: t.clock.now().toISOString() },
    });
    const [completed] = await changesOf(w, enrollment.id);
    expect(completed).toMatchObject({ delivery_state: 'completed', completed_at: t.clock.now().toISOString() });
    expect(completed.memo).toContain(file.id);
    expect(completed.memo).toContain('999');
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');

    const again = await acknowledge(w, file, accepted(file));
    expect(again.status, again.text).toBe(409);
    const rejectedLater = await acknowledge(w, file, ack999({ groupControlNumber: file.group_control_number, set: 'R', group: 'R' }));
    expect(rejectedLater.status).toBe(409);
    expect((await changesOf(w, enrollment.id))[0]).toEqual(completed);
  });

  it.each([
    [
      '| elements, > components, CRLF between segments and a byte order mark',
      (text: string) => `\uFEFF${text.replaceAll('*', '|').replace('|:~', '|>~').replaceAll('\n', '\r\n')}`,
    ],
    ['a line break for the segment terminator', (text: string) => `${text.replaceAll('~\n', '\n').replace(/~$/, '\n')}`],
  ])('when the 999 comes with %s, then it is read the same', async (_label, variant) => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    expect(await ok(acknowledge(w, file, variant(accepted(file))))).toMatchObject({ status: 'accepted', acknowledgement: { codes: ['AK9:A', 'IK5:A'] } });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
  });

  it('when a 999 accepts with errors, then the file is accepted_with_errors and its changes completed', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const answered = await ok(
      acknowledge(w, file, ack999({ groupControlNumber: file.group_control_number, set: 'E', group: 'E', errors: ['IK3*DMG*9*2100A*8', 'IK4*3*1068*7*X'] })),
    );
    expect(answered).toMatchObject({ status: 'accepted_with_errors', acknowledgement: { result: 'accepted_with_errors' } });
    expect(answered.acknowledgement.codes).toEqual(['AK9:E', 'IK5:E', 'IK3:DMG@9:8', 'IK4:DMG03:7']);
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'completed' });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
  });

  it('when a 999 rejects the file (AK9 R, IK5 R), then the file is rejected with its codes, its changes go back to awaiting_file (returned), the enrollment stays approved with its coverage, and the next change file carries them', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const [sent] = await changesOf(w, enrollment.id);
    expect(await ledgerOf(sent.id)).toMatchObject({ told: true, refused: false });
    t.clock.advance(60_000);
    const answered = await ok(
      acknowledge(
        w,
        file,
        ack999({
          groupControlNumber: file.group_control_number,
          set: 'R',
          group: 'R',
          errors: ['IK3*NM1*5*2100A*8', 'IK4*9*67*6*12345'],
          setErrors: ['5'],
        }),
      ),
    );
    expect(answered).toMatchObject({
      status: 'rejected',
      acknowledged_at: t.clock.now().toISOString(),
      acknowledgement: { kind: '999', result: 'rejected', codes: ['AK9:R', 'IK5:R', 'IK5:5', 'IK3:NM1@5:8', 'IK4:NM109:6'] },
      benefit_changes: [sent.id],
    });
    const [change] = await changesOf(w, enrollment.id);
    expect(change).toMatchObject({ delivery_state: 'awaiting_file', completed_at: null });
    for (const code of ['AK9:R', 'IK5:R', 'IK5:5', 'IK3:NM1@5:8', 'IK4:NM109:6', file.id]) expect(change.memo).toContain(code);
    // A syntax acknowledgement is not the carrier refusing anyone: the enrollment and its coverage stand.
    expect(await enrollmentStatus(w, enrollment.id)).toBe('approved');
    expect(await visionCoverageOn(w, '2026-04-15')).toEqual([w.plans.vision.id]);
    expect(await eventTypes(w, sent.id)).toEqual(['benefit_change.created', 'benefit_change.sent', 'benefit_change.returned']);
    expect((await ok(w.admin.get('/events?type=enrollment.failed,benefit_change.rejected'))).results).toEqual([]);
    expect((await ok(w.admin.get('/alerts?kind=benefit_change_refused'))).results).toEqual([]);
    // The carrier was never told: the ledger no longer counts it.
    expect(await ledgerOf(sent.id)).toMatchObject({ told: false, refused: false });
    // The rejected file is not sent again as it is.
    const again = await w.admin.post(`/edi_files/${file.id}/deliver`);
    expect(again.status, again.text).toBe(409);
    expect(again.body.message).toContain('resend');
    const retried = await w.admin.post(`/edi_files/${file.id}/retry`);
    expect(retried.status, retried.text).toBe(409);
    expect(retried.body.message).toContain('resend');

    // The next change file carries the change again, and its acceptance completes it.
    const next = await changeFile(w);
    expect(next).toMatchObject({ benefit_changes: [sent.id], replaces: null });
    expect(next.interchange_control_number).toBe(file.interchange_control_number + 1);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).benefit_changes).toEqual([sent.id]);
    await ok(w.admin.post(`/edi_files/${next.id}/deliver`));
    expect(await ledgerOf(sent.id)).toMatchObject({ told: true });
    await ok(acknowledge(w, next, accepted(next)));
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'completed' });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
    expect((await buildFile(w)).status).toBe(409);
  });

  it('when a 999 partially accepts the group, then the set result decides', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await deliveredFile(w);
    const answered = await ok(acknowledge(w, file, ack999({ groupControlNumber: file.group_control_number, set: 'R', group: 'P' })));
    expect(answered.status).toBe('rejected');
  });

  it('when a TA1 rejects the interchange, then the file is rejected, its changes go back to awaiting_file and the enrollment stays approved', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const answered = await ok(acknowledge(w, file, ta1(file.interchange_control_number, 'R', '022')));
    expect(answered).toMatchObject({ status: 'rejected', acknowledgement: { kind: 'TA1', result: 'rejected', codes: ['TA1:R', 'TA105:022'] } });
    const [change] = await changesOf(w, enrollment.id);
    expect(change).toMatchObject({ delivery_state: 'awaiting_file', completed_at: null });
    expect(change.memo).toContain('TA105:022');
    expect(await enrollmentStatus(w, enrollment.id)).toBe('approved');
    expect(await visionCoverageOn(w, '2026-04-15')).toEqual([w.plans.vision.id]);
    expect((await ok(buildFile(w), 201)).benefit_changes).toEqual([change.id]);
  });

  it('when a TA1 accepts the interchange, then it is recorded and nothing completes until the 999 says so', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const answered = await ok(acknowledge(w, file, ta1(file.interchange_control_number, 'A', '000')));
    expect(answered).toMatchObject({ status: 'delivered', acknowledged_at: null, acknowledgement: { kind: 'TA1', codes: ['TA1:A', 'TA105:000'] } });
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent', completed_at: null });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('approved');

    expect(await ok(acknowledge(w, file, accepted(file)))).toMatchObject({ status: 'accepted', acknowledgement: { kind: '999', result: 'accepted' } });
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'completed' });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
  });

  it('when an acknowledgement names another group or interchange control number, then it is 409 and nothing changes', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    for (const content of [
      ack999({ groupControlNumber: file.group_control_number + 100, set: 'A', group: 'A' }),
      ta1(file.interchange_control_number + 100, 'R', '022'),
    ]) {
      const response = await acknowledge(w, file, content);
      expect(response.status, response.text).toBe(409);
    }
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent' });
  });

  it("when an acknowledgement comes from another carrier's interchange id, then it is 409 and nothing changes (control numbers start at 1 for every partner)", async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const fromElsewhere = accepted(file).replace(
      `*${CARRIER.qualifier}*${CARRIER.id.padEnd(15, ' ')}*`,
      `*${CARRIER.qualifier}*${'OTHERHEALTH'.padEnd(15, ' ')}*`,
    );
    expect(fromElsewhere).not.toBe(accepted(file));
    const response = await acknowledge(w, file, fromElsewhere);
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toContain('OTHERHEALTH');
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent' });
  });

  it('when the acknowledgement text is malformed, then it is 400 naming content (never 500), and the file is unchanged', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await deliveredFile(w);
    const good = accepted(file);
    const malformed: [label: string, content: string][] = [
      ['empty after white space', ' \n '],
      ['not X12', 'Thank you for your file!'],
      ['an ISA alone', 'ISA'],
      ['a truncated ISA', isa(701).slice(0, 60)],
      ['cut in the middle of a segment', good.slice(0, good.length - 5)],
      ['SE01 miscounted', good.replace(/SE\*\d+\*/, 'SE*99*')],
      ['GE02 not GS06', good.replace('GE*1*701', 'GE*1*702')],
      ['IEA02 not ISA13', good.replace('IEA*1*000000701', 'IEA*1*000000799')],
      ['an unknown AK9 code', good.replace('AK9*A', 'AK9*Q')],
      ['a group that is not an acknowledgement group (GS01 HC)', good.replace('GS*FA', 'GS*HC')],
      ['AK102 missing', good.replace(/AK1\*BE\*\d+/, 'AK1*BE*')],
      ['a letter for a delimiter', good.replace(/^ISA\*/, 'ISAA').replaceAll('*', 'A')],
      ['segments after IEA', `${good}\nST*999*0002~`],
      ['a 10-digit TA101', ta1(1, 'A', '000').replace('TA1*000000001', 'TA1*0000000001')],
      ['deeply repeated IK3 without IK5', good.replace('IK5*A~', `${'IK3*INS*3**8~'.repeat(10_000)}`)],
      ['a NUL byte', good.replace('AK1', 'A\u0000K1')],
      ['lone surrogates', `\uD800${good}\uDC00`],
    ];
    for (const [label, content] of malformed) {
      const response = await acknowledge(w, file, content);
      expect(response.status, `${label}: ${response.text}`).toBe(400);
      expect(errorFields(response), label).toEqual(['content']);
    }
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
  });
});

/** A 999 for the file with any element as given: what a carrier (or someone posing as one) may send. */
interface Forged999 {
  sender?: [string, string];
  receiver?: [string, string];
  gs02?: string;
  gs03?: string;
  ak101?: string;
  /** AK102 as written. */
  ak102: string;
  /** AK2 loops: [AK201, AK202, IK501]; none when empty. */
  sets?: [string, string, string][];
  ak901?: string;
}

function forged999({
  sender = [CARRIER.qualifier, CARRIER.id],
  receiver = [US.qualifier, US.id],
  gs02 = 'WORLDHEALTH',
  gs03 = 'BENEFITSCO',
  ak101 = 'BE',
  ak102,
  sets = [['834', '0001', 'A']],
  ak901 = 'A',
}: Forged999): string {
  const interchange = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    sender[0],
    sender[1].padEnd(15, ' '),
    receiver[0],
    receiver[1].padEnd(15, ' '),
    '260302',
    '1500',
    '^',
    '00501',
    '000000703',
    '0',
    'T',
    ':',
  ].join('*');
  const body = [
    'ST*999*0001*005010X231A1',
    `AK1*${ak101}*${ak102}*005010X220A1`,
    ...sets.flatMap(([id, control, result]) => [`AK2*${id}*${control}*005010X220A1`, `IK5*${result}`]),
    `AK9*${ak901}*1*1*${ak901 === 'R' ? 0 : 1}`,
  ];
  return [
    `${interchange}~`,
    `GS*FA*${gs02}*${gs03}*20260302*1500*703*X*005010X231A1~`,
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    'GE*1*703~',
    'IEA*1*000000703~',
  ].join('\n');
}

/** A 999 rejecting the file as a whole (AK9 R, IK5 R). */
const rejected999 = (file: { group_control_number: number }) => ack999({ groupControlNumber: file.group_control_number, set: 'R', group: 'R' });

/** A change file carrying the world member's vision change and one of another member's, delivered, then rejected by a 999. */
async function rejectedFileOfTwo(w: EnrollmentWorld) {
  const first = await visionEnrollment(w);
  const other = await createMember(w.admin, { employer: w.employer.id, first_name: 'Resent', ssn: '521443829' });
  const second = await visionEnrollment(w, [], other.id);
  const file = await deliveredFile(w);
  const changes = [(await changesOf(w, first.id))[0].id as string, (await changesOf(w, second.id))[0].id as string];
  expect([...file.benefit_changes].sort()).toEqual([...changes].sort());
  t.clock.advance(1000);
  await ok(acknowledge(w, file, rejected999(file)));
  return { file, enrollments: [first, second], changes };
}

describe('resending a rejected file (POST /edi_files/{id}/resend)', () => {
  it('when a rejected change file is resent, then a new file (201, new control numbers) replaces it, carrying its changes still waiting and nothing else; it is delivered and accepted like any file', async () => {
    const w = await ediWorld();
    const { file, enrollments, changes } = await rejectedFileOfTwo(w);
    // A third change, approved after the rejection, waits for the next change file, not for the resend.
    const third = await createMember(w.admin, { employer: w.employer.id, first_name: 'Later', ssn: '521443830' });
    const later = await visionEnrollment(w, [], third.id);
    const [laterChange] = await changesOf(w, later.id);
    t.clock.advance(1000);

    const response = await w.admin.post(`/edi_files/${file.id}/resend`);
    expect(response.status, response.text).toBe(201);
    const resent = response.body;
    expect(resent).toMatchObject({
      kind: 'change',
      action: 'change',
      status: 'ready',
      replaces: file.id,
      member_count: 2,
      created_at: t.clock.now().toISOString(),
    });
    expect([...resent.benefit_changes].sort()).toEqual([...changes].sort());
    expect(resent.id).not.toBe(file.id);
    expect(resent.interchange_control_number).toBe(file.interchange_control_number + 1);
    expect(resent.group_control_number).toBe(file.group_control_number + 1);
    const content = await w.admin.get(`/edi_files/${resent.id}/content`);
    await expectGuideConformant(resent, content.text);
    // The rejected file stays as it was: rejected, listing what it carried.
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'rejected', replaces: null, benefit_changes: file.benefit_changes });
    expect((await ok(w.admin.get(`/events?object_id=${resent.id}`))).results.map((event: { event_type: string }) => event.event_type)).toEqual([
      'edi_file.created',
    ]);

    // Everything of the rejected file is carried now: a second resend has nothing to send, and the next change file has the later change only.
    const twice = await w.admin.post(`/edi_files/${file.id}/resend`);
    expect(twice.status, twice.text).toBe(409);
    expect(twice.body).toMatchObject({ type: 'invalid_state' });
    expect(twice.body.message).toContain('Nothing to resend');
    expect((await changeFile(w)).benefit_changes).toEqual([laterChange.id]);

    await ok(w.admin.post(`/edi_files/${resent.id}/deliver`));
    expect(await ok(acknowledge(w, resent, accepted(resent)))).toMatchObject({ status: 'accepted' });
    for (const enrollment of enrollments) {
      expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'completed' });
      expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
    }
  });

  it('when some changes of a rejected file were completed by hand or carried by the next change file since, then the resend carries only those still waiting; with none left it is 409', async () => {
    const w = await ediWorld();
    const { file, changes } = await rejectedFileOfTwo(w);
    t.clock.advance(1000);
    await ok(w.admin.patch(`/benefit_changes/${changes[0]}`, { completed_at: t.clock.now().toISOString() }));
    const resent = await ok(w.admin.post(`/edi_files/${file.id}/resend`), 201);
    expect(resent).toMatchObject({ replaces: file.id, benefit_changes: [changes[1]], member_count: 1 });

    // Another rejected file whose changes the next change file carried: nothing to resend.
    const w2 = await ediWorld();
    const other = await rejectedFileOfTwo(w2);
    expect([...(await changeFile(w2)).benefit_changes].sort()).toEqual([...other.changes].sort());
    const response = await w2.admin.post(`/edi_files/${other.file.id}/resend`);
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toContain('Nothing to resend');
  });

  it('when the file is not a rejected change file, then resend is 409 saying what to do instead; an unknown file is 404', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await changeFile(w);
    for (const status of ['ready', 'delivered', 'accepted']) {
      if (status === 'delivered') await ok(w.admin.post(`/edi_files/${file.id}/deliver`));
      if (status === 'accepted') await ok(acknowledge(w, file, accepted(file)));
      const response = await w.admin.post(`/edi_files/${file.id}/resend`);
      expect(response.status, `${status}: ${response.text}`).toBe(409);
      expect(response.body.message).toContain(`The file is ${status}`);
      expect(response.body.message).toContain('deliver or retry');
    }
    // A rejected full file carries no benefit changes: a new full file is built instead.
    const full = await ok(buildFile(w, { kind: 'full', as_of: '2026-04-15' }), 201);
    await ok(w.admin.post(`/edi_files/${full.id}/confirm`));
    await ok(w.admin.post(`/edi_files/${full.id}/deliver`));
    await ok(acknowledge(w, full, rejected999(full)));
    const fullResend = await w.admin.post(`/edi_files/${full.id}/resend`);
    expect(fullResend.status, fullResend.text).toBe(409);
    expect(fullResend.body.message).toContain('kind full');
    expect((await w.admin.post('/edi_files/edi_file_000000000000000000000000/resend')).status).toBe(404);
    expect((await ok(w.admin.get(`/edi_files?group=${w.groups.ediGroup.id}`))).results).toHaveLength(2);
  });

  it('when a file is resent twice at once, or resent while a change file is built, then each change goes in one file only', async () => {
    const w = await ediWorld();
    const { file, changes } = await rejectedFileOfTwo(w);
    const answers = await Promise.all([w.admin.post(`/edi_files/${file.id}/resend`), w.admin.post(`/edi_files/${file.id}/resend`)]);
    expect(answers.map((answer) => answer.status).sort(), answers.map((answer) => answer.text).join('\n')).toEqual([201, 409]);

    const w2 = await ediWorld();
    const other = await rejectedFileOfTwo(w2);
    const [resend, build] = await Promise.all([w2.admin.post(`/edi_files/${other.file.id}/resend`), buildFile(w2)]);
    const built = [resend, build].filter((answer) => answer.status === 201);
    expect(built, `${resend.status} ${resend.text}\n${build.status} ${build.text}`).toHaveLength(1);
    expect([...built[0]!.body.benefit_changes].sort()).toEqual([...other.changes].sort());
    expect([resend, build].find((answer) => answer.status !== 201)!.status).toBe(409);
    void changes;
  });
});

describe('a 999 rejecting the file of a mid-year plan change (docs/decisions.md "Carrier EDI", Acknowledgements)', () => {
  it('when the change file of a plan change is delivered and a 999 rejects it, then the member keeps the new plan from its start, the enrollment stays approved, the next change file carries the change again and a full file lists the member', async () => {
    const w = await ediWorld();
    const visionPlus = await createPlan(w.admin, { group: w.groups.ediGroup.id, plan_name: 'Vision Plus', line_of_coverage: 'vision' });
    await createPlanConfiguration(w.admin, { plan: visionPlus.id, waiting_period_days: 0 });
    // Vision Care from 2026-04-01, told to the carrier and accepted, in a change file and a full file.
    const openEnrollment = await visionEnrollment(w);
    const first = await deliveredFile(w);
    await ok(acknowledge(w, first, accepted(first)));
    const full = await ok(buildFile(w, { kind: 'full', as_of: '2026-04-15' }), 201);
    await ok(w.admin.post(`/edi_files/${full.id}/confirm`));
    await ok(w.admin.post(`/edi_files/${full.id}/deliver`));
    await ok(acknowledge(w, full, accepted(full)));
    expect(await enrollmentStatus(w, openEnrollment.id)).toBe('synced');

    // A change of employment moves the member to Vision Plus from 2026-06-01.
    const switched = await approvedEnrollment(w, {
      category: 'qle',
      reason: 'employment_change',
      change_date: '2026-02-28',
      effective_start: '2026-06-01',
      enrolled_plans: [{ plan: visionPlus.id }],
    });
    const [change] = await changesOf(w, switched.id);
    expect(change).toMatchObject({ status: 'change', changes: expect.arrayContaining(['plan_change']), coverage_start: '2026-06-01' });
    t.clock.advance(60_000);
    const file = await deliveredFile(w);
    expect(file.benefit_changes).toEqual([change.id]);
    t.clock.advance(60_000);
    await ok(
      acknowledge(w, file, ack999({ groupControlNumber: file.group_control_number, set: 'R', group: 'R', errors: ['IK3*REF*7*2000*8'], setErrors: ['5'] })),
    );

    // Coverage in force is ours, never the acknowledgement's: the old plan to 2026-05-31, the new one from 2026-06-01.
    expect(await enrollmentStatus(w, switched.id)).toBe('approved');
    expect(await visionCoverageOn(w, '2026-05-31')).toEqual([w.plans.vision.id]);
    expect(await visionCoverageOn(w, '2026-06-01')).toEqual([visionPlus.id]);
    expect(await visionCoverageOn(w, '2026-06-11')).toEqual([visionPlus.id]);
    expect((await changesOf(w, switched.id))[0]).toMatchObject({ delivery_state: 'awaiting_file' });

    // The next change file carries the change again (not "nothing to send").
    t.clock.advance(60_000);
    const next = await changeFile(w);
    expect(next.benefit_changes).toEqual([change.id]);
    const nextContent = (await w.admin.get(`/edi_files/${next.id}/content`)).text;
    expect(nextContent).toContain('HD*001**VIS*Vision Plus');

    // A full file lists the member on the new plan, and nobody is missing.
    t.clock.advance(60_000);
    const later = await ok(buildFile(w, { kind: 'full', as_of: '2026-06-15' }), 201);
    expect(later).toMatchObject({ member_count: 1, missing: [], left_out: [] });
    const fullContent = (await w.admin.get(`/edi_files/${later.id}/content`)).text;
    expect(fullContent).toContain('HD*030**VIS*Vision Plus');
  });
});

describe('acknowledgements that are not for the file', () => {
  /** A delivered file with one benefit change sent; afterwards: nothing of it changed. */
  async function deliveredWorld() {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const unchanged = async () => {
      expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
      expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent', completed_at: null });
      expect(await enrollmentStatus(w, enrollment.id)).toBe('approved');
      expect((await ok(w.admin.get('/events?type=edi_file.accepted,edi_file.rejected,edi_file.accepted_with_errors'))).results).toEqual([]);
    };
    return { w, enrollment, file, unchanged };
  }

  it("when a 999 acknowledges an 837 (AK101 HC, AK201 837) to another receiver (ISA08) under the file's group control number, then it is 409 naming those elements and nothing is applied", async () => {
    const { w, file, unchanged } = await deliveredWorld();
    const attack = forged999({ receiver: ['ZZ', 'OTHERSENDER'], ak101: 'HC', ak102: String(file.group_control_number), sets: [['837', '0001', 'A']] });
    const response = await acknowledge(w, file, attack);
    expect(response.status, response.text).toBe(409);
    for (const named of ['ISA08 is OTHERSENDER (expected BENEFITSCO)', 'AK101 is HC (expected BE)', 'AK201 is 837 (expected 834)']) {
      expect(response.body.message).toContain(named);
    }
    await unchanged();
  });

  it('when AK102 is the group control number written with a sign, a point, in hex or with an exponent, then it names no group of ours: 409 and nothing is applied', async () => {
    const { w, file, unchanged } = await deliveredWorld();
    const number = file.group_control_number as number;
    for (const ak102 of [`+${number}`, `${number}.0`, `0x${number.toString(16)}`, `${number}e0`]) {
      const response = await acknowledge(w, file, forged999({ ak102 }));
      expect(response.status, `${ak102}: ${response.text}`).toBe(409);
      expect(response.body.message, ak102).toContain(`names no functional group ${number}`);
    }
    await unchanged();
  });

  it.each<[string, Omit<Forged999, 'ak102'>, string]>([
    ['another sender qualifier (ISA05)', { sender: ['01', CARRIER.id] }, 'ISA05 is 01'],
    ['another receiver qualifier (ISA07)', { receiver: ['01', US.id] }, 'ISA07 is 01'],
    ['another receiver (ISA08)', { receiver: ['ZZ', 'OTHERSENDER'] }, 'ISA08 is OTHERSENDER'],
    ['another application sender (GS02)', { gs02: 'OTHERAPP' }, 'GS02 is OTHERAPP (expected WORLDHEALTH)'],
    ['another application receiver (GS03)', { gs03: 'OTHERAPP' }, 'GS03 is OTHERAPP (expected BENEFITSCO)'],
    ['a functional identifier other than BE (AK101)', { ak101: 'HC' }, 'AK101 is HC'],
    ['a transaction set other than 834 (AK201)', { sets: [['837', '0001', 'A']] }, 'AK201 is 837'],
    ['a rejected transaction set of another ST02 (AK202)', { sets: [['834', '0002', 'R']], ak901: 'R' }, 'AK202 is 0002 (expected 0001)'],
    ['a partial acceptance without its transaction set', { sets: [], ak901: 'P' }, 'AK2 is (none, with AK901 P)'],
  ])('when the 999 has %s, then it is 409 naming the element and nothing is applied', async (_label, forged, named) => {
    const { w, file, unchanged } = await deliveredWorld();
    const response = await acknowledge(w, file, forged999({ ...forged, ak102: String(file.group_control_number) }));
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toContain(named);
    await unchanged();
  });

  it('when a TA1 names the interchange but is addressed to another receiver (ISA08), then it is 409 and nothing is applied', async () => {
    const { w, file, unchanged } = await deliveredWorld();
    const forged = ta1(file.interchange_control_number, 'R', '022').replace(
      `*${US.qualifier}*${US.id.padEnd(15, ' ')}*`,
      `*ZZ*${'OTHERSENDER'.padEnd(15, ' ')}*`,
    );
    expect(forged).toContain('OTHERSENDER');
    const response = await acknowledge(w, file, forged);
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toContain('ISA08 is OTHERSENDER');
    await unchanged();
  });

  it('when AK102 is the group control number with leading zeros (nine digits), then it is the same number and applies', async () => {
    const { w, enrollment, file } = await deliveredWorld();
    const padded = String(file.group_control_number).padStart(9, '0');
    expect(await ok(acknowledge(w, file, forged999({ ak102: padded })))).toMatchObject({ status: 'accepted' });
    expect(await enrollmentStatus(w, enrollment.id)).toBe('synced');
  });

  it('when the group has no profile any more, then an acknowledgement cannot be checked: 409 and nothing is applied', async () => {
    const { w, file, unchanged } = await deliveredWorld();
    await ok(w.admin.delete(`/groups/${w.groups.ediGroup.id}/edi_profile`));
    const response = await acknowledge(w, file, accepted(file));
    expect(response.status, response.text).toBe(409);
    expect(response.body.message).toMatch(/no EDI profile/);
    await unchanged();
  });
});

describe('two builds at once', () => {
  it('when two change files are built for one group at the same moment, then every waiting change is in exactly one file', async () => {
    const w = await ediWorld();
    const enrollments = [await visionEnrollment(w, [w.family.spouse.id])];
    for (let index = 0; index < 4; index++) {
      const member = await createMember(w.admin, { employer: w.employer.id, first_name: `Racer${'abcd'[index]}`, ssn: `52144382${index}` });
      enrollments.push(await visionEnrollment(w, [], member.id));
    }
    const waiting = (await Promise.all(enrollments.map((enrollment) => changesOf(w, enrollment.id)))).flat().map((change: { id: string }) => change.id);
    expect(waiting).toHaveLength(5);

    const [first, second] = await Promise.all([buildFile(w), buildFile(w)]);
    const built = [first, second].filter((response) => response.status === 201);
    for (const response of [first, second]) expect([201, 409], response.text).toContain(response.status);
    expect(built.length).toBeGreaterThanOrEqual(1);

    const carried: string[] = [];
    for (const response of built) carried.push(...(await ok(w.admin.get(`/edi_files/${response.body.id}`))).benefit_changes);
    expect([...carried].sort()).toEqual([...waiting].sort());
    // One of them carries them all; a second file (if any) carries none again.
    expect(built.some((response) => response.body.benefit_changes.length === waiting.length)).toBe(true);
    const numbers = built.map((response) => response.body.interchange_control_number);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});

describe('two requests at once on one profile or file', () => {
  it('when a group gets its first profile twice at once, then both answer 200: one creates it, the other replaces it', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.ediGroup.id;
    const answers = await Promise.all([
      putProfile(w.admin, group, profileBody()),
      putProfile(w.admin, group, profileBody({ delivery: sftp({ password: SFTP_PASSWORD }) })),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const events = (await ok(w.admin.get('/events?type=edi_profile.*'))).results.map((event: { event_type: string }) => event.event_type);
    expect(events.sort()).toEqual(['edi_profile.created', 'edi_profile.updated']);
  });

  it('when a file is delivered twice at once, then it is delivered once and its changes are sent once', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await changeFile(w);
    const answers = await Promise.all([w.admin.post(`/edi_files/${file.id}/deliver`), w.admin.post(`/edi_files/${file.id}/deliver`)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toMatchObject({ status: 'delivered', delivery_attempts: 1 });
    expect((await ok(w.admin.get('/events?type=benefit_change.sent'))).results).toHaveLength(1);
    expect((await ok(w.admin.get('/events?type=edi_file.delivered'))).results).toHaveLength(1);
    expect((await changesOf(w, enrollment.id))[0]).toMatchObject({ delivery_state: 'sent' });
  });

  it('when an accepting and a rejecting 999 arrive at once, then one applies, the other is 409, and the changes follow the one that applied', async () => {
    const w = await ediWorld();
    const enrollment = await visionEnrollment(w);
    const file = await deliveredFile(w);
    const answers = await Promise.all([
      acknowledge(w, file, accepted(file)),
      acknowledge(w, file, ack999({ groupControlNumber: file.group_control_number, set: 'R', group: 'R' })),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers.find((answer) => answer.status === 200)!.body;
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(winner);
    const [change] = await changesOf(w, enrollment.id);
    expect(change.delivery_state).toBe(winner.status === 'accepted' ? 'completed' : 'awaiting_file');
    expect(await enrollmentStatus(w, enrollment.id)).toBe(winner.status === 'accepted' ? 'synced' : 'approved');
    expect((await ok(w.admin.get('/events?type=edi_file.accepted,edi_file.rejected'))).results).toHaveLength(1);
  });

  it('when a full file is confirmed and cancelled at once, then one wins and the other is 409', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await ok(buildFile(w, { kind: 'full', as_of: '2026-04-15' }), 201);
    const answers = await Promise.all([w.admin.post(`/edi_files/${file.id}/confirm`), w.admin.post(`/edi_files/${file.id}/cancel`)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers.find((answer) => answer.status === 200)!.body;
    expect(['ready', 'cancelled']).toContain(winner.status);
    expect((await ok(w.admin.get(`/edi_files/${file.id}`))).status).toBe(winner.status);
  });
});

describe('hostile bodies', () => {
  it('when bodies are huge, deeply nested or of the wrong types, then every EDI route answers 4xx, never 500', async () => {
    const w = await ediWorld();
    await visionEnrollment(w);
    const file = await deliveredFile(w);
    const group = w.groups.ediGroup.id;
    const huge = 'A'.repeat(2 * 1024 * 1024);
    const raw = (method: string, path: string, rawBody: string) => w.admin.request(method, path, { rawBody, headers: { 'content-type': 'application/json' } });

    const responses: [label: string, response: ApiResponse][] = [
      ['huge profile', await putProfile(w.admin, group, profileBody({ payer: { name: huge, id: '1' } }))],
      ['huge acknowledgement', await acknowledge(w, file, huge)],
      ['acknowledgement just over its limit', await acknowledge(w, file, `${accepted(file)}${' '.repeat(1_000_001)}`)],
      ['deep array profile', await raw('PUT', `/groups/${group}/edi_profile`, deepArrayText(50_000))],
      ['deep object profile', await raw('PUT', `/groups/${group}/edi_profile`, deepObjectText(50_000))],
      ['deep object acknowledgement', await raw('POST', `/edi_files/${file.id}/acknowledgements`, `{"content":${deepObjectText(10_000)}}`)],
      ['deep array file', await raw('POST', '/edi_files', `{"group":${deepArrayText(10_000)},"kind":"change"}`)],
      ['not JSON', await raw('PUT', `/groups/${group}/edi_profile`, '{"delivery":')],
      ['profile as an array', await putProfile(w.admin, group, [profileBody()])],
      ['profile as a string', await putProfile(w.admin, group, 'download')],
      ['sponsor as a string', await putProfile(w.admin, group, profileBody({ sponsor: 'World Widgets' }))],
      ['tax id as a number', await putProfile(w.admin, group, profileBody({ sponsor: { name: 'World Widgets', tax_id: 123456789 } }))],
      ['delivery as an array', await putProfile(w.admin, group, profileBody({ delivery: ['sftp'] }))],
      ['unknown delivery method', await putProfile(w.admin, group, profileBody({ delivery: { method: 'carrier_pigeon' } }))],
      ['port as text', await putProfile(w.admin, group, profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), port: 'twenty-two' } }))],
      ['port out of range', await putProfile(w.admin, group, profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), port: 70_000 } }))],
      ['password as an object', await putProfile(w.admin, group, profileBody({ delivery: sftp({ password: { $gt: '' } as unknown as string }) }))],
      ['host with a control character', await putProfile(w.admin, group, profileBody({ delivery: { ...sftp({ password: SFTP_PASSWORD }), host: 'a\nb' } }))],
      ['schedule as a number', await putProfile(w.admin, group, profileBody({ schedule: 230 }))],
      [
        'a companion guide code with a delimiter',
        await putProfile(w.admin, group, profileBody({ companion_guide: { line_of_coverage_codes: { medical: 'P~X' } } })),
      ],
      ['__proto__ key', await raw('PUT', `/groups/${group}/edi_profile`, JSON.stringify(profileBody()).replace('{', '{"__proto__":{"polluted":true},'))],
      ['content as a number', await acknowledge(w, file, 999)],
      ['content as an array', await acknowledge(w, file, [accepted(file)])],
      ['content empty', await acknowledge(w, file, '')],
      ['content missing', await w.admin.post(`/edi_files/${file.id}/acknowledgements`, {})],
      ['group as an object', await w.admin.post('/edi_files', { group: { id: group }, kind: 'change' })],
      ['kind unknown', await w.admin.post('/edi_files', { group, kind: 'everything' })],
      ['as_of not a date', await w.admin.post('/edi_files', { group, kind: 'full', as_of: '2026-02-30' })],
      ['as_of a timestamp', await w.admin.post('/edi_files', { group, kind: 'full', as_of: '2026-03-02T00:00:00Z' })],
      ['as_of year 10000', await w.admin.post('/edi_files', { group, kind: 'full', as_of: '+010000-01-01' })],
      ['file id of another kind', await w.admin.post('/edi_files/mem_123/confirm')],
      ['file id far too long', await w.admin.post(`/edi_files/edi_file_${'x'.repeat(5000)}/deliver`)],
    ];
    for (const [label, response] of responses) expectRefused(label, response);
    // Nothing of it changed the file or the profile.
    expect(await ok(w.admin.get(`/edi_files/${file.id}`))).toEqual(file);
    expect((await ok(w.admin.get(`/groups/${group}/edi_profile`))).delivery).toEqual({ method: 'download' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the log of this whole file', () => {
  it('when every test above has run, then no log line holds an SFTP secret, an SSN or X12 text', () => {
    const logs = t.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [SFTP_PASSWORD, 'notarealkey', PASSPHRASE, MEMBER_SSN, 'ISA*', 'AK1*BE']) expect(logs).not.toContain(secret);
  });
});
