import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryState } from '../../src/modules/benefit-changes/benefit-change.table.ts';
import { COVERAGE_STATUSES, coverageInForceOn, isCoverage, latestPerLine } from '../../src/modules/coverage/coverage-in-force.ts';
import type { EnrollmentStatus } from '../../src/modules/enrollments/enrollment.table.ts';
import type { LineOfCoverage } from '../../src/modules/plans/plan.table.ts';
import { newId } from '../../src/shared/ids.ts';
import { testDatabaseKind } from '../helpers/database.ts';
import { createMember } from '../helpers/factories.ts';
import { createPlan } from '../helpers/plan-factories.ts';
import { insertEnrollment } from '../helpers/rows.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

/** The date every case is asked about. */
const ON = '2026-06-15';

interface CoverageCase {
  name: string;
  status: EnrollmentStatus;
  line: LineOfCoverage;
  start: string;
  end: string | null;
  /** Delivery state of the benefit change that elected the line, when it has one. */
  change?: DeliveryState;
  /** Cases naming the same enrollment share it (its lines); the others each have their own. */
  enrollment?: string;
  isCoverage: boolean;
  inForceOn: boolean;
}

const YEAR = { start: '2026-01-01', end: '2026-12-31' };
const coverage = (name: string, status: EnrollmentStatus, dates: { start: string; end: string | null } = YEAR) => ({
  name,
  status,
  line: 'medical' as const,
  ...dates,
});

const CASES: CoverageCase[] = [
  // Statuses, over dates containing ON.
  { ...coverage('not_started', 'not_started'), isCoverage: false, inForceOn: false },
  { ...coverage('pending', 'pending'), isCoverage: false, inForceOn: false },
  { ...coverage('approved', 'approved'), change: 'manual', isCoverage: true, inForceOn: true },
  { ...coverage('synced', 'synced'), change: 'completed', isCoverage: true, inForceOn: true },
  { ...coverage('failed: the line the carrier accepted', 'failed'), change: 'completed', enrollment: 'failed', isCoverage: true, inForceOn: true },
  {
    ...coverage('failed: the line the carrier rejected', 'failed'),
    line: 'dental',
    change: 'rejected',
    enrollment: 'failed',
    isCoverage: false,
    inForceOn: false,
  },
  { ...coverage('cancelled', 'cancelled'), isCoverage: false, inForceOn: false },
  // Dates, on approved coverage.
  { ...coverage('starts on the date', 'approved', { start: ON, end: '2026-12-31' }), isCoverage: true, inForceOn: true },
  { ...coverage('starts the day after the date', 'approved', { start: '2026-06-16', end: '2026-12-31' }), isCoverage: true, inForceOn: false },
  { ...coverage('ends on the date', 'approved', { start: '2026-01-01', end: ON }), isCoverage: true, inForceOn: true },
  { ...coverage('ended the day before the date', 'approved', { start: '2026-01-01', end: '2026-06-14' }), isCoverage: true, inForceOn: false },
  { ...coverage('has no end', 'approved', { start: '2026-01-01', end: null }), isCoverage: true, inForceOn: true },
  // Replaced before it started (lastDayWhenReplaced): it ends the day before its start.
  {
    ...coverage('cancelled before it started (ends the day before its start)', 'approved', { start: ON, end: '2026-06-14' }),
    isCoverage: true,
    inForceOn: false,
  },
];

describe(`coverage in force on ${testDatabaseKind()}`, () => {
  let t: TestContext;
  let memberId: string;
  const caseOf = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp();
    const member = await createMember(t.admin);
    memberId = member.id;
    const plans = new Map<LineOfCoverage, { id: string; group: string }>();
    for (const line of ['medical', 'dental'] as const) plans.set(line, await createPlan(t.admin, { employer: member.employer, line_of_coverage: line }));
    const enrollments = new Map<string, string>();
    for (const [position, item] of CASES.entries()) {
      const plan = plans.get(item.line)!;
      const { enrollmentId, enrolledPlanId } = await insertEnrollment(t, { member: memberId, employer: member.employer, planId: plan.id, status: item.status });
      caseOf.set(enrolledPlanId, item.name);
      const shared = item.enrollment === undefined ? undefined : enrollments.get(item.enrollment);
      if (item.enrollment !== undefined && shared === undefined) enrollments.set(item.enrollment, enrollmentId);
      await t.database.db
        .updateTable('enrolled_plans')
        .set({ effective_start: item.start, effective_end: item.end, enrollment_id: shared ?? enrollmentId, position })
        .where('id', '=', enrolledPlanId)
        .execute();
      if (shared !== undefined) await t.database.db.deleteFrom('enrollments').where('id', '=', enrollmentId).execute();
      if (item.change !== undefined) {
        await t.database.db
          .insertInto('benefit_changes')
          .values({
            id: newId('benefit_change'),
            provider_id: t.providerId,
            employer_id: member.employer,
            enrollment_id: shared ?? enrollmentId,
            member_id: memberId,
            line_of_coverage: item.line,
            status: 'new',
            changes: '[]',
            previous_enrollment_plan_id: null,
            next_enrollment_plan_id: enrolledPlanId,
            coverage_start: item.start,
            coverage_end: item.end,
            group_id: plan.group,
            connection_method: 'manual',
            delivery_state: item.change,
            memo: null,
            assignee: null,
            completed_at: item.change === 'completed' ? t.clock.now().toISOString() : null,
            needs_manual_completion: false,
            position: 0,
            created_at: t.clock.now().toISOString(),
          })
          .execute();
      }
    }
  });

  afterAll(async () => {
    await t.close();
  });

  /** The names of the cases whose enrolled plan the filter keeps, each once per row returned. */
  async function casesWhere(filter: ReturnType<typeof isCoverage>): Promise<string[]> {
    const rows = await t.database.db
      .selectFrom('enrolled_plans')
      .innerJoin('enrollments', 'enrollments.id', 'enrolled_plans.enrollment_id')
      .select('enrolled_plans.id')
      .where('enrolled_plans.member_id', '=', memberId)
      .where(filter)
      .execute();
    return rows.map((row) => caseOf.get(row.id) ?? row.id).sort();
  }

  const expected = (kept: (item: CoverageCase) => boolean) =>
    CASES.filter(kept)
      .map((item) => item.name)
      .sort();

  it('when asked for coverage (isCoverage), then it returns approved, synced and the accepted lines of failed enrollments, whatever their dates', async () => {
    expect(await casesWhere(isCoverage())).toEqual(expected((item) => item.isCoverage));
  });

  it(`when asked for coverage in force on ${ON} (coverageInForceOn), then it returns that coverage whose dates contain the day, ends included`, async () => {
    expect(await casesWhere(coverageInForceOn(ON))).toEqual(expected((item) => item.inForceOn));
  });
});

describe('COVERAGE_STATUSES', () => {
  it('when the statuses of coverage are listed, then they are those of the cases isCoverage keeps', () => {
    expect([...new Set(CASES.filter((item) => item.isCoverage).map((item) => item.status))].sort()).toEqual([...COVERAGE_STATUSES].sort());
  });
});

describe('latestPerLine', () => {
  const row = (id: string, line: LineOfCoverage) => ({ id, line_of_coverage: line });
  const cases: [string, ReturnType<typeof row>[], string[]][] = [
    ['there is no coverage', [], []],
    ['each line has one entry', [row('medical', 'medical'), row('dental', 'dental')], ['medical', 'dental']],
    [
      'a replaced medical not yet ended, listed after its successor',
      [row('new', 'medical'), row('old', 'medical'), row('dental', 'dental')],
      ['new', 'dental'],
    ],
    [
      'lines interleaved',
      [row('dental', 'dental'), row('medical', 'medical'), row('old dental', 'dental'), row('vision', 'vision')],
      ['dental', 'medical', 'vision'],
    ],
  ];

  it.each(cases)('when %s, then it keeps the first entry of each line', (_name, rows, kept) => {
    expect(latestPerLine(rows).map((entry) => entry.id)).toEqual(kept);
  });
});
