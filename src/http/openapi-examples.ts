/**
 * The reference's examples and operation descriptions, by `METHOD path`, in one place: openapi-document.ts
 * puts them on the operations (and the webhooks section) when it finishes the document, and
 * test/api/openapi-reference.test.ts validates every example against its schema, so they cannot drift from it.
 * Ids are in the service's format (prefix, underscore, 20 characters); every person and number is invented.
 */

type Json = Record<string, unknown>;

/** An example: a one-line summary and the value. */
export interface Example {
  summary: string;
  value: unknown;
}

/** Per operation: its description, an example request body (where it takes one) and example 2xx bodies by status. */
export interface OperationReference {
  description: string;
  request?: Record<string, Example>;
  responses?: Record<string, Record<string, Example>>;
}

const ids = {
  employer: 'er_0mwtf6e8k00XkqV2n0bY',
  member: 'mem_0mwtf6e8k01Zp3a9QmC1',
  spouse: 'dep_0mwtf6e8k02Lr8Tz4WqH',
  child: 'dep_0mwtf6e8k03Nc2Vb7YxK',
  enrollment: 'enr_0mwtf6e8k04Gh5Jk2MnP',
  enrolledPlanMedical: 'ep_0mwtf6e8k05Rs7Tu9VwX',
  enrolledPlanLife: 'ep_0mwtf6e8k06Ab3Cd5EfG',
  previousEnrolledPlan: 'ep_0mwtf6e8j09Qw2Er4TyU',
  enrolledDependent: 'ed_0mwtf6e8k07Ij6Kl8MnO',
  medicalPlan: 'plan_0mwtf6e8k08Pq1Rs3TuV',
  lifePlan: 'plan_0mwtf6e8k09Xy2Za4BcD',
  previousMedicalPlan: 'plan_0mwtf6e8j08Fg6Hi8JkL',
  beneficiary: 'ben_0mwtf6e8k0aFg7Hi9JkL',
  designation: 'bd_0mwtf6e8k0bNo1Pq3RsT',
  pcp: 'pcp_0mwtf6e8k0cVw5Xy7ZaB',
  window: 'oew_0mwtf6e8k0dDe9Fg1HiJ',
  benefitChange: 'bc_0mwtf6e8k0eLm3No5PqR',
  carrier: 'carr_0mwtf6e8k0fTu7Vw9XyZ',
  group: 'grp_0mwtf6e8k0gBc1De3FgH',
  businessUnit: 'bu_0mwtf6e8k0hJk5Lm7NoP',
  subclass: 'sub_0mwtf6e8k0iRs9Tu1VwX',
  notification: 'ntf_0mwtf6e8k0jZa3Bc5DeF',
  memberIdCard: 'mic_0mwtf6e8k0kHi7Jk9LmN',
  payRate: 'pr_0mwtf6e8k0lPq1Rs3TuV',
  secondMember: 'mem_0mwtf6e8k0mXy5Za7BcD',
  event: 'evt_0mwtf6e8k0nFg9Hi1JkL',
  delivery: 'whd_0mwtf6e8k0oNo3Pq5RsT',
} as const;

const address = { line1: '1200 Harbor Way', line2: 'Apt 4B', city: 'Portland', state: 'OR', zip_code: '97209' };

const enrollment = (status: 'not_started' | 'pending' | 'approved', submittedAt: string | null, approvedAt: string | null) => ({
  id: ids.enrollment,
  member: ids.member,
  employer: ids.employer,
  category: 'open_enrollment',
  status,
  effective_start: '2027-01-01',
  effective_end: '2027-12-31',
  reason: null,
  change_date: null,
  qualifying_life_event_documents: [],
  enrolled_plans: [
    {
      id: ids.enrolledPlanMedical,
      enrollment: ids.enrollment,
      plan: ids.medicalPlan,
      enrolled_dependents: [
        {
          id: ids.enrolledDependent,
          plan: ids.medicalPlan,
          dependent: ids.spouse,
          primary_care_provider: null,
          volume: null,
          requested_volume: null,
          volume_approved_at: null,
          eoi_dismissed_at: null,
          eoi_status: 'not_required',
        },
      ],
      primary_care_provider: { id: ids.pcp, full_name: 'Dr. Priya Nair', is_existing_patient: true, provider_id_number: '1234567893' },
      effective_start: '2027-01-01',
      effective_end: '2027-12-31',
      premium: '1450.00',
      employer_contribution: '1087.50',
      member_contribution: '362.50',
      payroll_provider_external_id: 'MED-EE-SP',
      pay_period: {
        pay_schedule: 'psch_0mwtf6e8k0pQr5St7UvW',
        frequency: 'biweekly',
        periods_per_year: 26,
        member_contribution: '167.30',
        employer_contribution: '501.92',
        last_period_member_contribution: '167.50',
        last_period_employer_contribution: '502.00',
      },
      volume: null,
      requested_volume: null,
      volume_approved_at: null,
      eoi_dismissed_at: null,
      eoi_status: 'not_required',
      beneficiary_designations: [],
      primary_beneficiary_missing: false,
    },
    {
      id: ids.enrolledPlanLife,
      enrollment: ids.enrollment,
      plan: ids.lifePlan,
      enrolled_dependents: [],
      primary_care_provider: null,
      effective_start: '2027-01-01',
      effective_end: '2027-12-31',
      premium: '12.00',
      employer_contribution: '12.00',
      member_contribution: '0',
      payroll_provider_external_id: null,
      pay_period: {
        pay_schedule: 'psch_0mwtf6e8k0pQr5St7UvW',
        frequency: 'biweekly',
        periods_per_year: 26,
        member_contribution: '0.00',
        employer_contribution: '5.53',
        last_period_member_contribution: '0.00',
        last_period_employer_contribution: '5.75',
      },
      volume: '50000',
      requested_volume: '50000',
      volume_approved_at: null,
      eoi_dismissed_at: null,
      eoi_status: 'not_required',
      beneficiary_designations: [{ id: ids.designation, beneficiary: ids.beneficiary, designation: 'primary', percentage: '100' }],
      primary_beneficiary_missing: false,
    },
  ],
  coverage_waivers: [{ id: 'cw_0mwtf6e8k0pVw7Xy9ZaB', line_of_coverage: 'dental', reason: 'covered_by_spouse', member: ids.member, dependent: null }],
  metadata: { hris_enrollment_id: 'OE27-10442' },
  submitted_at: submittedAt,
  approved_at: approvedAt,
  open_enrollment_window: ids.window,
  cancellation_reason: null,
  other_coverage: null,
  medicare_entitled_dependent: null,
  rules_override: null,
  created_at: '2026-11-02T15:04:05.000Z',
});

const createEnrollmentBody = {
  member: ids.member,
  category: 'open_enrollment',
  effective_start: '2027-01-01',
  effective_end: '2027-12-31',
  enrolled_plans: [
    {
      plan: ids.medicalPlan,
      enrolled_dependents: [{ dependent: ids.spouse }],
      primary_care_provider: { full_name: 'Dr. Priya Nair', is_existing_patient: true, provider_id_number: '1234567893' },
      payroll_provider_external_id: 'MED-EE-SP',
    },
    {
      plan: ids.lifePlan,
      requested_volume: '50000',
      beneficiary_designations: [{ beneficiary: ids.beneficiary, designation: 'primary', percentage: '100' }],
    },
  ],
  coverage_waivers: [{ line_of_coverage: 'dental', reason: 'covered_by_spouse', member: ids.member }],
  metadata: { hris_enrollment_id: 'OE27-10442' },
};

const window = (status: string, completedAt: string | null) => ({
  id: ids.window,
  employer: ids.employer,
  start_date: '2026-11-01',
  end_date: '2026-11-30',
  renewal_date: '2027-01-01',
  status,
  completed_at: completedAt,
  completed_member_count: 182,
  incomplete_member_count: 4,
  summaries: [
    {
      member: ids.member,
      line_of_coverage: 'medical',
      status: 'change',
      changes: ['plan_change', 'dependent_change'],
      previous_plan: ids.previousMedicalPlan,
      next_plan: ids.medicalPlan,
    },
  ],
  plans: [ids.medicalPlan, ids.lifePlan],
  enrollment_type: 'active',
  metadata: {},
  created_at: '2026-09-15T14:00:00.000Z',
});

const contribution = (percent: string, min: string, max: string) => ({ contribution: percent, monthly_min_threshold: min, monthly_max_threshold: max });
const contributionStrategy = {
  member: contribution('100', '0', '800.00'),
  member_spouse: contribution('75', '0', '1200.00'),
  member_child: contribution('75', '0', '1000.00'),
  member_children: contribution('70', '0', '1100.00'),
  member_family: contribution('65', '0', '1400.00'),
};

const deleted = (id: string, object: string) => ({ summary: `The ${object.replaceAll('_', ' ')} is deleted`, value: { id, object, deleted: true } });
/** One named example; its name is the summary's first words (`open_enrollment_medical_with`). */
const one = (summary: string, value: unknown) => ({ [exampleName(summary)]: { summary, value } });
const exampleName = (summary: string) =>
  summary
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, 4)
    .join('_');

const WHO_READS = 'Any API key may call it (admin, employer and read_only); an employer key sees its own employer’s records only.';
const WHO_WRITES = 'Admin and employer keys may call it (a read_only key gets 403); an employer key acts on its own employer’s records only.';
const NOT_FOUND = 'A record that does not exist, or belongs to another provider or employer, is a 404.';

/** The seed's 16 endpoints (docs: interface "Endpoints") and the enrollment flow, by `METHOD path`. */
export const OPERATION_REFERENCE: Record<string, OperationReference> = {
  'POST /enrollments': {
    description: `Creates an enrollment in not_started for a member: the plans elected (with dependents, beneficiary designations, primary care providers and requested volumes), the lines of coverage waived, and the category (open_enrollment inside an open window, qle with a reason and change_date for a qualifying life event, new_hire). Eligibility, dates and dependents are checked against the plans' configurations; premiums and contributions are computed. Records an enrollment.created event (and its webhook deliveries) in the same transaction. Setting rules_override takes an admin key. ${WHO_WRITES} An unknown member or an invalid election is a 400 naming the field.`,
    request: one('Open enrollment: medical with the spouse, basic life, dental waived', createEnrollmentBody),
    responses: { '201': one('Created, not yet submitted', enrollment('not_started', null, null)) },
  },
  'POST /enrollments/{public_id}/save_and_submit': {
    description: `Validates every election of a not_started enrollment again and submits it (not_started → pending), ready for approval. Records an enrollment.submitted event and an enrollment_submitted notification for the employer in the same transaction. Takes no body (an empty object is accepted). ${WHO_WRITES} ${NOT_FOUND} An enrollment that is not not_started is a 409; an election that no longer holds (a plan ended, a dependent aged out) is a 400 naming it.`,
    request: one('No fields', {}),
    responses: { '200': one('Submitted', enrollment('pending', '2026-11-03T16:20:00.000Z', null)) },
  },
  'POST /enrollments/{public_id}/approve': {
    description: `Approves a pending enrollment (pending → approved) and sends its changes to the carriers: one benefit change per line of coverage, delivered by each group's connection method (api, edi: an 834 file, or manual completion). Records the enrollment.approved and benefit_change.created events and an enrollment_approved notification for the member in the same transaction; deliveries to carriers and webhooks happen afterwards. Takes no body. ${WHO_WRITES} ${NOT_FOUND} An enrollment that is not pending is a 409.`,
    request: one('No fields', {}),
    responses: { '200': one('Approved', enrollment('approved', '2026-11-03T16:20:00.000Z', '2026-11-04T09:12:44.000Z')) },
  },
  'GET /enrollments/{public_id}/benefit_changes': {
    description: `Lists every benefit change an approved enrollment caused, one per line of coverage: what changed against the previous coverage, the coverage dates and where its delivery to the carrier stands. Not paginated (an enrollment has a few). ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('Medical changed at approval', [
        {
          id: ids.benefitChange,
          enrollment: ids.enrollment,
          line_of_coverage: 'medical',
          status: 'change',
          changes: ['plan_change', 'dependent_change'],
          previous_enrollment_plan: ids.previousEnrolledPlan,
          next_enrollment_plan: ids.enrolledPlanMedical,
          coverage_start: '2027-01-01',
          coverage_end: '2027-12-31',
          connection_method: 'edi',
          memo: null,
          assignee: null,
          completed_at: null,
          needs_manual_completion: false,
          delivery_state: 'sent',
          created_at: '2026-11-04T09:12:44.000Z',
        },
      ]),
    },
  },
  'GET /dependents/{public_id}': {
    description: `Returns one dependent of a member: relationship, date of birth, address, disability certification and the enrolled plans that cover them. The SSN is never returned, only its last four digits. ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('A spouse covered by medical', {
        id: ids.spouse,
        member: ids.member,
        first_name: 'Alex',
        middle_name: null,
        last_name: 'Rivera',
        member_relationship: 'spouse',
        relationship_end_date: null,
        ssn_last_four: '6789',
        dob: '1988-04-12',
        biological_sex: 'female',
        address,
        enrolled_plans: [ids.enrolledPlanMedical],
        has_disability: false,
        disability_certified_on: null,
        disability_certification_expires_on: null,
        metadata: {},
        created_at: '2026-03-02T15:00:00.000Z',
      }),
    },
  },
  'GET /open_enrollment_windows/{public_id}/change_report': {
    description: `Returns the window's change report in the shape of an open enrollment window: per member and line of coverage, whether the member's coverage for the renewal is new, a change, no_change or removed against the previous plan year, with the counts of members who completed or did not complete their enrollment. Read-only, no side effects. ${WHO_READS} ${NOT_FOUND}`,
    responses: { '200': one('The change report of an active window', window('active', null)) },
  },
  'POST /open_enrollment_windows/{public_id}/complete': {
    description: `Completes a closed open enrollment window (closed → completed) and freezes its completed and incomplete member counts. For a passive window the same transaction queues the job that carries the elections of every member who did nothing into the new period. Records an open_enrollment_window.completed event in the same transaction. Takes no body. ${WHO_WRITES} ${NOT_FOUND} A window that is not closed is a 409.`,
    request: one('No fields', {}),
    responses: { '200': one('Completed', window('completed', '2026-12-02T10:00:00.000Z')) },
  },
  'GET /open_enrollment_windows/{public_id}/incomplete_members_report': {
    description: `Lists the eligible members of the window without a submitted enrollment (none at all, or one still not_started), with the status of their enrollment, so that HR can follow up: a page at a time, or every row as CSV (header row first) with ?format=csv. Read-only, no side effects. ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('One page of members still to enroll', {
        next: null,
        previous: null,
        results: [
          {
            member: ids.secondMember,
            first_name: 'Jordan',
            last_name: 'Okafor',
            email: 'jordan.okafor@example.com',
            enrollment: null,
            enrollment_status: null,
          },
          {
            member: ids.member,
            first_name: 'Sam',
            last_name: 'Rivera',
            email: 'sam.rivera@example.com',
            enrollment: ids.enrollment,
            enrollment_status: 'not_started',
          },
        ],
      }),
    },
  },
  'GET /business_units/{public_id}': {
    description: `Returns one business unit of an employer: the legal entity (name, federal EIN, address) its members are employed and reported by. ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('The primary business unit', {
        id: ids.businessUnit,
        public_id: ids.businessUnit,
        employer: ids.employer,
        legal_name: 'Harbor Logistics LLC',
        trade_name: 'Harbor Logistics',
        federal_ein: '12-3456789',
        is_primary: true,
        address: { ...address, line1: '500 Commerce St', line2: 'Suite 300' },
        phone_number: '5035550142',
        email: 'benefits@harbor-logistics.example.com',
        metadata: {},
        created_at: '2026-03-02T15:00:00.000Z',
      }),
    },
  },
  'GET /subclasses/{public_id}': {
    description: `Returns one subclass of an employer (a department, location or other category members are sorted by for eligibility and contribution rules). ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('A department', {
        id: ids.subclass,
        category: 'department',
        name: 'Warehouse',
        employer: ids.employer,
        is_default: false,
        created_at: '2026-03-02T15:00:00.000Z',
      }),
    },
  },
  'GET /groups/{public_id}': {
    description: `Returns one group: the employer's policy with a carrier (its group number) and how benefit changes reach that carrier (api, edi or manual). ${WHO_READS} ${NOT_FOUND}`,
    responses: {
      '200': one('A group sent by EDI 834', {
        id: ids.group,
        group_number: 'GRP-004417',
        carrier: ids.carrier,
        employer: ids.employer,
        connection_method: 'edi',
        metadata: {},
        created_at: '2026-03-02T15:00:00.000Z',
      }),
    },
  },
  'GET /carriers/{public_id}': {
    description: `Returns one insurance carrier. Carriers belong to the provider, not to one employer: any of its API keys may read them (admin, employer and read_only), and only a provider-wide key that may write (not an employer or read_only key) creates or changes them. ${NOT_FOUND}`,
    responses: {
      '200': one('A carrier', {
        id: ids.carrier,
        legal_name: 'Cascade Mutual Insurance Company',
        trade_name: 'Cascade Health',
        logo_url: 'https://cdn.example.com/carriers/cascade-health.png',
        created_at: '2026-03-02T15:00:00.000Z',
      }),
    },
  },
  'POST /plan_configurations/{public_id}/contribution_strategy': {
    description: `Sets how much of the premium the employer pays for a plan configuration, per coverage tier (all five tiers required): a percentage of the premium between monthly minimum and maximum amounts. Records a plan_configuration.updated event in the same transaction. ${WHO_WRITES} ${NOT_FOUND} A missing tier or a percentage above 100 is a 400.`,
    request: one('Employee-only paid in full, dependents tiers at 65–75% up to a cap', contributionStrategy),
    responses: { '200': one('The strategy as stored', contributionStrategy) },
  },
  'GET /beneficiaries': {
    description: `Lists beneficiaries (the people a member names to receive life and AD&D benefits), one page at a time (next and previous are cursors); ?member= narrows the list to one member's. The tax id is never returned, only its last four digits. ${WHO_READS}`,
    responses: {
      '200': one('One page', {
        next: null,
        previous: null,
        results: [
          {
            id: ids.beneficiary,
            member: ids.member,
            full_name: 'Alex Rivera',
            member_relationship: 'spouse',
            tin_last_four: '6789',
            address: { ...address, line2: null },
            phone_number: '5035550199',
            dob: '1988-04-12',
            created_at: '2026-03-02T15:00:00.000Z',
          },
        ],
      }),
    },
  },
  'DELETE /member_id_cards/{public_id}': {
    description: `Permanently deletes a member ID card. Enrolled plans and dependents that used the card lose their assignment; a linked document, if any, is kept. Records a member_id_card.deleted event in the same transaction. ${WHO_WRITES} ${NOT_FOUND}`,
    responses: { '200': { deleted: deleted(ids.memberIdCard, 'member_id_card') } },
  },
  'DELETE /members/{public_id}': {
    description: `Permanently deletes a member record with its enrollments, dependents, beneficiaries, pay rates and ID cards, for records that must no longer exist (an entry error); documents are kept and unlinked. A member who left is recorded by setting termination_date instead, so that the carrier is told and the history stays. Records member.deleted and the deleted records' events in the same transaction. ${WHO_WRITES} ${NOT_FOUND} A member whose coverage was already sent to a carrier is a 409.`,
    responses: { '200': { deleted: deleted(ids.member, 'member') } },
  },
  'DELETE /pay_rates/{public_id}': {
    description: `Deletes a pay rate of a member; salary-based volumes (life, disability) are computed from the pay rates left. Records a pay_rate.deleted event in the same transaction. ${WHO_WRITES} ${NOT_FOUND}`,
    responses: { '200': { deleted: deleted(ids.payRate, 'pay_rate') } },
  },
  'GET /notifications': {
    description: `Lists the notifications the service recorded for members, employers and brokers (enrollment_submitted, enrollment_approved, member_terminated, welcome, newly_eligible, dependent_age_out, open_enrollment_kickoff, open_enrollment_reminder), newest first, one page at a time; narrow them with notification_type (one or more), related_object_type and related_object_id. The payload carries ids, never SSNs. Each notification is also an event (notification.created) for webhooks. ${WHO_READS}`,
    responses: {
      '200': one('One page', {
        next: null,
        previous: null,
        results: [
          {
            id: ids.notification,
            notification_type: 'enrollment_submitted',
            related_object_type: 'enrollment',
            related_object_id: ids.enrollment,
            payload: { enrollment: ids.enrollment, member: ids.member, employer: ids.employer },
            owner: 'employer',
            created_at: '2026-11-03T16:20:00.000Z',
          },
        ],
      }),
    },
  },
};

/** An event as a webhook delivery carries it (the body of every delivery; see docs/webhooks.md). */
const event = (eventType: string, objectType: string, objectId: string, data: Json) => ({
  id: ids.event,
  object: 'event',
  event_type: eventType,
  object_type: objectType,
  object_id: objectId,
  employer: ids.employer,
  data,
  created_at: '2026-11-04T09:12:44.000Z',
});

/** One example delivery body per group of event types. */
export const WEBHOOK_EXAMPLES: Record<string, Example> = {
  enrollment: {
    summary: 'enrollment.* (here enrollment.approved)',
    value: event('enrollment.approved', 'enrollment', ids.enrollment, {
      member: ids.member,
      employer: ids.employer,
      status: 'approved',
      category: 'open_enrollment',
      open_enrollment_window: ids.window,
      rules_overridden: false,
    }),
  },
  record: {
    summary: 'created, updated, deleted of a record (here member.created)',
    value: event('member.created', 'member', ids.member, { employer: ids.employer }),
  },
  benefit_change: {
    summary: 'benefit_change.* (here benefit_change.completed)',
    value: event('benefit_change.completed', 'benefit_change', ids.benefitChange, {
      enrollment: ids.enrollment,
      member: ids.member,
      employer: ids.employer,
      line_of_coverage: 'medical',
      status: 'change',
      delivery_state: 'completed',
    }),
  },
  notification: {
    summary: 'notification.created',
    value: event('notification.created', 'notification', ids.notification, {
      notification_type: 'enrollment_submitted',
      related_object_type: 'enrollment',
      related_object_id: ids.enrollment,
      owner: 'employer',
    }),
  },
  webhook_endpoint: {
    summary: 'webhook_endpoint.* (here webhook_endpoint.disabled: no employer)',
    value: {
      ...event('webhook_endpoint.disabled', 'webhook_endpoint', 'whe_0mwtf6e8k0qDe1Fg3HiJ', { disabled: true, disabled_reason: 'failing' }),
      employer: null,
    },
  },
};

export const WEBHOOK_DELIVERY_IDS = { event: ids.event, delivery: ids.delivery };
