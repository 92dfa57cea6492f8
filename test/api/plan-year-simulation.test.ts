import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DEVELOPMENT_OUTBOUND_ENV, type TestContext } from '../helpers/test-app.ts';
import { createInvariantChecker } from '../simulation/invariants.ts';
import { runPlanYear } from '../simulation/plan-year.ts';

// A plan year in a day (test/simulation/plan-year.ts): three employers, 300 members, every day of 2026 through the
// real API, with the daily sweep and the EDI schedule. The SFTP server runs in this process: the development switch.
// After every day the invariants of test/simulation/invariants.ts are checked (each shown to fail when broken on
// purpose in test/simulation/invariants.test.ts): what changed that day, and everything every 30 days.

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ now: '2026-01-01T12:00:00.000Z', env: DEVELOPMENT_OUTBOUND_ENV });
});
afterAll(async () => {
  await t.close();
});

const EVERY_KIND = [
  'carrier_sync_member',
  'hire',
  'new_hire_enrollment',
  'new_hire_waiver',
  'eoi_requested',
  'eoi_approved',
  'eoi_denied',
  'marriage',
  'birth',
  'birth_retroactive',
  'birth_after_open_enrollment',
  'divorce',
  'death',
  'termination',
  'rehire_reinstated',
  'rehire_elected_anew',
  'age_out',
  'plan_renewed',
  'open_enrollment_same',
  'open_enrollment_switch_carrier',
  'open_enrollment_waive_dental',
  'open_enrollment_window_completed',
  'open_enrollment_passive_members',
  'cobra_termination',
  'cobra_death',
  'cobra_divorce_or_legal_separation',
  'cobra_dependent_ceased_to_be_dependent',
  'edi_files_built',
  'edi_files_uploaded',
  'edi_files_downloaded',
  'edi_files_accepted',
  'edi_files_rejected',
  'edi_files_resent',
  'edi_acknowledgements_picked_up',
  'census_imports',
  'census_left_out',
  'premium_bills',
  'payroll_runs',
  'payroll_adjustments',
];

type Field = 'sweepMs' | 'filesMs' | 'actionsMs';

describe('a plan year in a day', () => {
  it(
    'when three employers live through 2026 day by day, then no step fails, no invariant breaks, and every kind of event happens',
    { timeout: 900_000 },
    async () => {
      const checker = createInvariantChecker({ db: t.database.db, api: t.admin, providerId: t.providerId });
      const started = performance.now();
      const result = await runPlanYear({
        context: t,
        seed: 20260101,
        employers: 3,
        membersPerEmployer: 100,
        start: '2026-01-01',
        days: 365,
        checkDay: (day, files) => checker.checkDay(day, files),
        log: process.env.SIMULATION_LOG ? (line) => console.log(line) : undefined,
      });
      const seconds = (performance.now() - started) / 1000;
      const worst = (field: Field) => Math.round(Math.max(...result.perDay.map((day) => day[field])));
      const total = (field: Field) => (result.perDay.reduce((sum, day) => sum + day[field], 0) / 1000).toFixed(1);
      console.log(
        `plan year: ${result.days} days in ${seconds.toFixed(1)} s (sweeps ${total('sweepMs')} s, actions ${total('actionsMs')} s, files ${total('filesMs')} s); ` +
          `worst day: sweep ${worst('sweepMs')} ms, actions ${worst('actionsMs')} ms, files ${worst('filesMs')} ms`,
      );
      console.log(JSON.stringify(result.counts));

      expect(result.violations).toEqual([]);
      expect(result.days).toBe(365);
      expect(EVERY_KIND.filter((kind) => !(result.counts[kind]! > 0))).toEqual([]);
    },
  );
});
