/**
 * Volumes of an election (docs/decisions.md "Enrollments", Guaranteed issue and Volume rules): what a requested
 * volume puts in force before evidence of insurability, each person's guaranteed issue, and a plan's volume
 * rules on the volumes requested. Pure; table-driven tests through the enrollment rules' and the builder's.
 */
import { inputError, type InputError } from '../../shared/errors.ts';
import { fromCents, toCents, toCentsOrNull } from '../../shared/money.ts';
import { toBasisPoints } from '../plans/pricing.ts';
import { isChildLike } from '../plans/coverage-tier.ts';
import type { VolumeRules } from '../plans/plan.schemas.ts';
import type { DependentFacts } from './enrollment-rules.ts';

export interface VolumeDecision {
  volumeCents: number | null;
  requestedVolumeCents: number | null;
  eoiStatus: 'not_required' | 'pending';
}

/**
 * Evidence of insurability: a requested volume above the person's guaranteed issue needs EOI; until it is
 * approved the coverage is the guaranteed amount. A late entrant (`lateEntrant`) has no guaranteed issue:
 * any amount needs EOI and nothing is in force until it is approved.
 */
export function decideVolume(requestedCents: number | null, guaranteedIssueCents: number | null, lateEntrant = false): VolumeDecision {
  if (requestedCents === null) return { volumeCents: null, requestedVolumeCents: null, eoiStatus: 'not_required' };
  const guaranteed = lateEntrant ? 0 : guaranteedIssueCents;
  if (guaranteed !== null && requestedCents > guaranteed) {
    return { volumeCents: guaranteed, requestedVolumeCents: requestedCents, eoiStatus: 'pending' };
  }
  return { volumeCents: requestedCents, requestedVolumeCents: requestedCents, eoiStatus: 'not_required' };
}

/** The guaranteed issue of a person on a plan: a spouse's or a child's by the plan's volume rules, else the plan's. */
export function guaranteedIssueCents(planGuaranteedIssueCents: number | null, rules: VolumeRules | null, person: 'member' | 'spouse' | 'child'): number | null {
  const own = person === 'spouse' ? rules?.spouse_guaranteed_issue : person === 'child' ? rules?.child_guaranteed_issue : undefined;
  return own === undefined || own === null ? planGuaranteedIssueCents : toCents(own);
}

/** A spouse's largest volume: `spouse_max_percent` of the member's volume, rounded down to the cent; null when the plan sets no share. */
export function spouseMaximumCents(rules: VolumeRules, memberCents: number | null): number | null {
  if (rules.spouse_max_percent === null || rules.spouse_max_percent === undefined) return null;
  return Math.floor(((memberCents ?? 0) * toBasisPoints(rules.spouse_max_percent)) / 10_000);
}

/** Enrollments in the member's initial window, for the late-entrant EOI rule: a new hire's, a rehire's, a newly eligible member's. */
export const INITIAL_ELECTION_REASONS: readonly string[] = ['new_hire', 'rehire', 'new_eligibility'];

/**
 * A plan's volume rules on the requested volumes of one election: the member's a multiple of the increment
 * between the minimum and the maximum; a dependent's a multiple of the increment, a spouse's at most the
 * plan's share of the member's, a child's at most the child maximum.
 */
export function volumeErrors(
  rules: VolumeRules,
  elected: { requestedVolumeCents: number | null; dependents: readonly { dependent: DependentFacts | undefined; requestedVolumeCents: number | null }[] },
  at: (...path: (string | number)[]) => (string | number)[],
): InputError[] {
  const errors: InputError[] = [];
  const increment = toCentsOrNull(rules.increment);
  const inSteps = (volume: number, path: (string | number)[]) => {
    if (increment !== null && increment > 0 && volume % increment !== 0)
      errors.push(inputError(path, `The volume must be a multiple of ${fromCents(increment)}.`));
  };
  const member = elected.requestedVolumeCents;
  if (member !== null) {
    const path = at('requested_volume');
    inSteps(member, path);
    const minimum = toCentsOrNull(rules.minimum);
    const maximum = toCentsOrNull(rules.maximum);
    if (minimum !== null && member < minimum) errors.push(inputError(path, `The volume must be at least ${fromCents(minimum)}.`));
    if (maximum !== null && member > maximum) errors.push(inputError(path, `The volume can be at most ${fromCents(maximum)}.`));
  }
  elected.dependents.forEach(({ dependent, requestedVolumeCents: volume }, index) => {
    if (volume === null || dependent === undefined) return;
    const path = at('enrolled_dependents', index, 'requested_volume');
    inSteps(volume, path);
    if (isChildLike(dependent.relationship)) {
      const childMaximum = toCentsOrNull(rules.child_maximum);
      if (childMaximum !== null && volume > childMaximum) errors.push(inputError(path, `A child's volume can be at most ${fromCents(childMaximum)}.`));
    } else {
      const limit = spouseMaximumCents(rules, member);
      if (limit !== null && volume > limit) {
        errors.push(inputError(path, `A spouse's volume can be at most ${rules.spouse_max_percent}% of the member's requested volume (${fromCents(limit)}).`));
      }
    }
  });
  return errors;
}
