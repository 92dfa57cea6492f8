/**
 * How long COBRA continuation coverage must be offered after a qualifying event (29 U.S.C. 1162(2)(A); the
 * Code's twin 26 U.S.C. 4980B(f)(2)(B), read with 26 CFR 54.4980B-7 Q&A-4), and the disability extension to 29
 * months (1162(2)(A)(viii)). Pure functions over dates as 'YYYY-MM-DD'; the service records their answers.
 *
 * Counted from the qualifying event, as the statute counts: coverage runs "ending not earlier than ... the date
 * which is 18 months after the date of the qualifying event" (1162(2)(A)(i)), so `coverage_period_end`, the
 * last day of continuation coverage, is the event date moved that many months (a day missing from the month,
 * Jan 31 + 1 month, is its last day). A plan may count from the loss of coverage instead (29 U.S.C. 1167(5),
 * optional extension of required periods): that is the plan's choice, not recorded here
 * (docs/decisions.md "COBRA events", Length).
 */
import { addDays, addMonths, compareDates } from '../../shared/dates.ts';
import { inputError, type InputError } from '../../shared/errors.ts';
import type { CobraEventType } from './cobra-event.table.ts';

export interface MaximumCoveragePeriod {
  months: number;
  citation: string;
}

/** Event type -> its maximum coverage period. Every event type is classified, so a new one cannot compile without one. */
export const MAXIMUM_COVERAGE_PERIODS: Record<CobraEventType, MaximumCoveragePeriod> = {
  termination: { months: 18, citation: '29 U.S.C. 1162(2)(A)(i): 18 months after a qualifying event of 1163(2) (termination or reduction of hours)' },
  reduction_of_hours: { months: 18, citation: '29 U.S.C. 1162(2)(A)(i): 18 months after a qualifying event of 1163(2) (termination or reduction of hours)' },
  death: { months: 36, citation: '29 U.S.C. 1162(2)(A)(iv): 36 months after any other qualifying event (1163(1), death)' },
  divorce_or_legal_separation: { months: 36, citation: '29 U.S.C. 1162(2)(A)(iv): 36 months after any other qualifying event (1163(3))' },
  medicare_entitlement: { months: 36, citation: '29 U.S.C. 1162(2)(A)(iv): 36 months after any other qualifying event (1163(4))' },
  dependent_ceased_to_be_dependent: { months: 36, citation: '29 U.S.C. 1162(2)(A)(iv): 36 months after any other qualifying event (1163(5))' },
};

/**
 * 29 U.S.C. 1162(2)(A)(viii), special rule for disability: a qualified beneficiary determined under title II or
 * XVI of the Social Security Act to have been disabled at any time during the first 60 days of continuation
 * coverage turns the 18 months of clause (i) into 29, for all qualified beneficiaries of the event, if notice of
 * the determination is given before the end of the 18 months. Only events of clause (i) have 18 months to extend.
 */
export const DISABILITY_EXTENSION = {
  months: 29,
  eventTypes: ['termination', 'reduction_of_hours'] as readonly CobraEventType[],
  /** "the first 60 days of continuation coverage": continuation coverage starts on the first day without coverage. */
  firstDays: 60,
  /** 29 U.S.C. 1166(a)(3): notice "within 60 days after the date of the determination"; 29 CFR 2590.606-3 lets it run from the later qualifying event or loss of coverage. */
  noticeDays: 60,
  citation: '29 U.S.C. 1162(2)(A)(viii); 1166(a)(3); 29 CFR 2590.606-3',
} as const;

/** The months and the last day of continuation coverage of an event (extended to 29 months by a disability determination). */
export function coveragePeriodOf(eventType: CobraEventType, eventDate: string, disabilityExtended = false): { months: number; end: string } {
  const months =
    disabilityExtended && DISABILITY_EXTENSION.eventTypes.includes(eventType) ? DISABILITY_EXTENSION.months : MAXIMUM_COVERAGE_PERIODS[eventType].months;
  return { months, end: addMonths(eventDate, months) };
}

export interface DisabilityDetermination {
  /** The first day the Social Security Administration found the person disabled. */
  disabledOn: string;
  /** The day of the SSA's determination. */
  determinedOn: string;
}

/**
 * What keeps a disability determination, notified `today`, from extending an event: 400 errors on the request's
 * fields. The event's type is checked by the caller (409: not an event of 1162(2)(A)(i)).
 */
export function disabilityDeterminationProblems(
  event: { eventType: CobraEventType; eventDate: string; coverageLostDate: string },
  determination: DisabilityDetermination,
  today: string,
): InputError[] {
  const errors: InputError[] = [];
  const { disabledOn, determinedOn } = determination;
  // 1162(2)(A)(viii): "disabled at any time during the first 60 days of continuation coverage" (a disability
  // that began before and goes on counts): the first day of continuation coverage is the coverage_lost_date.
  const lastDisabledDay = addDays(event.coverageLostDate, DISABILITY_EXTENSION.firstDays - 1);
  const disabledLate = compareDates(disabledOn, lastDisabledDay) > 0;
  if (disabledLate) {
    errors.push(inputError(['disabled_on'], `The disability must have begun during the first 60 days of continuation coverage (by ${lastDisabledDay}).`));
  }
  if (compareDates(determinedOn, today) > 0) errors.push(inputError(['determined_on'], 'The determination date cannot be in the future.'));
  else if (compareDates(disabledOn, determinedOn) > 0) {
    if (!disabledLate) errors.push(inputError(['disabled_on'], 'The disability cannot begin after the determination that found it.'));
  } else {
    // 1166(a)(3) with 29 CFR 2590.606-3: notice within 60 days after the latest of the determination, the event and the loss of coverage.
    const from = [determinedOn, event.eventDate, event.coverageLostDate].sort(compareDates).at(-1)!;
    const noticeBy = addDays(from, DISABILITY_EXTENSION.noticeDays);
    if (compareDates(today, noticeBy) > 0) {
      errors.push(inputError(['determined_on'], `Notice of a disability determination is due within 60 days (by ${noticeBy}); it is late.`));
    }
    // 1162(2)(A)(viii): notice "before the end of such 18 months".
    const eighteenMonthsEnd = coveragePeriodOf(event.eventType, event.eventDate).end;
    if (compareDates(today, eighteenMonthsEnd) > 0) {
      errors.push(
        inputError(['determined_on'], `Notice of a disability determination must be given before the 18 months of coverage end (${eighteenMonthsEnd}).`),
      );
    }
  }
  return errors;
}
