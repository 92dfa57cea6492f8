import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * COBRA events get their maximum coverage period (29 U.S.C. 1162(2)(A)) and the disability determination that
 * may extend it to 29 months:
 *
 * - `cobra_events.maximum_coverage_months` (18, 29 or 36) and `cobra_events.coverage_period_end` (the last day of
 *   continuation coverage: the event date moved that many months, a day the month lacks becoming its last day);
 * - `cobra_events.disability_person_id`, `disabled_on`, `disability_determined_on` and `disability_recorded_at`:
 *   the Social Security disability determination that extended the event, null without one.
 *
 * Existing events are backfilled from the table of their day: 18 months for termination and reduction_of_hours,
 * 36 for every other type (no event has a disability determination yet).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const date = postgres ? 'date' : 'text';
  const timestamp = postgres ? 'timestamptz' : 'text';
  const columns = [
    ['maximum_coverage_months', 'integer'],
    ['coverage_period_end', date],
    ['disability_person_id', 'text'],
    ['disabled_on', date],
    ['disability_determined_on', date],
    ['disability_recorded_at', timestamp],
  ] as const;
  for (const [column, type] of columns) await db.schema.alterTable('cobra_events').addColumn(column, type).execute();
  // One UPDATE per distinct (type, date): far fewer than the events.
  const pairs = await sql<{ event_type: string; event_date: string }>`select distinct event_type, event_date from cobra_events`.execute(db);
  for (const { event_type, event_date } of pairs.rows) {
    const months = event_type === 'termination' || event_type === 'reduction_of_hours' ? 18 : 36;
    await sql`
      update cobra_events set maximum_coverage_months = ${months}, coverage_period_end = ${sql.raw(postgres ? 'cast(' : '')}${monthsAfter(event_date, months)}${sql.raw(postgres ? ' as date)' : '')}
      where event_type = ${event_type} and event_date = ${sql.raw(postgres ? 'cast(' : '')}${event_date}${sql.raw(postgres ? ' as date)' : '')}
    `.execute(db);
  }
}

/** The date `months` months after `date`; a day the month lacks becomes its last day; past 9999-12-31, that date. */
function monthsAfter(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  const newYear = Math.floor(index / 12);
  if (newYear > 9999) return '9999-12-31';
  const newMonth = (index % 12) + 1;
  const leap = (newYear % 4 === 0 && newYear % 100 !== 0) || newYear % 400 === 0;
  const lastDay = newMonth === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(newMonth) ? 30 : 31;
  return `${String(newYear).padStart(4, '0')}-${String(newMonth).padStart(2, '0')}-${String(Math.min(day, lastDay)).padStart(2, '0')}`;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of [
    'disability_recorded_at',
    'disability_determined_on',
    'disabled_on',
    'disability_person_id',
    'coverage_period_end',
    'maximum_coverage_months',
  ]) {
    await db.schema.alterTable('cobra_events').dropColumn(column).execute();
  }
}
