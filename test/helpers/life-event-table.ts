import type { LifeEventRule } from '../../src/modules/enrollments/life-events.ts';

const persons = (list: readonly string[]) => (list.length === 0 ? 'nobody' : list.join(', '));
const start = { event_date: 'the event date', by_first_of_next_month: 'event date .. 1st of the month after the request', free: 'any (plan rules)' } as const;
const planChange = { never: 'no', with_enrollment: 'when someone is enrolled', always: 'yes' } as const;

/** The life event table as docs/decisions.md shows it: a header and one Markdown row per reason. */
export function lifeEventTableRows(rules: Readonly<Record<string, LifeEventRule>>): string[] {
  return [
    '| reason | window | from | future event | may add | may drop | plan change | coverage starts | source |',
    '|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(rules)
      .map(([reason, rule]) =>
        [
          `\`${reason}\``,
          rule.medicaidChipWindowDays === undefined ? `${rule.windowDays} days` : `${rule.windowDays} days (${rule.medicaidChipWindowDays} for Medicaid/CHIP)`,
          rule.windowFrom === 'hire_date' ? 'hire date on record' : 'change_date',
          rule.futureDays === 0 ? 'no' : `up to ${rule.futureDays} days`,
          persons(rule.add) + (rule.mustAdd ? ` (must add a ${rule.mustAdd})` : ''),
          persons(rule.drop),
          planChange[rule.changePlan],
          start[rule.coverageStart],
          rule.source,
        ].join(' | '),
      )
      .map((row) => `| ${row} |`),
  ];
}
