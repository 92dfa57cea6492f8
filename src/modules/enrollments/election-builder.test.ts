import { describe, expect, it } from 'vitest';
import { ValidationFailed, type InputError } from '../../shared/errors.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import type { MemberRow } from '../members/member.table.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import type { PlanRow } from '../plans/plan.table.ts';
import { buildElections, type ElectionFacts, type ElectionRequest } from './election-builder.ts';
import { serviceEnrollmentRow } from './enrollment-lifecycle.ts';
import type { EnrolledPlanInput } from './enrollment.schemas.ts';
import type { EnrollmentRow } from './enrollment.table.ts';
import type { KeptVolumes } from './stored-elections.ts';

// buildElections is pure: every case below is facts in, rows (or every error) out, without a database.

const member: MemberRow = {
  id: 'mem_1',
  provider_id: 'prv_1',
  employer_id: 'emp_1',
  first_name: 'Ada',
  last_name: 'Member',
  dob: '1980-05-01',
  ssn_encrypted: null,
  ssn_last_four: null,
  ssn_digest: null,
  email: null,
  phone_number: null,
  address: '{}',
  hire_date: '2026-02-10',
  termination_date: null,
  original_hire_date: null,
  termination_reason: null,
  date_of_death: null,
  rehire_rule: null,
  biological_sex: null,
  employment_status: 'full_time',
  hours_worked: 40,
  pay_frequency: null,
  payroll_provider_external_id: null,
  job_title: null,
  business_unit_id: null,
  pay_schedule_id: null,
  metadata: '{}',
  created_at: '2026-01-01T00:00:00.000Z',
};

const plan = (id: string, overrides: Partial<PlanRow> = {}): PlanRow => ({
  id,
  provider_id: 'prv_1',
  employer_id: 'emp_1',
  group_id: 'grp_1',
  plan_name: id,
  plan_type: null,
  line_of_coverage: 'medical',
  effective_start: '2026-01-01',
  effective_end: '2026-12-31',
  premium_type: 'composite',
  composite_rates: JSON.stringify({ member: '500.00', member_spouse: '900.00', member_child: '800.00', member_children: '1000.00', member_family: '1400.00' }),
  age_rates: null,
  guaranteed_issue_volume_cents: null,
  requires_primary_care_provider: false,
  aca_child_rating_limit: false,
  volume_rules: null,
  rate_basis: 'flat',
  age_rating_date: 'coverage_start',
  previous_plan_id: null,
  next_plan_id: null,
  metadata: '{}',
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const spouse: DependentRow = {
  id: 'dep_spouse',
  provider_id: 'prv_1',
  employer_id: 'emp_1',
  member_id: 'mem_1',
  first_name: 'Sam',
  middle_name: null,
  last_name: 'Member',
  member_relationship: 'spouse',
  ssn_last_four: null,
  ssn_encrypted: null,
  dob: '1981-03-03',
  biological_sex: null,
  address: null,
  has_disability: false,
  disability_certified_on: null,
  relationship_end_date: null,
  metadata: '{}',
  created_at: '2026-01-01T00:00:00.000Z',
};
const othersChild: DependentRow = { ...spouse, id: 'dep_other', member_id: 'mem_2', member_relationship: 'child' };

const configuration = (planId: string, overrides: Partial<PlanConfigurationRow> = {}): PlanConfigurationRow => ({
  id: `cfg_${planId}`,
  provider_id: 'prv_1',
  employer_id: 'emp_1',
  plan_id: planId,
  waiting_period_days: 30,
  waiting_period_waiver_allowed: false,
  termination_policy: 'end_of_month',
  dependent_age_limit: 26,
  dependent_age_out_rule: 'date_of_birth',
  required_subclass_id: null,
  coverage_start_rule: 'first_of_month_following_waiting_period',
  minimum_hours_per_week: null,
  eligible_employment_statuses: null,
  contribution_strategy: null,
  deduction_code: null,
  tax_treatment: null,
  metadata: '{}',
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const enrollment = (overrides: Partial<EnrollmentRow> = {}): EnrollmentRow => ({
  ...serviceEnrollmentRow(member, {
    status: 'pending',
    reason: 'marriage',
    changeDate: '2026-03-15',
    effectiveStart: '2026-04-01',
    now: '2026-03-02T00:00:00.000Z',
  }),
  id: 'enr_1',
  status: 'not_started',
  submitted_at: null,
  ...overrides,
});

const half = { contribution: '50', monthly_min_threshold: '0.00', monthly_max_threshold: '100000.00' };
const medical = plan('pln_medical');
const life = plan('pln_life', {
  line_of_coverage: 'life',
  premium_type: null,
  composite_rates: null,
  guaranteed_issue_volume_cents: 5_000_000,
});

const facts = (overrides: Partial<ElectionFacts> = {}): ElectionFacts => ({
  plans: new Map([medical, life].map((p) => [p.id, p])),
  dependents: new Map([spouse, othersChild].map((d) => [d.id, d])),
  configurations: new Map([
    [
      medical.id,
      [
        configuration(medical.id, {
          contribution_strategy: JSON.stringify(
            Object.fromEntries(['member', 'member_spouse', 'member_child', 'member_children', 'member_family'].map((tier) => [tier, half])),
          ),
        }),
      ],
    ],
  ]),
  subclassIds: [],
  beneficiaries: new Map(),
  lateEntrants: new Set(),
  ...overrides,
});

const request = (plans: EnrolledPlanInput[], overrides: Partial<ElectionRequest> = {}): ElectionRequest => ({
  enrollment: enrollment(),
  member,
  plans,
  waivers: [],
  now: '2026-03-02T00:00:00.000Z',
  ...overrides,
});

/** The input errors buildElections throws, or [] when it builds. */
function errorsOf(build: () => unknown): InputError[] {
  try {
    build();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    return error.inputErrors ?? [];
  }
}

describe('buildElections', () => {
  it('when the member elects a rated plan with their spouse, then the tier prices it and the configuration splits it', () => {
    const elections = buildElections(facts(), request([{ plan: medical.id, enrolled_dependents: [{ dependent: spouse.id }] }]));
    expect(elections.plans).toMatchObject([
      {
        plan_id: medical.id,
        position: 0,
        effective_start: '2026-04-01',
        effective_end: '2026-12-31',
        premium_cents: 90_000,
        employer_contribution_cents: 45_000,
        member_contribution_cents: 45_000,
      },
    ]);
    expect(elections.dependents).toMatchObject([{ enrolled_plan_id: elections.plans[0]!.id, dependent_id: spouse.id, position: 0 }]);
    expect(elections.lines.get(elections.plans[0]!.id)).toBe('medical');
  });

  const refused: [string, EnrolledPlanInput[], string[][]][] = [
    ['a plan of no employer of the member', [{ plan: 'pln_unknown' }], [['enrolled_plans', '0', 'plan']]],
    [
      "another member's child",
      [{ plan: medical.id, enrolled_dependents: [{ dependent: othersChild.id }] }],
      [['enrolled_plans', '0', 'enrolled_dependents', '0', 'dependent']],
    ],
    ['a premium for a plan with rates', [{ plan: medical.id, premium: '10.00' }], [['enrolled_plans', '0', 'premium']]],
    [
      'designations on a medical plan, and an unknown plan after it',
      [{ plan: medical.id, beneficiary_designations: [{ beneficiary: 'ben_1', designation: 'primary', percentage: '100' }] }, { plan: 'pln_unknown' }],
      [
        ['enrolled_plans', '0', 'beneficiary_designations'],
        ['enrolled_plans', '1', 'plan'],
      ],
    ],
  ];
  it.each(refused)('when the input names %s, then every error is at its path', (_name, plans, paths) => {
    expect(errorsOf(() => buildElections(facts(), request(plans))).map((error) => error.field_path)).toEqual(paths);
  });

  // The life plan's guaranteed issue is 50,000.00.
  const volumes: [string, string, Partial<ElectionFacts>, object][] = [
    ['at most the guaranteed issue', '40000.00', {}, { volume_cents: 4_000_000, requested_volume_cents: 4_000_000, eoi_status: 'not_required' }],
    [
      'above the guaranteed issue: EOI, the guaranteed amount in force',
      '60000.00',
      {},
      { volume_cents: 5_000_000, requested_volume_cents: 6_000_000, eoi_status: 'pending' },
    ],
    [
      'by a late entrant: EOI for any amount, nothing in force',
      '40000.00',
      { lateEntrants: new Set([0]) },
      { volume_cents: 0, requested_volume_cents: 4_000_000, eoi_status: 'pending' },
    ],
  ];
  it.each(volumes)('when a life volume is requested %s, then it is decided so', (_name, requested, overrides, expected) => {
    const elections = buildElections(facts(overrides), request([{ plan: life.id, requested_volume: requested }]));
    expect(elections.plans[0]).toMatchObject(expected);
  });

  it('when a re-election keeps volumes, then they are carried as given, not decided anew', () => {
    const kept: KeptVolumes = {
      member: {
        volume_cents: 6_000_000,
        requested_volume_cents: 6_000_000,
        volume_approved_at: '2026-03-01T00:00:00.000Z',
        eoi_dismissed_at: null,
        eoi_status: 'approved',
      },
      dependents: new Map(),
    };
    const elections = buildElections(facts(), request([{ plan: life.id, requested_volume: '60000.00' }], { kept: [kept] }));
    expect(elections.plans[0]).toMatchObject(kept.member);
  });

  it("when a birth names this year's plan and next year's without a start, then next year's covers from its plan year's first day", () => {
    const medical2027 = plan('pln_medical_2027', { effective_start: '2027-01-01', effective_end: '2027-12-31', previous_plan_id: medical.id });
    const birth = enrollment({ reason: 'new_child', change_date: '2026-12-10', effective_start: '2026-12-10' });
    const elections = buildElections(
      facts({ plans: new Map([medical, medical2027].map((p) => [p.id, p])) }),
      request([{ plan: medical.id }, { plan: medical2027.id }], { enrollment: birth }),
    );
    expect(elections.plans.map((p) => [p.effective_start, p.effective_end])).toEqual([
      ['2026-12-10', '2026-12-31'],
      ['2027-01-01', '2027-12-31'],
    ]);
    // A plan of a later year alone is not moved (submission refuses its start before the plan year).
    expect(
      buildElections(facts({ plans: new Map([[medical2027.id, medical2027]]) }), request([{ plan: medical2027.id }], { enrollment: birth })).plans[0]!
        .effective_start,
    ).toBe('2026-12-10');
  });

  it("when a new hire's enrollment has no start, then the configuration's coverage start rule gives it", () => {
    const newHire = enrollment({ reason: 'new_hire', change_date: member.hire_date, effective_start: null });
    const elections = buildElections(facts(), request([{ plan: medical.id }], { enrollment: newHire }));
    // Hired 2026-02-10, 30 days' wait: eligible 2026-03-12, covered from the first of the month after.
    expect(elections.plans[0]!.effective_start).toBe('2026-04-01');
  });
});
