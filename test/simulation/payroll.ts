import type { ApiClient } from '../helpers/test-app-core.ts';
import type { Actions } from './life-events.ts';
import type { Steps } from './steps.ts';
import type { Line, SimEmployer, SimMember } from './world.ts';

// Payroll (docs/decisions.md "Pay schedules and payroll deductions"): every employer pays biweekly from early
// January, and the second employer also semimonthly (about a third of its members). On each pay date of each
// schedule HR reads the deduction feed (every page) and posts the payroll run. Two invariants are checked here:
//
// - `payroll_matches_coverage`: the period's deduction lines of a sample of the run's members (a fixed share, 15%,
//   drawn by a hash of employee id and pay date, so the story's draws are untouched) plus every member with an
//   adjustment line are the `pay_period` amounts of the coverage in force on the pay date
//   (`GET /members/{id}/coverage?date=`), the last counted period's amounts on the plan year's last counted pay
//   date; and each adjustment line is what the paid periods owe now less what the runs took for them.
// - `adjustment_once`: after a run, what every run took for a member and code (deductions and adjustments) equals
//   what the paid periods owe now: for each member with an adjustment line after their run, and after each
//   schedule's last run of the year for a watched share of members and every member ever adjusted. An
//   adjustment taken twice (or never) breaks it.

export interface SimPaySchedule {
  id: string;
  frequency: 'biweekly' | 'semimonthly';
  /** The pay dates of plan year 2026, oldest first. */
  payDates: string[];
  /** Pay dates already run, oldest first. */
  paid: string[];
  /** Members who had an adjustment line in a run of the schedule. */
  adjusted: Set<string>;
}

/** The share of a run's members whose deductions are compared with their coverage, and the share watched all year. */
export const PAYROLL = { sample: 0.15, watched: 0.1, semimonthlyShare: 1 / 3 } as const;

const PERIODS: Record<SimPaySchedule['frequency'], number> = { biweekly: 26, semimonthly: 24 };

interface PayPeriodAmounts {
  pay_schedule: string;
  member_contribution: string;
  employer_contribution: string;
  last_period_member_contribution: string;
  last_period_employer_contribution: string;
}

interface CoverageItem {
  line_of_coverage: Line;
  pay_period: PayPeriodAmounts | null;
}

interface FeedLine {
  deduction_code: string;
  kind: 'deduction' | 'adjustment';
  member_pre_tax: string;
  member_post_tax: string;
  employer: string;
  adjusted_periods: string[];
}

interface FeedMember {
  member: string;
  pay_date: string;
  lines: FeedLine[];
}

/** Amounts in cents, per deduction code: the member's share before and after tax, and the employer's. */
type Amounts = { pre: number; post: number; employer: number };
type ByCode = Map<string, Amounts>;

/** What the runs took, per member and deduction code (every run's deduction and adjustment lines). */
export type PayrollLedger = Map<string, ByCode>;

/** The employer's schedules: biweekly (the default) for every employer, and semimonthly for the second. */
export async function createPaySchedules(admin: ApiClient, steps: Steps, world: SimEmployer): Promise<SimPaySchedule[]> {
  const bodies: { name: string; frequency: SimPaySchedule['frequency']; first_pay_date: string }[] = [
    { name: 'Biweekly', frequency: 'biweekly', first_pay_date: `2026-01-${String(2 + (world.index % 3) * 3).padStart(2, '0')}` },
  ];
  if (world.index === 1) bodies.push({ name: 'Semimonthly', frequency: 'semimonthly', first_pay_date: '2026-01-15' });
  const schedules: SimPaySchedule[] = [];
  for (const body of bodies) {
    const created = await admin.post('/pay_schedules', { employer: world.id, ...body });
    if (created.status !== 201) throw new Error(`pay schedule: ${created.status} ${created.text}`);
    const id = (created.body as { id: string }).id;
    const dates = await steps.expect<{ pay_dates: { pay_date: string }[] }>(
      'pay dates',
      admin.get(`/pay_schedules/${id}/pay_dates?from=2026-01-01&to=2026-12-31`),
    );
    schedules.push({ id, frequency: body.frequency, payDates: (dates?.pay_dates ?? []).map((date) => date.pay_date), paid: [], adjusted: new Set() });
  }
  return schedules;
}

/** The schedule a member is paid on (their own, else the employer's default, the first). */
export function scheduleOf(member: SimMember): string | undefined {
  return member.paySchedule ?? member.employer.paySchedules[0]?.id;
}

/** Each pay date of the employer's schedules that falls on `day`: the feed read, the run posted, the invariants checked. */
export async function payrollDay(a: Actions, day: string, world: SimEmployer, members: readonly SimMember[], ledger: PayrollLedger): Promise<void> {
  for (const schedule of world.paySchedules) {
    if (schedule.payDates.includes(day)) await payrollRun(a, day, schedule, members, ledger);
  }
}

async function payrollRun(a: Actions, day: string, schedule: SimPaySchedule, members: readonly SimMember[], ledger: PayrollLedger): Promise<void> {
  const { steps } = a;
  const world = members[0]?.employer;
  if (!world) return;
  const feed = new Map<string, FeedMember>();
  let page: string | null = `/payroll_deductions?employer=${world.id}&pay_date=${day}&pay_schedule=${schedule.id}&page_size=100`;
  while (page) {
    const body: { results: FeedMember[]; next: string | null } | undefined = await steps.expect('payroll deductions', a.admin.get(page));
    for (const row of body?.results ?? []) feed.set(row.member, row);
    page = body?.next ?? null;
  }
  const run = await steps.expect('payroll run', a.admin.post('/payroll_runs', { pay_schedule: schedule.id, pay_date: day }), 201);
  if (!run) return;
  steps.count('payroll_runs');
  // What the runs took before this one, for the adjustment lines' check.
  const before = new Map<string, ByCode>([...feed.keys()].map((member) => [member, copy(ledger.get(member))]));
  for (const row of feed.values()) {
    if (row.pay_date !== day) fail(steps, day, 'payroll_matches_coverage', `member ${row.member} in the feed of ${day} for pay date ${row.pay_date}`);
    const taken = ledger.get(row.member) ?? new Map<string, Amounts>();
    ledger.set(row.member, taken);
    for (const line of row.lines) {
      add(taken, line.deduction_code, amountsOf(line));
      if (line.kind === 'adjustment') steps.count('payroll_adjustments');
    }
  }
  const paidBefore = [...schedule.paid];
  schedule.paid.push(day);
  const onSchedule = members.filter((member) => scheduleOf(member) === schedule.id);
  const adjusted = new Set([...feed.values()].filter((row) => row.lines.some((line) => line.kind === 'adjustment')).map((row) => row.member));
  for (const member of adjusted) schedule.adjusted.add(member);
  const sampled = onSchedule.filter((member) => adjusted.has(member.id) || share(`${member.employeeId}|${day}`) < PAYROLL.sample);
  steps.count('payroll_members_sampled', sampled.length);
  // Reads only, side by side (the checks below run in the members' order).
  const owedTodayOf = await Promise.all(sampled.map((member) => owedOn(a, member, schedule, day)));
  for (const [index, member] of sampled.entries()) {
    const owedToday = owedTodayOf[index];
    if (!owedToday) continue;
    const row = feed.get(member.id);
    const deductions = new Map<string, Amounts>();
    for (const line of row?.lines ?? []) if (line.kind === 'deduction') add(deductions, line.deduction_code, amountsOf(line));
    const differs = differences(deductions, owedToday);
    if (differs.length > 0) fail(steps, day, 'payroll_matches_coverage', `member ${member.id} on ${day}: feed vs coverage ${differs.join(', ')}`);
    if (!adjusted.has(member.id)) continue;
    // The adjustment lines: what the paid periods owe now less what the runs took before this one.
    const owedPaid = new Map<string, Amounts>();
    for (const owed of await Promise.all(paidBefore.map((date) => owedOn(a, member, schedule, date)))) add(owedPaid, undefined, undefined, owed ?? new Map());
    const expected = subtract(owedPaid, before.get(member.id) ?? new Map());
    const adjustments = new Map<string, Amounts>();
    for (const line of row?.lines ?? []) if (line.kind === 'adjustment') add(adjustments, line.deduction_code, amountsOf(line));
    const wrong = differences(adjustments, expected);
    if (wrong.length > 0)
      fail(steps, day, 'payroll_matches_coverage', `member ${member.id} on ${day}: adjustments vs owed for paid periods ${wrong.join(', ')}`);
    // After the run, everything paid is taken: nothing more is owed for these periods (adjustment_once).
    add(owedPaid, undefined, undefined, owedToday);
    const left = differences(ledger.get(member.id) ?? new Map(), owedPaid);
    if (left.length > 0) fail(steps, day, 'adjustment_once', `member ${member.id} after the run of ${day}: taken vs owed ${left.join(', ')}`);
  }
  if (day === schedule.payDates.at(-1)) await checkYearTaken(a, day, schedule, onSchedule, ledger);
}

/** After the schedule's last run of the year: for watched members and every member ever adjusted, every run's takings equal what the paid periods owe now. */
async function checkYearTaken(a: Actions, day: string, schedule: SimPaySchedule, members: readonly SimMember[], ledger: PayrollLedger): Promise<void> {
  for (const member of members) {
    if (!schedule.adjusted.has(member.id) && share(member.employeeId) >= PAYROLL.watched) continue;
    a.steps.count('payroll_members_checked_at_year_end');
    const owed = new Map<string, Amounts>();
    for (const paid of await Promise.all(schedule.paid.map((date) => owedOn(a, member, schedule, date)))) add(owed, undefined, undefined, paid ?? new Map());
    const left = differences(ledger.get(member.id) ?? new Map(), owed);
    if (left.length > 0) fail(a.steps, day, 'adjustment_once', `member ${member.id} at the year's last run: taken vs owed ${left.join(', ')}`);
  }
}

/** What a pay date owes per deduction code: the coverage in force on it, its `pay_period` amounts (the last counted period's on that date). */
async function owedOn(a: Actions, member: SimMember, schedule: SimPaySchedule, date: string): Promise<ByCode | undefined> {
  const coverage = await a.steps.expect<{ coverage: CoverageItem[] }>('member coverage', a.admin.get(`/members/${member.id}/coverage?date=${date}`));
  if (!coverage) return undefined;
  const last = schedule.payDates[PERIODS[schedule.frequency] - 1] === date;
  const owed = new Map<string, Amounts>();
  for (const item of coverage.coverage) {
    const period = item.pay_period;
    if (!period || period.pay_schedule !== schedule.id) continue;
    const memberShare = cents(last ? period.last_period_member_contribution : period.member_contribution);
    const employer = cents(last ? period.last_period_employer_contribution : period.employer_contribution);
    // The lines' default tax treatment (payroll/deduction-rules.ts): health pre-tax (IRC §125), life after tax.
    const preTax = item.line_of_coverage !== 'life';
    add(owed, item.line_of_coverage, { pre: preTax ? memberShare : 0, post: preTax ? 0 : memberShare, employer });
  }
  return owed;
}

function fail(steps: Steps, day: string, invariant: 'payroll_matches_coverage' | 'adjustment_once', detail: string): void {
  steps.failures.push({ day, invariant, detail });
}

function cents(amount: string): number {
  const negative = amount.startsWith('-');
  const [whole, fraction = '0'] = (negative ? amount.slice(1) : amount).split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return negative ? -value : value;
}

function amountsOf(line: FeedLine): Amounts {
  return { pre: cents(line.member_pre_tax), post: cents(line.member_post_tax), employer: cents(line.employer) };
}

/** Adds `amounts` to `code` of `into`, or every code of `all`. */
function add(into: ByCode, code: string | undefined, amounts: Amounts | undefined, all?: ByCode): void {
  const entries: [string, Amounts][] = all ? [...all] : [[code!, amounts!]];
  for (const [key, value] of entries) {
    const sum = into.get(key) ?? { pre: 0, post: 0, employer: 0 };
    into.set(key, { pre: sum.pre + value.pre, post: sum.post + value.post, employer: sum.employer + value.employer });
  }
}

function copy(byCode: ByCode | undefined): ByCode {
  return new Map([...(byCode ?? [])].map(([code, amounts]) => [code, { ...amounts }]));
}

function subtract(from: ByCode, less: ByCode): ByCode {
  const result = copy(from);
  for (const [code, amounts] of less) add(result, code, { pre: -amounts.pre, post: -amounts.post, employer: -amounts.employer });
  return result;
}

/** The codes whose amounts differ (zero and absent are the same), as `code: actual != expected` in cents. */
function differences(actual: ByCode, expected: ByCode): string[] {
  const zero = { pre: 0, post: 0, employer: 0 };
  const found: string[] = [];
  for (const code of new Set([...actual.keys(), ...expected.keys()])) {
    const x = actual.get(code) ?? zero;
    const y = expected.get(code) ?? zero;
    if (x.pre !== y.pre || x.post !== y.post || x.employer !== y.employer) {
      found.push(`${code}: ${x.pre}/${x.post}/${x.employer} != ${y.pre}/${y.post}/${y.employer} (cents pre/post/employer)`);
    }
  }
  return found;
}

/** A number in [0, 1) from a string (FNV-1a, then mixed): a deterministic draw that leaves the story's generators alone. */
function share(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193) >>> 0;
  // MurmurHash3's finalizer: FNV's high bits alone are far from uniform over keys this alike (E1-000001, ...).
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  return ((hash ^ (hash >>> 16)) >>> 0) / 0x1_0000_0000;
}
