import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldMember } from '../helpers/carrier-file-world.ts';
import { createEnrollmentWorld, type EnrollmentWorld } from '../helpers/enrollment-world.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { PREMIUM_BILL_BODY_LIMIT } from '../../src/modules/premium-bills/premium-bill.routes.ts';
import { createEmployer, createGroup, createMember } from '../helpers/factories.ts';
import { compositeRates, contributionRule, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { createTestApp, ok, type ApiClient, type TestContext } from '../helpers/test-app.ts';

// Clock: 2026-03-02 (the test app's). Members are held on Gold PPO (the world's manual group, no EDI profile: its
// subscriber ids are member ids) since 2026-01-01: 512.40 a month alone, 905.15 with one child.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const HEADER = ['member', 'coverage_tier', 'period', 'amount'];
const bill = (rows: string[][], header = HEADER) => stringify([header, ...rows]);

interface Member {
  member: string | null;
  billed: string;
  expected: string;
  difference: string;
  discrepancies: { kind: string; period: string; file_lines: number[]; benefit_changes: string[] }[];
}
const kindsOf = (body: { members: Member[] }, member: string | null) =>
  body.members.filter((m) => m.member === member).flatMap((m) => m.discrepancies.map((d) => [d.kind, d.period, d.file_lines]));

describe('POST /groups/{id}/premium_bills (docs/decisions.md "Premium bills")', () => {
  let w: EnrollmentWorld;
  beforeAll(async () => {
    w = await createEnrollmentWorld(t);
  });
  const post = (body: Record<string, unknown>, admin = w.admin) => admin.post(`/groups/${w.groups.manualGroup.id}/premium_bills`, body);

  it('when a bill has each kind of discrepancy, then each is listed per member with its lines, the totals add up, and the comparison is kept with who posted it', async () => {
    const clean = await heldMember(w, 'Ana');
    const terminated = await heldMember(w, 'Ben');
    await ok(w.admin.patch(`/members/${terminated.member.id}`, { termination_date: '2026-01-20' }));
    const unbilled = await heldMember(w, 'Cleo');
    const withChild = await heldMember(w, 'Dale', [{ relationship: 'child', first_name: 'Kim', dob: '2015-06-01' }]);
    const overbilled = await heldMember(w, 'Eve');
    const retro = await heldMember(w, 'Fay');
    const content = bill([
      [clean.member.id, 'member', '2026-03', '512.40'],
      [terminated.member.id, 'member', '2026-03', '512.40'],
      [withChild.member.id, 'member_spouse', '2026-03', '905.15'],
      [overbilled.member.id, 'member', '2026-03', '500.00'],
      [retro.member.id, 'member', '2026-03', '512.40'],
      [retro.member.id, 'member', '2026-01', '512.40'],
      ['123456789', 'member', '2026-03', '99.00'],
      [clean.member.id, 'member', '2026-03', 'twelve'],
      [clean.member.id, 'member', '2026-03', '=1+2'],
    ]);
    const received = await ok(post({ content, bill_date: '2026-03-02', correction_window_days: 10 }), 201);
    expect(received).toMatchObject({
      object: 'premium_bill',
      group: w.groups.manualGroup.id,
      employer: w.employer.id,
      period: '2026-03',
      bill_date: '2026-03-02',
      correction_window_days: 10,
      member_key: 'subscriber_id',
      line_count: 9,
      members_billed: 6,
    });
    expect(received.line_errors).toEqual([
      { line: 9, column: 'amount', message: expect.stringContaining('Must be an amount') },
      { line: 10, column: 'amount', message: expect.stringContaining('Must be an amount') },
    ]);
    expect(kindsOf(received, clean.member.id)).toEqual([]);
    expect(kindsOf(received, terminated.member.id)).toEqual([
      ['billed_not_covered', '2026-03', [3]],
      ['retro_outside_window', '2026-01', []],
    ]);
    const retroChange = received.members.find((m: Member) => m.member === terminated.member.id).discrepancies[1];
    expect(retroChange.benefit_changes).toHaveLength(1);
    expect(kindsOf(received, unbilled.member.id)).toEqual([['covered_not_billed', '2026-03', []]]);
    expect(kindsOf(received, withChild.member.id)).toEqual([['tier_mismatch', '2026-03', [4]]]);
    expect(kindsOf(received, overbilled.member.id)).toEqual([['amount_mismatch', '2026-03', [5]]]);
    expect(received.members.find((m: Member) => m.member === overbilled.member.id)).toMatchObject({
      billed: '500.00',
      expected: '512.40',
      difference: '-12.40',
    });
    expect(kindsOf(received, retro.member.id)).toEqual([['retro_outside_window', '2026-01', [7]]]);
    expect(kindsOf(received, null)).toEqual([['billed_not_covered', '2026-03', [8]]]);
    // Billed: every readable line; expected: the members compared (the unbilled one's premium included).
    // No pay schedule in this world: payroll took nothing, and no month is paid (no deduction_mismatch).
    expect(received.totals).toEqual({
      billed: '3553.75',
      billed_before: '0.00',
      expected: '3467.15',
      difference: '86.60',
      deducted: '0.00',
      expected_member_share: '0.00',
    });
    expect(received.created_by).toEqual(expect.any(String));
    expect(JSON.stringify(received)).not.toContain('123456789');

    expect(await ok(w.admin.get(`/groups/${w.groups.manualGroup.id}/premium_bills/${received.id}`))).toEqual(received);
    const list = await ok(w.admin.get(`/groups/${w.groups.manualGroup.id}/premium_bills`));
    expect(list.results.map((b: { id: string }) => b.id)).toContain(received.id);
  });
});

describe('a clean bill, a column mapping and adjustments', () => {
  it('when the bill matches our coverage, then it reconciles to zero with no member listed; a later bill crediting a month an earlier bill charged reconciles too', async () => {
    const w = await createEnrollmentWorld(t);
    const ana = await heldMember(w, 'Ana');
    const ben = await heldMember(w, 'Ben', [{ relationship: 'child', first_name: 'Kim', dob: '2015-06-01' }]);
    const group = w.groups.manualGroup.id;
    const march = await ok(
      w.admin.post(`/groups/${group}/premium_bills`, {
        content: bill([
          [ana.member.id, 'member', '2026-03', '512.40'],
          [ben.member.id, 'member_child', '2026-03', '905.15'],
        ]),
      }),
      201,
    );
    expect(march).toMatchObject({
      period: '2026-03',
      members: [],
      members_billed: 2,
      members_covered: 2,
      members_reconciled: 2,
      totals: { billed: '1417.55', billed_before: '0.00', expected: '1417.55', difference: '0.00' },
    });

    // Ben leaves at the end of March, recorded late: April's bill credits March (within the window).
    await ok(w.admin.patch(`/members/${ben.member.id}`, { termination_date: '2026-02-28' }));
    const april = await ok(
      w.admin.post(`/groups/${group}/premium_bills`, {
        content: bill([
          [ana.member.id, 'member', '2026-04', '512.40'],
          [ben.member.id, 'member_child', '2026-03', '-905.15'],
        ]),
      }),
      201,
    );
    expect(april).toMatchObject({
      period: '2026-04',
      members: [],
      totals: { billed: '-392.75', billed_before: '905.15', expected: '512.40', difference: '0.00' },
    });
  });

  it('when the carrier names its columns its own way, then column_mapping reads them (BOM, CRLF, codes, dollar signs and thousands separators too)', async () => {
    const w = await createEnrollmentWorld(t);
    const ana = await heldMember(w, 'Ana');
    const content = `\uFEFFGroup No,Subscriber ID,Last Name,Coverage Level,Billing Period,Premium Due\r\nG-1,${ana.member.id},Stone,EMP,2026-03-01,$512.40\r\n`;
    const received = await ok(
      w.admin.post(`/groups/${w.groups.manualGroup.id}/premium_bills`, {
        content,
        column_mapping: { member: 'Subscriber ID', coverage_tier: 'coverage level', period: 'Billing Period', amount: 'Premium Due' },
      }),
      201,
    );
    expect(received).toMatchObject({
      members: [],
      line_errors: [],
      column_mapping: { member: 'Subscriber ID', coverage_tier: 'coverage level', period: 'Billing Period', amount: 'Premium Due' },
      totals: { difference: '0.00' },
    });
  });

  it('when a file is not a bill, then a 400 on content names why: a missing column, a cell beyond any record, an unclosed quote, a mapping naming no column', async () => {
    const w = await createEnrollmentWorld(t);
    const post = (body: Record<string, unknown>) => w.admin.post(`/groups/${w.groups.manualGroup.id}/premium_bills`, body);
    for (const body of [
      { content: 'member,period\nmem_1,2026-03\n' },
      { content: `member,period,amount\n${'x'.repeat(100_000)},2026-03,1\n` },
      { content: 'member,period,amount\n"mem_1,2026-03,1\n' },
      { content: 'member,period,amount\nmem_1,2026-03,1\n', column_mapping: { coverage_tier: 'Tier' } },
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['content']);
    }
    const badMapping = await post({ content: 'member,period,amount\n', column_mapping: { plan: 'Plan' } });
    expect(badMapping.status).toBe(400);
    const badWindow = await post({ content: 'member,period,amount\n', correction_window_days: -1 });
    expect(badWindow.status).toBe(400);
  });

  it('when another provider asks, then the group and its bills are 404', async () => {
    const w = await createEnrollmentWorld(t);
    const received = await ok(w.admin.post(`/groups/${w.groups.manualGroup.id}/premium_bills`, { content: bill([]) }), 201);
    const stranger = await newProviderAdmin(t, 'stranger');
    expect((await stranger.post(`/groups/${w.groups.manualGroup.id}/premium_bills`, { content: bill([]) })).status).toBe(404);
    expect((await stranger.get(`/groups/${w.groups.manualGroup.id}/premium_bills`)).status).toBe(404);
    expect((await stranger.get(`/groups/${w.groups.manualGroup.id}/premium_bills/${received.id}`)).status).toBe(404);
    expect((await w.admin.get(`/groups/${w.groups.apiGroup.id}/premium_bills/${received.id}`)).status).toBe(404);
  });
});

describe('the CSV form: the bill as the body (Content-Type: text/csv), its options in the query', () => {
  const csvPost = (client: ApiClient, group: string, content: string, query = '', headers: Record<string, string> = {}) =>
    client.post(`/groups/${group}/premium_bills${query}`, undefined, { rawBody: content, headers: { 'content-type': 'text/csv', ...headers } });

  it('when the bill comes as text/csv with map_<column> and options in the query, then it is read as the JSON form reads it', async () => {
    const w = await createEnrollmentWorld(t);
    const ana = await heldMember(w, 'Ana');
    const ben = await heldMember(w, 'Ben');
    const group = w.groups.manualGroup.id;
    const content = `\uFEFFGroup No,Subscriber ID,Coverage Level,Billing Period,Premium Due\r\nG-1,${ana.member.id},EMP,2026-03-01,$512.40\r\nG-1,${ben.member.id},EMP,2026-03-01,"$1,000.00"\r\n`;
    const query =
      '?map_member=Subscriber%20ID&map_coverage_tier=coverage%20level&map_period=Billing%20Period&map_amount=Premium%20Due&member_key=member_id&period=2026-03&bill_date=2026-03-02&correction_window_days=30';
    const received = await ok(csvPost(w.admin, group, content, query), 201);
    expect(received).toMatchObject({
      period: '2026-03',
      bill_date: '2026-03-02',
      correction_window_days: 30,
      member_key: 'member_id',
      column_mapping: { member: 'Subscriber ID', coverage_tier: 'coverage level', period: 'Billing Period', amount: 'Premium Due' },
      line_count: 2,
      line_errors: [],
      totals: { billed: '1512.40', expected: '1024.80', difference: '487.60' },
    });
    expect(kindsOf(received, ben.member.id)).toEqual([['amount_mismatch', '2026-03', [3]]]);

    // The same bill as JSON compares the same way.
    const asJson = await ok(
      w.admin.post(`/groups/${group}/premium_bills`, {
        content,
        column_mapping: received.column_mapping,
        member_key: 'member_id',
        period: '2026-03',
        bill_date: '2026-03-02',
        correction_window_days: 30,
      }),
      201,
    );
    expect(asJson.members).toEqual(received.members);
    expect(asJson.totals).toEqual(received.totals);
    expect((await ok(w.admin.get(`/groups/${group}/premium_bills/${received.id}`))).members).toEqual(received.members);
  });

  it('when a CSV line holds a NUL or the file is no bill, then a line error or a 400, never a 500 and nothing stored', async () => {
    const w = await createEnrollmentWorld(t);
    const ana = await heldMember(w, 'Ana');
    const group = w.groups.manualGroup.id;
    const withNul = await ok(csvPost(w.admin, group, `member,period,amount\nmem\u00001,2026-03,1\n${ana.member.id},2026-03,512.40\n`), 201);
    expect(withNul.line_errors).toEqual([{ line: 2, column: 'member', message: expect.stringContaining('control characters') }]);
    expect(withNul.members_billed).toBe(1);

    const before = (await ok(w.admin.get(`/groups/${group}/premium_bills`))).results.length;
    for (const content of ['', 'member,period\nmem_1,2026-03\n', 'member,period,amount\n"mem_1,2026-03,1\n']) {
      const refused = await csvPost(w.admin, group, content);
      expect(refused.status, JSON.stringify(content)).toBe(400);
      expect(errorFields(refused)).toEqual(['content']);
    }
    const mappingNamesNoColumn = await csvPost(w.admin, group, 'member,period,amount\nmem_1,2026-03,1\n', '?map_coverage_tier=Tier');
    expect(mappingNamesNoColumn.status).toBe(400);
    for (const query of ['?map_member=%00', '?map_plan=Plan', '?correction_window_days=-1', '?bill_date=2026-02-30', '?member_key=name']) {
      const refused = await csvPost(w.admin, group, bill([]), query);
      expect(refused.status, query).toBe(400);
    }
    expect((await ok(w.admin.get(`/groups/${group}/premium_bills`))).results.length).toBe(before);
  });

  it('when the JSON form names options in the query, or no body comes, then a 400 saying where they go', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.manualGroup.id;
    const mixed = await w.admin.post(`/groups/${group}/premium_bills?member_key=member_id`, { content: bill([]) });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({ type: 'invalid_request', message: expect.stringContaining('member_key') });
    const none = await w.admin.post(`/groups/${group}/premium_bills`);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('text/csv');
    // A JSON string is not the CSV form.
    expect((await w.admin.post(`/groups/${group}/premium_bills`, bill([]))).status).toBe(400);
  });

  it('when the body is too large, not UTF-8, of another type, or CSV on a route without the CSV form, then 413 or 415', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.manualGroup.id;
    const huge = `member,period,amount\n${'mem_1,2026-03,1\n'.repeat(Math.ceil((PREMIUM_BILL_BODY_LIMIT + 1) / 16))}`;
    const tooLarge = await csvPost(w.admin, group, huge);
    expect(tooLarge.status).toBe(413);
    expect((await csvPost(w.admin, group, bill([]), '', { 'content-type': 'text/csv; charset=iso-8859-1' })).status).toBe(415);
    expect((await csvPost(w.admin, group, bill([]), '', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await csvPost(w.admin, group, bill([]), '', { 'content-encoding': 'gzip' })).status).toBe(415);
    expect((await w.admin.post('/carriers', undefined, { rawBody: 'name\nAcme\n', headers: { 'content-type': 'text/csv' } })).status).toBe(415);
    const stranger = await newProviderAdmin(t, 'csv-stranger');
    expect((await csvPost(stranger, group, bill([]))).status).toBe(404);
  });

  it('when one Idempotency-Key is sent again with another CSV bill, then it is refused, not answered with the first', async () => {
    const w = await createEnrollmentWorld(t);
    const group = w.groups.manualGroup.id;
    const key = { 'idempotency-key': 'bill-csv-1' };
    const first = await ok(csvPost(w.admin, group, bill([]), '', key), 201);
    const replayed = await csvPost(w.admin, group, bill([]), '', key);
    expect(replayed.status).toBe(201);
    expect(replayed.body.id).toBe(first.id);
    const other = await csvPost(w.admin, group, bill([['mem_x', 'member', '2026-03', '1.00']]), '', key);
    expect(other.status).toBe(409);
    expect(other.body.type).toBe('idempotency_error');
  });
});

describe('what payroll deducted (docs/decisions.md "Premium bills", What payroll deducted)', () => {
  const at = (date: string) => t.clock.set(`${date}T15:00:00.000Z`);
  afterAll(() => at('2026-03-02'));

  it("when payroll took the member share, missed an approval, or has not paid the month yet, then only the paid month it missed is a deduction_mismatch, and the next run's adjustment reconciles it", async () => {
    at('2026-01-20');
    // Medical at 512.40 a month for a member alone, the employer paying 75%: the member's share 128.10 a month,
    // 64.05 per semimonthly pay date (the 15th and the last day).
    const admin = await newProviderAdmin(t, 'bill-payroll');
    const employer = await createEmployer(admin);
    const group = await createGroup(admin, { employer: employer.id });
    const medical = await createPlan(admin, { group: group.id, line_of_coverage: 'medical', premium_type: 'composite', composite_rates: compositeRates() });
    const configuration = await createPlanConfiguration(admin, {
      plan: medical.id,
      coverage_start_rule: 'first_of_month_following_hire',
      deduction_code: 'MED',
    });
    await ok(
      admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy({ member: contributionRule('75', '0.00', '1500.00') })),
    );
    const schedule = await ok(
      admin.post('/pay_schedules', { employer: employer.id, name: 'Salaried', frequency: 'semimonthly', first_pay_date: '2026-01-15' }),
      201,
    );
    const ana = await createMember(admin, { employer: employer.id, hire_date: '2025-06-01' });
    await ok(
      admin.post('/enrollments', { member: ana.id, category: 'carrier_sync', effective_start: '2026-01-01', enrolled_plans: [{ plan: medical.id }] }),
      201,
    );
    const ben = await createMember(admin, { employer: employer.id, hire_date: '2026-01-20' });
    const bens = await ok(
      admin.post('/enrollments', { member: ben.id, category: 'qle', reason: 'new_hire', change_date: '2026-01-20', enrolled_plans: [{ plan: medical.id }] }),
      201,
    );
    await ok(admin.post(`/enrollments/${bens.id}/save_and_submit`));
    // February is paid before Ben's enrollment is approved (from 2026-02-01): the runs take nothing of his.
    for (const payDate of ['2026-02-15', '2026-02-28']) {
      at(payDate);
      await ok(admin.post('/payroll_runs', { pay_schedule: schedule.id, pay_date: payDate }), 201);
    }
    at('2026-03-02');
    await ok(admin.post(`/enrollments/${bens.id}/approve`));

    const content = bill([
      [ana.id, 'member', '2026-02', '512.40'],
      [ana.id, 'member', '2026-03', '512.40'],
      [ben.id, 'member', '2026-02', '512.40'],
      [ben.id, 'member', '2026-03', '512.40'],
    ]);
    const post = () => ok(admin.post(`/groups/${group.id}/premium_bills`, { content, bill_date: '2026-03-02' }), 201);
    const received = await post();
    // Ana: payroll took her 128.10 in February, so she reconciles; March is not paid yet, so nothing is compared.
    // Ben: the carrier bills what is owed, but February's runs took none of his share: a deduction_mismatch. His
    // March is not paid yet either: no mismatch.
    expect(kindsOf(received, ana.id)).toEqual([]);
    expect(kindsOf(received, ben.id)).toEqual([['deduction_mismatch', '2026-02', []]]);
    const bensResult = received.members.find((m: Member) => m.member === ben.id);
    expect(bensResult).toMatchObject({ billed: '512.40', expected: '512.40', difference: '0.00', deducted: '0.00', expected_member_share: '128.10' });
    expect(bensResult.periods).toEqual([
      expect.objectContaining({
        period: '2026-02',
        billed: '512.40',
        expected: '512.40',
        difference: '0.00',
        deducted: '0.00',
        expected_member_share: '128.10',
        payroll_paid: true,
      }),
    ]);
    expect(bensResult.discrepancies[0].message).toContain('$128.10');
    expect(received.members_reconciled).toBe(1);
    // Deducted: Ana's February; owed to payroll: both members' February and March.
    expect(received.totals).toEqual({
      billed: '2049.60',
      billed_before: '0.00',
      expected: '2049.60',
      difference: '0.00',
      deducted: '128.10',
      expected_member_share: '512.40',
    });
    // The stored bill reads back with the payroll fields.
    expect(await ok(admin.get(`/groups/${group.id}/premium_bills/${received.id}`))).toEqual(received);

    // March's runs take Ben's February arrears (an adjustment of February's periods) and March: all reconciles.
    for (const payDate of ['2026-03-15', '2026-03-31']) {
      at(payDate);
      await ok(admin.post('/payroll_runs', { pay_schedule: schedule.id, pay_date: payDate }), 201);
    }
    at('2026-04-01');
    const again = await post();
    expect(again.members).toEqual([]);
    expect(again.members_reconciled).toBe(2);
    expect(again.totals).toMatchObject({ deducted: '512.40', expected_member_share: '512.40', difference: '0.00' });
  });
});
