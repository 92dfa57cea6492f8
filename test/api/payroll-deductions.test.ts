import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmployer, createGroup, createMember } from '../helpers/factories.ts';
import { errorFields, newProviderAdmin } from '../helpers/more-factories.ts';
import { createDependent } from '../helpers/people-factories.ts';
import { compositeRates, contributionRule, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { createTestApp, ok, type ApiClient, type TestContext } from '../helpers/test-app.ts';

// The payroll deduction feed (docs/decisions.md "Pay schedules and payroll deductions"): per member and deduction
// code the amounts of a pay period, what changed, and retroactive adjustments taken exactly once.

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const at = (date: string) => t.clock.set(`${date}T15:00:00.000Z`);

interface Line {
  deduction_code: string;
  kind: 'deduction' | 'adjustment';
  change: string | null;
  member_pre_tax: string;
  member_post_tax: string;
  employer: string;
  imputed_income: string;
  adjusted_periods: string[];
}
interface MemberDeductions {
  member: string;
  pay_date: string;
  period_start: string;
  previous_pay_date: string | null;
  lines: Line[];
}

const cents = (money: string) => Math.round(Number(money) * 100);

/** An employer with a 2026 medical plan (member tier 512.40, the employer paying 75%) and a pay schedule. */
async function payrollWorld(schedule: Record<string, unknown> = { frequency: 'semimonthly', first_pay_date: '2026-01-15' }) {
  const admin = await newProviderAdmin(t, 'payroll');
  const employer = await createEmployer(admin);
  const group = await createGroup(admin, { employer: employer.id });
  const medical = await createPlan(admin, { group: group.id, line_of_coverage: 'medical', premium_type: 'composite', composite_rates: compositeRates() });
  const configuration = await createPlanConfiguration(admin, { plan: medical.id, coverage_start_rule: 'first_of_month_following_hire', deduction_code: 'MED' });
  await ok(
    admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy({ member: contributionRule('75', '0.00', '1500.00') })),
  );
  const paySchedule = await ok(admin.post('/pay_schedules', { employer: employer.id, name: 'Salaried', ...schedule }), 201);
  return { admin, employer, group, medical, configuration, paySchedule };
}

async function deductions(admin: ApiClient, employer: string, payDate: string, extra = ''): Promise<MemberDeductions[]> {
  const page = await ok(admin.get(`/payroll_deductions?employer=${employer}&pay_date=${payDate}&page_size=100${extra}`));
  return page.results as MemberDeductions[];
}

async function linesOf(admin: ApiClient, employer: string, member: string, payDate: string): Promise<Line[]> {
  return (await deductions(admin, employer, payDate)).find((row) => row.member === member)?.lines ?? [];
}

const carrierSync = (admin: ApiClient, member: string, enrolledPlans: unknown[]) =>
  ok(admin.post('/enrollments', { member, category: 'carrier_sync', effective_start: '2026-01-01', enrolled_plans: enrolledPlans }), 201);

describe('pay schedules', () => {
  it('when schedules are created, then the first is the default, semimonthly pays the 15th and the last day, and a member takes only their employer’s schedule', async () => {
    at('2026-01-05');
    const { admin, employer, paySchedule } = await payrollWorld();
    expect(paySchedule).toMatchObject({ frequency: 'semimonthly', semimonthly_days: [15, 31], default: true, first_pay_date: '2026-01-15' });
    const weekly = await ok(admin.post('/pay_schedules', { employer: employer.id, name: 'Hourly', frequency: 'weekly', first_pay_date: '2026-01-02' }), 201);
    expect(weekly).toMatchObject({ default: false, semimonthly_days: null });
    const dates = await ok(admin.get(`/pay_schedules/${paySchedule.id}/pay_dates?from=2026-02-01&to=2026-03-31`));
    expect(dates.pay_dates).toEqual([
      { pay_date: '2026-02-15', period_start: '2026-02-01' },
      { pay_date: '2026-02-28', period_start: '2026-02-16' },
      { pay_date: '2026-03-15', period_start: '2026-03-01' },
      { pay_date: '2026-03-31', period_start: '2026-03-16' },
    ]);
    // Making the weekly schedule the default takes it from the other.
    expect(await ok(admin.patch(`/pay_schedules/${weekly.id}`, { default: true }))).toMatchObject({ default: true });
    expect(await ok(admin.get(`/pay_schedules/${paySchedule.id}`))).toMatchObject({ default: false });

    const member = await createMember(admin, { employer: employer.id, pay_schedule: weekly.id });
    expect(member.pay_schedule).toBe(weekly.id);
    const other = await payrollWorld();
    const refused = await admin.patch(`/members/${member.id}`, { pay_schedule: other.paySchedule.id });
    expect(refused.status).toBe(400);
    expect(errorFields(refused)).toEqual(['pay_schedule']);
  });

  it.each([
    [{ frequency: 'semimonthly', first_pay_date: '2026-01-16' }, 'first_pay_date'],
    [{ frequency: 'semimonthly', first_pay_date: '2026-01-15', semimonthly_days: [20, 5] }, 'semimonthly_days'],
    [{ frequency: 'monthly', first_pay_date: '2026-01-31', semimonthly_days: [1, 15] }, 'semimonthly_days'],
    [{ frequency: 'fortnightly', first_pay_date: '2026-01-15' }, 'frequency'],
    [{ frequency: 'weekly', first_pay_date: '2026-02-30' }, 'first_pay_date'],
  ])('when a schedule is %o, then 400 at %s and nothing is written', async (body, field) => {
    const { admin, employer } = await payrollWorld();
    const response = await admin.post('/pay_schedules', { employer: employer.id, name: 'Bad', ...body });
    expect(response.status).toBe(400);
    expect(errorFields(response).join(' ')).toContain(field);
    expect((await ok(admin.get(`/pay_schedules?employer=${employer.id}`))).results).toHaveLength(1);
  });
});

describe('per-pay-period amounts', () => {
  it.each([
    ['weekly', '2026-01-02', 52],
    ['biweekly', '2026-01-09', 26],
    ['semimonthly', '2026-01-15', 24],
    ['monthly', '2026-01-31', 12],
  ])('when a member is covered all 2026 on a %s schedule, then the plan year’s pay dates sum to twelve months exactly', async (frequency, first, count) => {
    at('2026-01-05');
    const { admin, employer, medical, paySchedule } = await payrollWorld({ frequency, first_pay_date: first });
    const member = await createMember(admin, { employer: employer.id, hire_date: '2020-01-01' });
    await carrierSync(admin, member.id, [{ plan: medical.id }]);
    const coverage = await ok(admin.get(`/members/${member.id}/coverage?date=2026-06-01`));
    expect(coverage.coverage[0].pay_period).toMatchObject({ pay_schedule: paySchedule.id, frequency, periods_per_year: count });

    const { pay_dates: payDates } = await ok(admin.get(`/pay_schedules/${paySchedule.id}/pay_dates?from=2026-01-01&to=2026-12-31`));
    expect(payDates).toHaveLength(count);
    let member_ = 0;
    let employer_ = 0;
    for (const { pay_date: payDate } of payDates as { pay_date: string }[]) {
      const [line] = await linesOf(admin, employer.id, member.id, payDate);
      member_ += cents(line!.member_pre_tax);
      employer_ += cents(line!.employer);
    }
    expect(member_).toBe(12810 * 12);
    expect(employer_).toBe(38430 * 12);
  });
});

describe('retroactive adjustments', () => {
  it('when an approval takes effect in paid periods, then one arrears line, and after the run that takes it none again; a retroactive termination then gives one refund', async () => {
    at('2026-01-20');
    const { admin, employer, medical, paySchedule } = await payrollWorld();
    const member = await createMember(admin, { employer: employer.id, hire_date: '2026-01-20', payroll_provider_external_id: '=HYPERLINK("x")' });
    const created = await ok(
      admin.post('/enrollments', { member: member.id, category: 'qle', reason: 'new_hire', change_date: '2026-01-20', enrolled_plans: [{ plan: medical.id }] }),
      201,
    );
    await ok(admin.post(`/enrollments/${created.id}/save_and_submit`));

    // Payroll pays February before the enrollment is approved: nothing is owed then.
    for (const payDate of ['2026-02-15', '2026-02-28']) {
      at(payDate);
      expect(await linesOf(admin, employer.id, member.id, payDate)).toEqual([]);
      await ok(admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: payDate }), 201);
    }
    at('2026-03-02');
    const approved = await ok(admin.post(`/enrollments/${created.id}/approve`));
    // The election shows its amounts per pay period of the member's (default) schedule.
    expect(approved.enrolled_plans[0].pay_period).toEqual({
      pay_schedule: paySchedule.id,
      frequency: 'semimonthly',
      periods_per_year: 24,
      member_contribution: '64.05',
      employer_contribution: '192.15',
      last_period_member_contribution: '64.05',
      last_period_employer_contribution: '192.15',
    });

    const march15 = await linesOf(admin, employer.id, member.id, '2026-03-10');
    expect(march15).toEqual([
      {
        deduction_code: 'MED',
        kind: 'deduction',
        change: 'started',
        member_pre_tax: '64.05',
        member_post_tax: '0.00',
        employer: '192.15',
        imputed_income: '0.00',
        adjusted_periods: [],
      },
      {
        deduction_code: 'MED',
        kind: 'adjustment',
        change: null,
        member_pre_tax: '128.10',
        member_post_tax: '0.00',
        employer: '384.30',
        imputed_income: '0.00',
        adjusted_periods: ['2026-02-15', '2026-02-28'],
      },
    ]);

    // CSV: the same rows, amounts numeric, text formula-safe.
    const csv = await admin.get(`/payroll_deductions?employer=${employer.id}&pay_date=2026-03-10&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = parse<Record<string, string>>(csv.text, { columns: true });
    expect(rows.map((row) => [row.kind, row.change, row.member_pre_tax, row.employer, row.adjusted_periods])).toEqual([
      ['deduction', 'started', '64.05', '192.15', ''],
      ['adjustment', '', '128.10', '384.30', '2026-02-15 2026-02-28'],
    ]);
    expect(rows[0]!.payroll_provider_external_id).toBe(`'=HYPERLINK("x")`);

    at('2026-03-15');
    const run = await ok(admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-03-15' }), 201);
    expect(run).toMatchObject({
      members: 1,
      deductions: { member_pre_tax: '64.05', employer: '192.15' },
      adjustments: { member_pre_tax: '128.10', employer: '384.30' },
    });
    expect((await admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-03-15' })).status).toBe(409);

    // After the run that took it, the arrears never shows again.
    expect(await linesOf(admin, employer.id, member.id, '2026-03-31')).toEqual([
      {
        deduction_code: 'MED',
        kind: 'deduction',
        change: 'unchanged',
        member_pre_tax: '64.05',
        member_post_tax: '0.00',
        employer: '192.15',
        imputed_income: '0.00',
        adjusted_periods: [],
      },
    ]);
    at('2026-03-31');
    await ok(admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-03-31' }), 201);

    // A termination recorded in April, dated in March, ends coverage 03-20: the 03-31 period paid is refunded once.
    at('2026-04-05');
    await ok(admin.patch(`/members/${member.id}`, { termination_date: '2026-03-20', termination_reason: 'voluntary' }));
    const april15 = await linesOf(admin, employer.id, member.id, '2026-04-15');
    expect(april15).toEqual([
      {
        deduction_code: 'MED',
        kind: 'deduction',
        change: 'stopped',
        member_pre_tax: '0.00',
        member_post_tax: '0.00',
        employer: '0.00',
        imputed_income: '0.00',
        adjusted_periods: [],
      },
      {
        deduction_code: 'MED',
        kind: 'adjustment',
        change: null,
        member_pre_tax: '-64.05',
        member_post_tax: '0.00',
        employer: '-192.15',
        imputed_income: '0.00',
        adjusted_periods: ['2026-03-31'],
      },
    ]);
    const refundCsv = parse<Record<string, string>>((await admin.get(`/payroll_deductions?employer=${employer.id}&pay_date=2026-04-15&format=csv`)).text, {
      columns: true,
    });
    expect(refundCsv[1]).toMatchObject({ kind: 'adjustment', member_pre_tax: '-64.05', employer: '-192.15' });
    at('2026-04-15');
    await ok(admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-04-15' }), 201);
    expect(await linesOf(admin, employer.id, member.id, '2026-04-30')).toEqual([]);
  });
});

describe('imputed income', () => {
  // 26 CFR 1.79-3(d)(2) Table I: each boundary, the age at the end of 2026, $150,000 of coverage ($100,000 over).
  const boundaries: [number, string][] = [
    [24, '5.00'],
    [25, '6.00'],
    [29, '6.00'],
    [30, '8.00'],
    [34, '8.00'],
    [35, '9.00'],
    [39, '9.00'],
    [40, '10.00'],
    [44, '10.00'],
    [45, '15.00'],
    [49, '15.00'],
    [50, '23.00'],
    [54, '23.00'],
    [55, '43.00'],
    [59, '43.00'],
    [60, '66.00'],
    [64, '66.00'],
    [65, '127.00'],
    [69, '127.00'],
    [70, '206.00'],
  ];

  it('when group-term life of $150,000 is employer-paid, then §79 imputes Table I’s rate on $100,000 by the age at the end of the tax year, less after-tax contributions', async () => {
    at('2026-01-05');
    const { admin, employer, group } = await payrollWorld({ frequency: 'monthly', first_pay_date: '2026-01-31' });
    const life = await createPlan(admin, { group: group.id, line_of_coverage: 'life', plan_name: 'Basic Life', guaranteed_issue_volume: '200000.00' });
    await createPlanConfiguration(admin, { plan: life.id, deduction_code: 'LIFE' });
    const expected = new Map<string, string>();
    for (const [age, imputed] of boundaries) {
      // Born on 2026-12-31 minus `age` years: that age on the last day of the tax year (and not a day before).
      const member = await createMember(admin, { employer: employer.id, first_name: `Age${age}`, dob: `${2026 - age}-12-31`, hire_date: '2025-01-01' });
      await carrierSync(admin, member.id, [
        { plan: life.id, requested_volume: '150000.00', premium: '20.00', employer_contribution: '20.00', member_contribution: '0.00' },
      ]);
      expected.set(member.id, imputed);
    }
    // One member paying $4.00 a month after tax: it reduces the imputed income.
    const contributing = await createMember(admin, { employer: employer.id, first_name: 'Payer', dob: '1980-12-31', hire_date: '2025-01-01' });
    await carrierSync(admin, contributing.id, [
      { plan: life.id, requested_volume: '150000.00', premium: '20.00', employer_contribution: '16.00', member_contribution: '4.00' },
    ]);
    expected.set(contributing.id, '11.00');

    const rows = await deductions(admin, employer.id, '2026-05-31');
    for (const [member, imputed] of expected) {
      const line = rows.find((row) => row.member === member)?.lines[0];
      expect(line, member).toMatchObject({ deduction_code: 'LIFE', kind: 'deduction', imputed_income: imputed });
    }
    expect(rows.find((row) => row.member === contributing.id)?.lines[0]).toMatchObject({ member_post_tax: '4.00', member_pre_tax: '0.00' });
  });

  it('when medical covers a domestic partner, then the employer-paid difference from the member-only tier is imputed; a spouse is not', async () => {
    at('2026-01-05');
    const { admin, employer, medical } = await payrollWorld({ frequency: 'monthly', first_pay_date: '2026-01-31' });
    const alone = await createMember(admin, { employer: employer.id, first_name: 'Alone', hire_date: '2025-01-01' });
    const partnered = await createMember(admin, { employer: employer.id, first_name: 'Partnered', hire_date: '2025-01-01' });
    const married = await createMember(admin, { employer: employer.id, first_name: 'Married', hire_date: '2025-01-01' });
    const partner = await createDependent(admin, { member: partnered.id, member_relationship: 'domestic_partner', dob: '1987-03-03' });
    const spouse = await createDependent(admin, { member: married.id, member_relationship: 'spouse', dob: '1987-03-03' });
    const aloneCoverage = await carrierSync(admin, alone.id, [{ plan: medical.id }]);
    const partnerCoverage = await carrierSync(admin, partnered.id, [{ plan: medical.id, enrolled_dependents: [{ dependent: partner.id }] }]);
    await carrierSync(admin, married.id, [{ plan: medical.id, enrolled_dependents: [{ dependent: spouse.id }] }]);
    const expected = cents(partnerCoverage.enrolled_plans[0].employer_contribution) - cents(aloneCoverage.enrolled_plans[0].employer_contribution);
    expect(expected).toBeGreaterThan(0);

    const rows = await deductions(admin, employer.id, '2026-05-31');
    const imputedOf = (member: string) => rows.find((row) => row.member === member)?.lines[0]?.imputed_income;
    expect(cents(imputedOf(partnered.id)!)).toBe(expected);
    expect(imputedOf(married.id)).toBe('0.00');
    expect(imputedOf(alone.id)).toBe('0.00');
  });
});

describe('far dates', () => {
  it.each([
    ['weekly', '0001-01-01'],
    ['biweekly', '9999-12-24'],
    ['semimonthly', '0001-01-15'],
    ['monthly', '9999-12-31'],
  ])('when a %s schedule starts %s, then reads at the ends of the calendar answer, never a 500', async (frequency, first) => {
    const { admin, employer } = await payrollWorld({ frequency, first_pay_date: first });
    for (const date of ['0001-01-01', '0001-12-31', '9999-12-17', '9999-12-31']) {
      const response = await admin.get(`/payroll_deductions?employer=${employer.id}&pay_date=${date}`);
      expect(response.status, date).toBe(200);
      const csv = await admin.get(`/payroll_deductions?employer=${employer.id}&pay_date=${date}&format=csv`);
      expect(csv.status, date).toBe(200);
    }
    const schedules = await ok(admin.get(`/pay_schedules?employer=${employer.id}`));
    for (const [from, to] of [
      ['0001-01-01', '0001-12-31'],
      ['9999-01-01', '9999-12-31'],
    ]) {
      expect((await admin.get(`/pay_schedules/${schedules.results[0].id}/pay_dates?from=${from}&to=${to}`)).status).toBe(200);
    }
  });
});

describe('tenancy and bad input', () => {
  it("when another provider asks for an employer's deductions, runs or schedules, then 404; bad queries and runs are 400 or 409", async () => {
    at('2026-01-05');
    const { admin, employer, paySchedule } = await payrollWorld();
    const stranger = await newProviderAdmin(t, 'stranger');
    expect((await stranger.get(`/payroll_deductions?employer=${employer.id}&pay_date=2026-02-15`)).status).toBe(404);
    expect((await stranger.get(`/pay_schedules/${paySchedule.id}`)).status).toBe(404);
    expect((await stranger.patch(`/pay_schedules/${paySchedule.id}`, { name: 'Mine' })).status).toBe(404);
    expect((await stranger.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-02-15' })).status).toBe(400);
    expect((await stranger.get(`/pay_schedules?employer=${employer.id}`)).body.results).toEqual([]);

    for (const query of [
      `employer=${employer.id}`,
      `employer=${employer.id}&pay_date=2026-02-30`,
      'pay_date=2026-02-15',
      `employer=${employer.id}&pay_date=2026-02-15&format=xml`,
    ]) {
      expect((await admin.get(`/payroll_deductions?${query}`)).status, query).toBe(400);
    }
    expect((await admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-02-16' })).status).toBe(400);
    await ok(admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-02-28' }), 201);
    // Runs go in pay date order; the schedule's dates are then history.
    expect((await admin.post('/payroll_runs', { pay_schedule: paySchedule.id, pay_date: '2026-02-15' })).status).toBe(409);
    expect((await admin.patch(`/pay_schedules/${paySchedule.id}`, { frequency: 'monthly', first_pay_date: '2026-01-31', semimonthly_days: null })).status).toBe(
      409,
    );
    // Plan configurations: deduction_code and tax_treatment are additive, patchable, checked.
    const { configuration, admin: owner } = await payrollWorld();
    expect(await ok(owner.get(`/plan_configurations/${configuration.id}`))).toMatchObject({ deduction_code: 'MED', tax_treatment: null });
    expect(await ok(owner.patch(`/plan_configurations/${configuration.id}`, { tax_treatment: 'post_tax', deduction_code: 'MED-2' }))).toMatchObject({
      deduction_code: 'MED-2',
      tax_treatment: 'post_tax',
    });
    for (const bad of [{ deduction_code: '=cmd()' }, { deduction_code: '' }, { tax_treatment: 'pre_tax' }]) {
      expect(errorFields(await owner.patch(`/plan_configurations/${configuration.id}`, bad))).toEqual(Object.keys(bad));
    }
    const runs = await ok(admin.get(`/payroll_runs?employer=${employer.id}`));
    expect(runs.results).toHaveLength(1);
    expect((await stranger.get(`/payroll_runs/${runs.results[0].id}`)).status).toBe(404);
  });
});
