/**
 * What a member owes on one pay date, per deduction code, from facts read once (payroll-deduction-facts.ts):
 * the coverage in force on the pay date (the latest per line), each election's monthly amounts per pay period
 * (pay-period-rules.ts) and its imputed income (imputed-income-rules.ts). No database.
 */
import { compareDates } from '../../shared/dates.ts';
import type { PayrollCoverageRow } from '../coverage/payroll-coverage.repository.ts';
import { electionPrice } from '../enrollments/enrollment-pricing.ts';
import { selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { addAmounts, deductionCodeOf, electionAmounts, isNonDependentPartner, taxTreatmentOf, type Amounts } from './deduction-rules.ts';
import { ageAtEndOfTaxYear, domesticPartnerMonthlyCents, section79MonthlyCents } from './imputed-income-rules.ts';
import { amountOnPayDate } from './pay-period-rules.ts';
import { payDatesBetween, type PayScheduleDates } from './pay-schedule-rules.ts';
import type { DeductionFacts } from './payroll-deduction-facts.ts';
import type { TaxTreatment } from './payroll.table.ts';

/** The index (1-based) of each pay date in its plan year, counted once per plan year start and pay date. */
export class PlanYearIndex {
  readonly #schedule: PayScheduleDates;
  readonly #cache = new Map<string, number>();

  constructor(schedule: PayScheduleDates) {
    this.#schedule = schedule;
  }

  indexOf(planStart: string, payDate: string): number {
    const key = `${planStart}|${payDate}`;
    let index = this.#cache.get(key);
    if (index === undefined) {
      index = Math.max(1, payDatesBetween(this.#schedule, planStart, payDate).length);
      this.#cache.set(key, index);
    }
    return index;
  }
}

/** The coverage of each line in force on `date`: the latest-starting (then latest recorded) row per line. */
function inForceOn(rows: readonly PayrollCoverageRow[], date: string): PayrollCoverageRow[] {
  const latest = new Map<string, PayrollCoverageRow>();
  for (const row of rows) {
    if (compareDates(row.effective_start, date) > 0 || (row.effective_end !== null && compareDates(row.effective_end, date) < 0)) continue;
    const held = latest.get(row.line_of_coverage);
    const later =
      held === undefined ||
      compareDates(row.effective_start, held.effective_start) > 0 ||
      (row.effective_start === held.effective_start && row.created_at > held.created_at);
    if (later) latest.set(row.line_of_coverage, row);
  }
  return [...latest.values()];
}

/** The monthly imputed income of one election (§79 life, or a non-dependent partner's health coverage). */
function monthlyImputedIncome(facts: DeductionFacts, row: PayrollCoverageRow, treatment: TaxTreatment, payDate: string): number {
  const memberMonthly = row.member_contribution_cents ?? 0;
  if (row.line_of_coverage === 'life' && treatment === 'imputed') {
    const dob = facts.dobs.get(row.member_id);
    if (dob === undefined) return 0;
    // The member's share under `imputed` is taken after tax, so it reduces the imputed income (26 CFR 1.79-3(a)(3)).
    return section79MonthlyCents({ coverageCents: row.volume_cents ?? 0, age: ageAtEndOfTaxYear(dob, payDate), afterTaxMonthlyCents: memberMonthly });
  }
  const covered = facts.partnerCoverage.get(row.id);
  if (covered === undefined) return 0;
  const member = facts.members.get(row.member_id);
  const plan = facts.plans.get(row.plan_id);
  if (member === undefined || plan === undefined || row.employer_contribution_cents === null) return 0;
  const without = covered.filter((dependent) => !isNonDependentPartner(dependent.member_relationship));
  const price = electionPrice(
    plan,
    facts.configurations.get(row.plan_id) ?? [],
    facts.subclassIds.get(row.member_id) ?? [],
    member,
    without,
    row.effective_start,
    { member: row.volume_cents, dependents: new Map() },
    { plan: row.plan_id },
    [],
    [],
  );
  // A plan without rates cannot be priced again: its client-given figures have no tier without the partner.
  if (price.employer === null || price.premium === null) return 0;
  return domesticPartnerMonthlyCents(row.employer_contribution_cents, price.employer);
}

/** What the member owes on `payDate`, per deduction code. */
export function owedOn(facts: DeductionFacts, memberId: string, schedule: PayScheduleDates, index: PlanYearIndex, payDate: string): Map<string, Amounts> {
  const owed = new Map<string, Amounts>();
  for (const row of inForceOn(facts.coverage.get(memberId) ?? [], payDate)) {
    const configuration = selectPlanConfiguration(facts.subclassIds.get(memberId) ?? [], facts.configurations.get(row.plan_id) ?? []);
    const code = deductionCodeOf(configuration?.deduction_code ?? null, row.line_of_coverage);
    const treatment = taxTreatmentOf(configuration?.tax_treatment ?? null, row.line_of_coverage);
    const position = index.indexOf(row.plan_start, payDate);
    const perPeriod = (monthly: number) => amountOnPayDate(monthly, schedule.frequency, position);
    const amounts = electionAmounts({
      treatment,
      member: perPeriod(row.member_contribution_cents ?? 0),
      employer: perPeriod(row.employer_contribution_cents ?? 0),
      imputedIncome: perPeriod(monthlyImputedIncome(facts, row, treatment, payDate)),
    });
    const held = owed.get(code);
    owed.set(code, held === undefined ? amounts : addAmounts(held, amounts));
  }
  return owed;
}
