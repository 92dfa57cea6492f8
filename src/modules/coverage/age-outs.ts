/**
 * What an age-out does to coverage (docs/decisions.md "The daily sweep", Age-outs end coverage): which covered
 * children lose which coverage, from which day, and what of each plan goes on. Pure functions over dates as
 * 'YYYY-MM-DD' strings; the daily sweep finds the covered children (and drives the notices), the enrollment engine
 * carries the result out (EnrollmentService.endDependentCoverageIn).
 */
import { addDays, addYears, compareDates } from '../../shared/dates.ts';
import { compareIds } from '../../shared/ids.ts';
import { disabilityCertifiedThrough, lastDayAsChild, type AgeOutRule } from '../plan-configurations/eligibility.ts';

/** A child covered on a plan of a member's (the sweep's findCoveredDependents). */
export interface CoveredChild {
  dependent_id: string;
  member_id: string;
  provider_id: string;
  plan_id: string;
  dob: string;
  has_disability: boolean | number | null;
  disability_certified_on: string | null;
  effective_start: string | null;
  effective_end: string | null;
}

/** A covered child and the last day they are covered under the plan configuration that applies. */
export interface AgeOut<T extends CoveredChild = CoveredChild> {
  row: T;
  lastDay: string;
  /** Whether the last day is the disability certification's, past the age limit. */
  certified: boolean;
}

/**
 * The last covered day of a child under the member's configuration of the plan: the day before the age-out
 * the configuration's rule gives (45 CFR 147.120: coverage to age 26 at least, applied through the
 * configured `dependent_age_limit`), or, for a child with a disability certification that still counts, the
 * later of that and the certification's last day (`certified`).
 */
export function ageOutOf<T extends CoveredChild>(row: T, configuration: { dependent_age_limit: number; dependent_age_out_rule: AgeOutRule }): AgeOut<T> {
  const certifiedThrough = disabilityCertifiedThrough(Boolean(row.has_disability), row.disability_certified_on);
  const lastDay = lastDayAsChild(row.dob, configuration.dependent_age_limit, configuration.dependent_age_out_rule, certifiedThrough);
  return { row, lastDay, certified: lastDay === certifiedThrough };
}

/**
 * The latest date of birth of a child whose last covered day can come before `day + withinDays` when the
 * lowest age limit of any configuration is `lowestAgeLimit`: the earliest last day of a child is the day
 * before the limit's birthday (ageOutDate's `date_of_birth` rule; the month and year rules and a disability
 * certification only make it later). Two days more than exact, for February 29 birthdays; each child is then
 * decided on its own (ageOutOf). The daily sweep reads only these children instead of every covered one.
 */
export function ageOutCandidatesBornBy(day: string, withinDays: number, lowestAgeLimit: number): string {
  return addDays(addYears(addDays(day, withinDays + 1), -lowestAgeLimit), 1);
}

/** One member's children leaving coverage from one day: plan id -> the dependents whose coverage on it ends the day before. */
export interface DueAgeOut {
  providerId: string;
  memberId: string;
  firstDayOut: string;
  leaving: Map<string, Set<string>>;
}

/**
 * The age-outs to carry out on `day`, one list per member (earliest first day out first; members in id order,
 * the lock order): children whose last covered day has come (`day` itself, or earlier: a missed day is caught
 * up) on coverage that runs past it. A child already over the limit when the coverage began leaves it from its
 * first day; coverage that ends on the last day or earlier needs nothing.
 */
export function dueAgeOuts(day: string, ageOuts: readonly AgeOut[]): DueAgeOut[][] {
  const due = new Map<string, DueAgeOut>();
  for (const { row, lastDay } of ageOuts) {
    if (compareDates(lastDay, day) > 0) continue;
    if (row.effective_end !== null && compareDates(row.effective_end, lastDay) <= 0) continue;
    const firstDayOut = row.effective_start !== null && compareDates(row.effective_start, lastDay) > 0 ? row.effective_start : addDays(lastDay, 1);
    const key = `${row.member_id}|${firstDayOut}`;
    const entry = due.get(key) ?? { providerId: row.provider_id, memberId: row.member_id, firstDayOut, leaving: new Map<string, Set<string>>() };
    entry.leaving.set(row.plan_id, (entry.leaving.get(row.plan_id) ?? new Set<string>()).add(row.dependent_id));
    due.set(key, entry);
  }
  return [...Map.groupBy(due.values(), (entry) => entry.memberId).values()]
    .map((entries) => entries.sort((a, b) => compareDates(a.firstDayOut, b.firstDayOut)))
    .sort((a, b) => compareIds(a[0]!.memberId, b[0]!.memberId));
}

/**
 * What an age-out does to the member's coverage in force on its first day out (`current`, with who each
 * covers, `covered`): the coverage that covers a leaving child changes (`affected`), and on it everyone else
 * stays (`staying`); coverage covering none of them is left alone. Decided on what is stored now, so that a
 * second run finds nothing affected.
 */
export function ageOutChange<P extends { id: string; plan_id: string }, D extends { enrolled_plan_id: string; dependent_id: string }>(
  current: readonly P[],
  covered: readonly D[],
  leaving: ReadonlyMap<string, ReadonlySet<string>>,
): { affected: P[]; staying: D[] } {
  const leaves = (plan: P, dependentId: string) => leaving.get(plan.plan_id)?.has(dependentId) === true;
  const affected = current.filter((plan) => covered.some((d) => d.enrolled_plan_id === plan.id && leaves(plan, d.dependent_id)));
  const staying = covered.filter((d) => {
    const plan = affected.find((p) => p.id === d.enrolled_plan_id);
    return plan !== undefined && !leaves(plan, d.dependent_id);
  });
  return { affected, staying };
}
