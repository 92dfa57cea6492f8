import type { ApiClient, TestContext } from '../helpers/test-app-core.ts';
import { address, createCarrier, createEmployer, createGroup } from '../helpers/factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import { SFTP_TEST_USER, type SftpTestServer } from '../helpers/sftp-server.ts';
import { createPaySchedules, type SimPaySchedule } from './payroll.ts';
import type { Random } from './random.ts';
import type { Steps } from './steps.ts';

// The simulated world: employers with groups on carriers, plans of the plan year, EDI profiles, and the members
// and families the story moves. Set up through the API as an HR platform would.

export type Line = 'medical' | 'dental' | 'vision' | 'life';
export type GroupKey = 'medicalA' | 'medicalB' | 'dental' | 'vision' | 'life';
export type PlanKey = 'gold' | 'silver' | 'bronze' | 'dental' | 'vision' | 'life';

export interface SimGroup {
  id: string;
  key: GroupKey;
  /** ISA08/GS03 of the carrier (the sender of its acknowledgements). */
  carrierCode: string;
  delivery: 'sftp' | 'download' | 'api';
  /** The SFTP folder the carrier leaves its acknowledgements in. */
  outbound?: string;
}

export interface SimPlan {
  id: string;
  key: PlanKey;
  line: Line;
  group: GroupKey;
}

export interface SimEmployer {
  index: number;
  id: string;
  name: string;
  waitingPeriodDays: number;
  groups: Record<GroupKey, SimGroup>;
  /** The plan year's plans (no bronze: carrier B's plan starts with the next plan year). */
  plans: Partial<Record<PlanKey, SimPlan>>;
  /** Next plan year's plans, once renewed. */
  next: Partial<Record<PlanKey, SimPlan>>;
  windowId?: string;
  /** Its pay schedules, the default (biweekly) first (payroll.ts). */
  paySchedules: SimPaySchedule[];
}

const employeeNumbers = new WeakMap<SimEmployer, number>();

/** The next employee id of the employer's payroll (E<employer>-<number>), in the order members are drawn. */
export function nextEmployeeId(world: SimEmployer): string {
  const number = (employeeNumbers.get(world) ?? 0) + 1;
  employeeNumbers.set(world, number);
  return `E${world.index + 1}-${String(number).padStart(6, '0')}`;
}

export type MemberState = 'active' | 'leaving' | 'terminated' | 'dead';

export interface SimMember {
  id: string;
  /** The payroll's employee id (`payroll_provider_external_id`): what a census file names the member by. */
  employeeId: string;
  employer: SimEmployer;
  hireDate: string;
  state: MemberState;
  terminationDate?: string;
  spouse?: string;
  /** The day the spouse was married or entered (a divorce comes later). */
  spouseSince?: string;
  /** The last day of the member's last marriage that ended in a divorce (a remarriage comes after it). */
  divorcedOn?: string;
  /** Spouses divorced, with the marriage's last day: not carried into an election from after it, whatever the coverage still shows until the sweep ends theirs. */
  formerSpouses?: { id: string; ended: string }[];
  children: { id: string; dob: string }[];
  /** The member's own pay schedule (else the employer's default). */
  paySchedule?: string;
  /** A life election waiting for its EOI decision. */
  eoi?: { enrollment: string; enrolledPlan: string; decideOn: string };
  /** The day the member chooses in open enrollment, and what (else the passive carry-over chooses). */
  openEnrollment?: { day: string; choice: 'same' | 'switch_carrier' | 'waive_dental' };
  /** The day a terminated member comes back. */
  rehireOn?: string;
}

export interface PlannedHire {
  employer: SimEmployer;
  hireDate: string;
  enrollOn: string;
  waive: boolean;
  life?: 'within' | 'eoi';
  /** The pay schedule the hire is assigned to (else the employer's default). */
  paySchedule?: string;
}

const FIRST_NAMES = [
  'Ana',
  'Ben',
  'Cara',
  'Dev',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivan',
  'June',
  'Kai',
  'Lena',
  'Milo',
  'Nia',
  'Omar',
  'Pia',
  'Quin',
  'Rosa',
  'Sam',
  'Tess',
];
const LAST_NAMES = [
  'Adams',
  'Baker',
  'Chen',
  'Diaz',
  'Evans',
  'Foster',
  'Garcia',
  'Hughes',
  'Iyer',
  'Jones',
  'Khan',
  'Lopez',
  'Moore',
  'Novak',
  'Ortiz',
  'Patel',
];

const CARRIERS: Record<GroupKey, { name: string; code: string }> = {
  medicalA: { name: 'Acme Health Co', code: 'ACMEHEALTH' },
  medicalB: { name: 'Beta Health Plans', code: 'BETAHEALTH' },
  dental: { name: 'Smile Dental Inc', code: 'SMILEDENTAL' },
  vision: { name: 'Clear Vision Co', code: 'CLEARVISION' },
  life: { name: 'Steady Life Ins', code: 'STEADYLIFE' },
};

/** Draws a name; the X12 character set only. */
export function personName(random: Random): { first_name: string; last_name: string } {
  return { first_name: random.pick(FIRST_NAMES), last_name: random.pick(LAST_NAMES) };
}

export function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** A date of `year` drawn uniformly (days 1..28, so every month has it). */
export function dateIn(random: Random, year: number): string {
  return `${year}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
}

async function created(steps: Steps, label: string, make: Promise<{ id: string }>): Promise<{ id: string }> {
  try {
    return await make;
  } catch (error) {
    // Setup cannot go on without its records: a failure here stops the run.
    steps.log(`setup failed: ${label}`);
    throw error;
  }
}

/** Carriers shared by every employer, one per group kind. */
export async function createCarriers(admin: ApiClient, steps: Steps): Promise<Record<GroupKey, string>> {
  const ids = {} as Record<GroupKey, string>;
  for (const [key, carrier] of Object.entries(CARRIERS) as [GroupKey, { name: string }][]) {
    ids[key] = (await created(steps, `carrier ${key}`, createCarrier(admin, { legal_name: carrier.name, trade_name: carrier.name }))).id;
  }
  return ids;
}

/**
 * An employer with five groups (medical on two carriers, dental and vision by EDI, voluntary life by API), the
 * plan year's plans and their configurations (the employer's waiting period, first of the month after it), and
 * an EDI profile per EDI group: the first employer's medical and dental go over SFTP, the rest by download.
 */
export async function createEmployerWorld(
  t: TestContext,
  steps: Steps,
  options: { index: number; carriers: Record<GroupKey, string>; sftp: SftpTestServer | undefined; waitingPeriodDays: number },
): Promise<SimEmployer> {
  const { index, carriers, sftp } = options;
  const admin = t.admin;
  const name = `Sim Employer ${index + 1} Inc`;
  const employer = await created(steps, 'employer', createEmployer(admin, { legal_name: name, address: address() }));
  const groups = {} as Record<GroupKey, SimGroup>;
  for (const key of Object.keys(CARRIERS) as GroupKey[]) {
    const connection = key === 'life' ? 'api' : 'edi';
    const group = await created(
      steps,
      `group ${key}`,
      createGroup(admin, { employer: employer.id, carrier: carriers[key], connection_method: connection, group_number: `E${index + 1}-${key.toUpperCase()}` }),
    );
    const overSftp = sftp !== undefined && index === 0 && (key === 'medicalA' || key === 'dental');
    const folder = `/e${index + 1}-${key.toLowerCase()}`;
    groups[key] = {
      id: group.id,
      key,
      carrierCode: CARRIERS[key].code,
      delivery: connection === 'api' ? 'api' : overSftp ? 'sftp' : 'download',
      ...(overSftp ? { outbound: `${folder}/outbound` } : {}),
    };
    if (connection !== 'edi') continue;
    const delivery = overSftp
      ? {
          method: 'sftp',
          host: sftp.host,
          port: sftp.port,
          username: SFTP_TEST_USER.username,
          password: SFTP_TEST_USER.password,
          host_key_fingerprint: sftp.hostKeyFingerprint,
          inbound_directory: `${folder}/inbound`,
          outbound_directory: `${folder}/outbound`,
        }
      : { method: 'download' };
    const profile = await admin.request('PUT', `/groups/${group.id}/edi_profile`, {
      body: {
        interchange_sender: { qualifier: 'ZZ', id: 'BENEFITSCO' },
        interchange_receiver: { qualifier: 'ZZ', id: CARRIERS[key].code },
        application_sender_code: 'BENEFITSCO',
        application_receiver_code: CARRIERS[key].code,
        sponsor: { name, tax_id: `12345678${index % 10}` },
        payer: { name: CARRIERS[key].name, id: '987654321' },
        companion_guide: { subscriber_id_source: 'member_id' },
        schedule: { time: '17:00', time_zone: 'America/Chicago' },
        delivery,
      },
    });
    if (profile.status !== 200) throw new Error(`EDI profile of ${key}: ${profile.status} ${profile.text}`);
  }
  const world: SimEmployer = { index, id: employer.id, name, waitingPeriodDays: options.waitingPeriodDays, groups, plans: {}, next: {}, paySchedules: [] };
  world.paySchedules = await createPaySchedules(admin, steps, world);
  world.plans.gold = await createSimPlan(admin, world, 'gold', { plan_name: 'Gold PPO', premium_type: 'composite', composite_rates: compositeRates() });
  world.plans.silver = await createSimPlan(admin, world, 'silver', {
    plan_name: 'Silver PPO',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '400.00', member_family: '1300.00' }),
  });
  world.plans.dental = await createSimPlan(admin, world, 'dental', {
    plan_name: 'Dental Plus',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '40.00', member_spouse: '80.00', member_child: '70.00', member_children: '100.00', member_family: '120.00' }),
  });
  world.plans.vision = await createSimPlan(admin, world, 'vision', {
    plan_name: 'Vision Care',
    premium_type: 'composite',
    composite_rates: compositeRates({ member: '8.00', member_spouse: '15.00', member_child: '14.00', member_children: '20.00', member_family: '24.00' }),
  });
  world.plans.life = await createSimPlan(admin, world, 'life', { plan_name: 'Voluntary Life', guaranteed_issue_volume: '50000.00' }, false);
  return world;
}

const PLAN_LINES: Record<PlanKey, { line: Line; group: GroupKey }> = {
  gold: { line: 'medical', group: 'medicalA' },
  silver: { line: 'medical', group: 'medicalA' },
  bronze: { line: 'medical', group: 'medicalB' },
  dental: { line: 'dental', group: 'dental' },
  vision: { line: 'vision', group: 'vision' },
  life: { line: 'life', group: 'life' },
};

/** A plan with its configuration (and contribution strategy when priced). */
export async function createSimPlan(admin: ApiClient, world: SimEmployer, key: PlanKey, body: Record<string, unknown>, strategy = true): Promise<SimPlan> {
  const { line, group } = PLAN_LINES[key];
  const plan = await createPlan(admin, { group: world.groups[group].id, line_of_coverage: line, ...body });
  const configuration = await createPlanConfiguration(admin, {
    plan: plan.id,
    waiting_period_days: world.waitingPeriodDays,
    coverage_start_rule: 'first_of_month_following_waiting_period',
  });
  if (strategy) {
    const response = await admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy());
    if (response.status !== 200) throw new Error(`contribution strategy: ${response.status} ${response.text}`);
  }
  return { id: plan.id, key, line, group };
}

/** Every plan of the employer, this year's and next, by id. */
export function plansById(world: SimEmployer): Map<string, SimPlan> {
  const plans = new Map<string, SimPlan>();
  for (const plan of [...Object.values(world.plans), ...Object.values(world.next)]) if (plan) plans.set(plan.id, plan);
  return plans;
}
