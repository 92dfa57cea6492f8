import { stringify } from 'csv-stringify/sync';
import { compareDates } from '../../src/shared/dates.ts';
import type { Actions } from './life-events.ts';
import type { SimEmployer, SimMember } from './world.ts';

// A carrier's monthly bill (docs/decisions.md "Premium bills"): carrier A bills each employer for May early in
// June, exactly the premium of the medical coverage our API shows for each member that month (the coverage in
// force on its first day, else the first that starts within it). Such a bill must reconcile to zero: no member
// billed but not covered or covered but not billed, no amount or tier apart. A change that took effect before the
// carrier's correction window (a late birth, a retroactive marriage) may still be reported as such: it is
// counted, never a difference; so is a `deduction_mismatch` whose correction the payroll feed already owes (a
// retroactive change after May's runs). Anything else is a violation of `premium_bill_reconciles`.

export const PREMIUM_BILL = { day: '2026-06-05', period: '2026-05', first: '2026-05-01', last: '2026-05-31' } as const;

interface CoverageItem {
  plan: string;
  effective_start: string;
  premium: string;
}

interface PremiumBill {
  totals: { difference: string };
  members: { member: string | null; discrepancies: { kind: string; message: string }[] }[];
}

/** Carrier A's bill of May for the employer's medical plans, posted and compared. */
export async function premiumBillDay(a: Actions, day: string, world: SimEmployer, members: readonly SimMember[]): Promise<void> {
  const { steps } = a;
  const medical = new Set([world.plans.gold?.id, world.plans.silver?.id].filter((id) => id !== undefined));
  const lines: string[][] = [];
  for (const member of members) {
    if (member.employer !== world) continue;
    const owed = await owedIn(a, member, medical);
    if (owed) lines.push([member.id, PREMIUM_BILL.period, owed.premium]);
  }
  const bill = await steps.expect<PremiumBill>(
    'premium bill',
    a.admin.post(`/groups/${world.groups.medicalA.id}/premium_bills`, {
      content: stringify([['member', 'period', 'amount'], ...lines]),
      member_key: 'member_id',
      period: PREMIUM_BILL.period,
      bill_date: day,
    }),
    201,
  );
  if (!bill) return;
  steps.count('premium_bills');
  steps.count('premium_bill_lines', lines.length);
  const found = bill.members.flatMap((member) => member.discrepancies.map((discrepancy) => ({ member: member.member, ...discrepancy })));
  const late = found.filter((discrepancy) => discrepancy.kind === 'retro_outside_window');
  steps.count('premium_bill_retro_outside_window', late.length);
  // Payroll that took what May owed when it ran, before a retroactive change: the refund or arrears is due in the
  // next run (the feed shows it as an adjustment of a May pay date), not a difference of the bill's.
  const mismatched = found.filter((discrepancy) => discrepancy.kind === 'deduction_mismatch');
  const pending = mismatched.length > 0 ? await membersWithMayAdjustments(a, world, day) : new Set<string>();
  const caughtUp = mismatched.filter((discrepancy) => discrepancy.member !== null && pending.has(discrepancy.member));
  steps.count('premium_bill_deductions_pending', caughtUp.length);
  const differences = found.filter((discrepancy) => discrepancy.kind !== 'retro_outside_window' && !caughtUp.includes(discrepancy));
  if (bill.totals.difference !== '0.00' || differences.length > 0) {
    steps.failures.push({
      day,
      invariant: 'premium_bill_reconciles',
      detail: `${world.name}'s bill of ${PREMIUM_BILL.period}: difference ${bill.totals.difference}; ${differences
        .slice(0, 5)
        .map((discrepancy) => `${discrepancy.member}: ${discrepancy.kind}: ${discrepancy.message}`)
        .join('; ')}`,
    });
  }
}

/** The medical coverage a month owes for: in force on its first day, else the first starting within it. */
async function owedIn(a: Actions, member: SimMember, plans: ReadonlySet<string>): Promise<CoverageItem | undefined> {
  const on = async (date: string) =>
    (await a.steps.expect<{ coverage: CoverageItem[] }>('member coverage', a.admin.get(`/members/${member.id}/coverage?date=${date}`)))?.coverage.find((item) =>
      plans.has(item.plan),
    );
  const first = await on(PREMIUM_BILL.first);
  if (first) return first;
  const later = await on(PREMIUM_BILL.last);
  return later && compareDates(later.effective_start, PREMIUM_BILL.first) > 0 ? later : undefined;
}

/** Members whose payroll feed on `day` adjusts a May pay date (arrears or a refund the next run takes). */
async function membersWithMayAdjustments(a: Actions, world: SimEmployer, day: string): Promise<Set<string>> {
  const members = new Set<string>();
  let page: string | null = `/payroll_deductions?employer=${world.id}&pay_date=${day}&page_size=100`;
  while (page) {
    const body: { results: FeedMember[]; next: string | null } | undefined = await a.steps.expect('payroll deductions', a.admin.get(page));
    for (const row of body?.results ?? []) {
      const adjustsMay = row.lines.some((line) => line.kind === 'adjustment' && line.adjusted_periods.some((date) => date.startsWith(PREMIUM_BILL.period)));
      if (adjustsMay) members.add(row.member);
    }
    page = body?.next ?? null;
  }
  return members;
}

interface FeedMember {
  member: string;
  lines: { kind: 'deduction' | 'adjustment'; adjusted_periods: string[] }[];
}
