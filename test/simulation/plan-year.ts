import { buildDailySweep, buildJobHandlers } from '../../src/app.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { EdiScheduler } from '../../src/modules/edi/edi-scheduler.ts';
import { addDays, compareDates, daysBetween } from '../../src/shared/dates.ts';
import { startSftpTestServer, type SftpTestServer } from '../helpers/sftp-server.ts';
import { DEVELOPMENT_SFTP, type TestContext } from '../helpers/test-app-core.ts';
import { CarrierDesk, type DayFile } from './files.ts';
import {
  birth,
  createFamily,
  death,
  drawFamily,
  type FamilyDraw,
  divorce,
  eoiDecision,
  hire,
  marriage,
  newHireEnrollment,
  rehire,
  termination,
  type Actions,
} from './life-events.ts';
import { activateWindow, completeWindow, createWindow, OPEN_ENROLLMENT, openEnrollmentElection, renewPlans } from './open-enrollment.ts';
import { Random } from './random.ts';
import { Steps, type Violation } from './steps.ts';
import { CENSUS, censusDay } from './census.ts';
import { PREMIUM_BILL, premiumBillDay } from './premium-bills.ts';
import { PAYROLL, payrollDay, type PayrollLedger } from './payroll.ts';
import {
  createCarriers,
  createEmployerWorld,
  dateIn,
  nextEmployeeId,
  personName,
  type PlannedHire,
  type SimEmployer,
  type SimGroup,
  type SimMember,
} from './world.ts';

// A plan year in a day (docs/architecture.md "Tests and benchmarks", the plan-year simulation): a seeded story of
// several employers driven day by day through the real HTTP API, with the daily sweep and the EDI file schedule
// run as the server runs them, and the caller's invariants checked after each day. Under plain Node (a bench):
//
//   const database = await createTestDatabaseAt(postgresUrl);            // test/helpers/database-core.ts
//   const context = await createTestAppOn(database, { now: '2026-01-01T12:00:00.000Z', env: { ...DEVELOPMENT_OUTBOUND_ENV } });
//   const result = await runPlanYear({ context, seed: 1, employers: 3, membersPerEmployer: 100, start: '2026-01-01', days: 365 });
//   await context.close();
//
// (BENEFITS_TEST_DATABASE=postgres picks PostgreSQL, as in the tests.)

export type { Violation } from './steps.ts';
export type { DayFile } from './files.ts';

export interface PlanYearOptions {
  /** The in-process app (createTestApp, or createTestAppOn under plain Node) started with DEVELOPMENT_OUTBOUND_ENV (the SFTP server is local). */
  context: Pick<TestContext, 'admin' | 'clock' | 'database' | 'services'>;
  seed: number;
  employers: number;
  membersPerEmployer: number;
  /** The first day simulated; the story is of plan year 2026 (start in 2026, days up to its end). */
  start: string;
  days: number;
  /** Called after each day's sweep, files and acknowledgements with the day's 834 files. */
  checkDay?: (day: string, files: DayFile[]) => Promise<Violation[]>;
  stopOnViolation?: boolean;
  log?: (line: string) => void;
  /** Whether some groups deliver over a local SFTP server (true by default). */
  sftp?: boolean;
}

export interface PlanYearResult {
  days: number;
  violations: Violation[];
  counts: Record<string, number>;
  perDay: { day: string; sweepMs: number; filesMs: number; actionsMs: number }[];
  /** Each API step's requests and total milliseconds (steps of employers running side by side overlap). */
  timings: Steps['timings'];
}

/** Each life event's chance per member and day (for a hundred members: a marriage about every three weeks). */
const DAILY = { marriage: 0.00045, birth: 0.00055, divorce: 0.00025, death: 0.00012, termination: 0.00045 };
const SWEEP_COUNTS = {
  newly_eligible: 'sweep_newly_eligible',
  dependent_coverage_ended: 'age_out',
  relationship_coverage_ended: 'sweep_relationship_coverage_ended',
  coverage_ended: 'sweep_coverage_ended',
  windows_closed: 'sweep_windows_closed',
  termination_cobra_events: 'sweep_cobra_events',
} as const;
/** Existing members created at once during setup (each a few requests in a row). */
const SETUP_CONCURRENCY = 6;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function runPlanYear(options: PlanYearOptions): Promise<PlanYearResult> {
  const t = options.context;
  const steps = new Steps(options.log);
  const random = new Random(options.seed);
  const a: Actions = { admin: t.admin, steps, random };
  const db = t.database.db;
  const sftp: SftpTestServer | undefined = options.sftp === false ? undefined : await startSftpTestServer({ directories: sftpDirectories(options.employers) });
  const worker = new JobWorker({
    db,
    clock: t.clock,
    handlers: buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter(), edi: DEVELOPMENT_SFTP }),
    log: silent,
    batchSize: 50,
  });
  const scheduler = new EdiScheduler({
    db,
    clock: t.clock,
    files: t.services.ediFiles,
    acknowledgements: t.services.ediAcknowledgements,
    encrypter: t.services.encrypter,
    log: silent,
    sftp: DEVELOPMENT_SFTP,
    pickupIntervalMs: 60_000,
  });
  const sweep = buildDailySweep({ db, clock: t.clock });
  const violations: Violation[] = [];
  const perDay: PlanYearResult['perDay'] = [];
  try {
    steps.day = options.start;
    t.clock.set(`${options.start}T12:00:00.000Z`);
    const setUpStory = await setUp(t, a, options, sftp);
    const story: Story = {
      ...setUpStory,
      pendingElections: new Map<SimMember, PlannedHire>(),
      payrollLedger: new Map(),
      // Each employer's own draws from the seed: employers' days run side by side (dayActions).
      randomOf: new Map(setUpStory.employers.map((world, index) => [world, new Random((options.seed + (index + 1) * 0x9e3779b1) >>> 0)])),
      runDueJobs: () => desk.runDueJobs(),
    };
    const { employers } = story;
    violations.push(...steps.failuresSince(0));
    const groups = new Map<string, SimGroup>(employers.flatMap((world) => Object.values(world.groups).map((group) => [group.id, group] as const)));
    const desk = new CarrierDesk({ t: t as TestContext, steps, random, worker, scheduler, sftp, groups });
    let day = options.start;
    for (let index = 0; index < options.days; index++, day = addDays(day, 1)) {
      steps.day = day;
      const failed = steps.failures.length;
      // The sweep at 02:00 UTC (the server's default SWEEP_TIME), HR's day from 15:00, the file schedule in the evening.
      t.clock.set(`${day}T02:00:00.000Z`);
      const sweepStart = performance.now();
      const summary = await sweep.run(day);
      for (const [field, kind] of Object.entries(SWEEP_COUNTS)) steps.count(kind, summary[field as keyof typeof SWEEP_COUNTS]);
      await desk.runDueJobs();
      t.clock.set(`${day}T15:00:00.000Z`);
      const actionsStart = performance.now();
      await dayActions(a, day, story);
      await desk.runDueJobs();
      const filesStart = performance.now();
      const files = await desk.runDay(day);
      const filesEnd = performance.now();
      perDay.push({ day, sweepMs: actionsStart - sweepStart, actionsMs: filesStart - actionsStart, filesMs: filesEnd - filesStart });
      const found = [...steps.failuresSince(failed), ...((await options.checkDay?.(day, files)) ?? [])];
      violations.push(...found);
      if (found.length > 0) options.log?.(`${day}: ${found.length} violations: ${found.map((v) => `${v.invariant}: ${v.detail}`).join('; ')}`);
      if (found.length > 0 && options.stopOnViolation) return { days: index + 1, violations, counts: steps.counts, perDay, timings: steps.timings };
    }
    await countCobraEvents(a, employers);
    return { days: options.days, violations, counts: steps.counts, perDay, timings: steps.timings };
  } finally {
    await scheduler.stop();
    await worker.stop();
    await sftp?.close();
  }
}

function sftpDirectories(employers: number): string[] {
  const directories: string[] = [];
  for (let index = 1; index <= Math.min(employers, 1); index++) {
    for (const key of ['medicala', 'dental']) directories.push(`/e${index}-${key}`, `/e${index}-${key}/inbound`, `/e${index}-${key}/outbound`);
  }
  return directories;
}

/**
 * The employers, and their members on the first day: three in four employed before the plan year and covered
 * by the carriers already (carrier_sync), with families (some children near 26); the rest planned as hires
 * through the year, with the day each makes their new-hire election.
 */
async function setUp(t: PlanYearOptions['context'], a: Actions, options: PlanYearOptions, sftp: SftpTestServer | undefined) {
  const { random, steps } = a;
  const carriers = await createCarriers(t.admin, steps);
  const employers: SimEmployer[] = [];
  const members: SimMember[] = [];
  const hires: PlannedHire[] = [];
  for (let index = 0; index < options.employers; index++) {
    const world = await createEmployerWorld(t as TestContext, steps, { index, carriers, sftp, waitingPeriodDays: [0, 30, 60][index % 3]! });
    employers.push(world);
    const existing = Math.round(options.membersPerEmployer * 0.75);
    const draws: ExistingMemberDraw[] = [];
    for (let number = 0; number < options.membersPerEmployer; number++) {
      if (number >= existing) {
        const hireDate = `2026-${String(random.int(1, 8)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`;
        const draw = random.next();
        hires.push({
          employer: world,
          hireDate,
          enrollOn: addDays(hireDate, random.int(0, 20)),
          waive: draw < 0.1,
          ...(draw > 0.75 ? { life: draw > 0.88 ? ('eoi' as const) : ('within' as const) } : {}),
          ...payScheduleDrawn(random, world),
        });
        continue;
      }
      draws.push(drawExistingMember(random, world));
    }
    // Drawn in order first, then created a few at a time: the story does not depend on which request finishes first.
    const created = await inPool(draws, SETUP_CONCURRENCY, (draw) => createExistingMember(a, world, draw));
    for (const member of created) if (member) members.push(member);
  }
  hires.sort((x, y) => compareDates(x.hireDate, y.hireDate));
  steps.log(`set up ${employers.length} employers, ${members.length} members covered, ${hires.length} hires planned`);
  return { employers, members, hires };
}

/** What an existing member is, drawn before any request (so that members can be created side by side). */
interface ExistingMemberDraw {
  body: Record<string, unknown> & { payroll_provider_external_id: string; hire_date: string };
  family: FamilyDraw;
  medical: 'gold' | 'silver';
  dental: boolean;
  vision: boolean;
  lifeVolume: string | undefined;
}

function atLatest(date: string, latest: string): string {
  return compareDates(date, latest) <= 0 ? date : latest;
}

function drawExistingMember(random: Random, world: SimEmployer): ExistingMemberDraw {
  const name = personName(random);
  const body = {
    employer: world.id,
    payroll_provider_external_id: nextEmployeeId(world),
    ...name,
    dob: dateIn(random, random.int(1960, 2000)),
    address: { line1: '100 Market Street', city: 'Springfield', state: 'IL', zip_code: '62701' },
    // Covered from the plan year's first day (carrier_sync): hired at least the employer's waiting period before it.
    hire_date: atLatest(dateIn(random, random.int(2012, 2025)), addDays('2026-01-01', -world.waitingPeriodDays)),
    employment_status: 'full_time',
    hours_worked: 40,
  };
  const family = drawFamily(random, { lastName: name.last_name, agingOut: random.chance(0.12) });
  const { paySchedule } = payScheduleDrawn(random, world);
  return {
    body: { ...body, ...(paySchedule ? { pay_schedule: paySchedule } : {}) },
    family,
    medical: random.chance(0.6) ? 'gold' : 'silver',
    dental: random.chance(0.75),
    vision: random.chance(0.5),
    lifeVolume: random.chance(0.3) ? `${random.int(1, 5) * 10000}.00` : undefined,
  };
}

/** The second schedule of an employer that has one, for about a third of its members (else the default: nothing drawn). */
function payScheduleDrawn(random: Random, world: SimEmployer): { paySchedule?: string } {
  const second = world.paySchedules[1];
  return second && random.chance(PAYROLL.semimonthlyShare) ? { paySchedule: second.id } : {};
}

/** The member, their family, and the coverage the carriers already hold for them from the plan year's start. */
async function createExistingMember(a: Actions, world: SimEmployer, draw: ExistingMemberDraw): Promise<SimMember | undefined> {
  const { steps } = a;
  const created = await steps.expect<{ id: string }>('existing member', a.admin.post('/members', draw.body), 201);
  if (!created) return undefined;
  const member: SimMember = {
    id: created.id,
    employeeId: draw.body.payroll_provider_external_id,
    employer: world,
    hireDate: draw.body.hire_date,
    state: 'active',
    children: [],
    ...(typeof draw.body.pay_schedule === 'string' ? { paySchedule: draw.body.pay_schedule } : {}),
  };
  await createFamily(a, member, draw.family);
  if (member.spouse) member.spouseSince = '2025-01-01';
  const dependents = [...(member.spouse ? [member.spouse] : []), ...member.children.map((child) => child.id)].map((dependent) => ({ dependent }));
  const plans: Record<string, unknown>[] = [{ plan: world.plans[draw.medical]!.id, enrolled_dependents: dependents }];
  if (draw.dental) plans.push({ plan: world.plans.dental!.id, enrolled_dependents: dependents });
  if (draw.vision) plans.push({ plan: world.plans.vision!.id, enrolled_dependents: dependents });
  if (draw.lifeVolume) plans.push({ plan: world.plans.life!.id, requested_volume: draw.lifeVolume });
  const synced = await steps.expect(
    'coverage the carriers hold (carrier_sync)',
    a.admin.post('/enrollments', { member: member.id, category: 'carrier_sync', effective_start: '2026-01-01', enrolled_plans: plans }),
    201,
  );
  if (synced) steps.count('carrier_sync_member');
  return member;
}

/** Runs `work` over the items, `concurrency` at a time; the results in the items' order. */
async function inPool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, runner));
  return results;
}

/** What the story holds while it runs: the employers (each with its own draws), the members, the hires still to come. */
interface Story {
  employers: readonly SimEmployer[];
  members: SimMember[];
  hires: PlannedHire[];
  pendingElections: Map<SimMember, PlannedHire>;
  /** What the payroll runs took, per member and deduction code. */
  payrollLedger: PayrollLedger;
  randomOf: ReadonlyMap<SimEmployer, Random>;
  /** Runs the jobs due (the server's worker): a census file's check. */
  runDueJobs: () => Promise<void>;
}

/**
 * Everything HR sends on `day`. Employers are independent (none of their members, groups or plans are shared), so
 * their days run side by side, as an HR platform's would; each employer's day is in a fixed order with its own
 * draws (so that a seed still tells one story, whichever request finishes first).
 */
async function dayActions(a: Actions, day: string, story: Story): Promise<void> {
  for (const member of story.members) {
    if (member.state === 'leaving' && compareDates(member.terminationDate!, day) < 0) member.state = 'terminated';
  }
  const hiresToday = new Map<SimEmployer, PlannedHire[]>();
  while (story.hires.length > 0 && story.hires[0]!.hireDate === day) {
    const planned = story.hires.shift()!;
    hiresToday.set(planned.employer, [...(hiresToday.get(planned.employer) ?? []), planned]);
  }
  const membersOf = Map.groupBy(story.members, (member) => member.employer);
  await Promise.all(
    story.employers.map((world) =>
      employerDay({ ...a, random: story.randomOf.get(world)! }, day, world, {
        members: membersOf.get(world) ?? [],
        hires: hiresToday.get(world) ?? [],
        story,
      }),
    ),
  );
}

/** One employer's day, in a fixed order: hires, new-hire elections, EOI decisions, rehires, open enrollment, the autumn's calendar, census, bill and payroll, life events. */
async function employerDay(
  a: Actions,
  day: string,
  world: SimEmployer,
  { members, hires, story }: { members: SimMember[]; hires: readonly PlannedHire[]; story: Story },
): Promise<void> {
  const { random } = a;
  const { pendingElections } = story;
  // Hires on their hire date, then the new-hire elections due.
  for (const planned of hires) {
    const member = await hire(a, planned);
    if (member) {
      members.push(member);
      story.members.push(member);
      pendingElections.set(member, planned);
    }
  }
  for (const [member, planned] of pendingElections) {
    if (member.employer !== world || planned.enrollOn !== day) continue;
    pendingElections.delete(member);
    if (member.state === 'active') await newHireEnrollment(a, member, planned);
  }
  for (const member of members) {
    if (member.eoi && member.eoi.decideOn === day && member.state === 'active') await eoiDecision(a, member);
    if (member.rehireOn === day && member.state === 'terminated') {
      member.rehireOn = undefined;
      await rehire(a, member);
    }
    if (member.openEnrollment?.day === day && member.state === 'active') await openEnrollmentElection(a, member);
  }
  // The autumn's calendar.
  if (day === OPEN_ENROLLMENT.renew) await renewPlans(a, world);
  if (day === OPEN_ENROLLMENT.create) await createWindow(a, world);
  if (day === OPEN_ENROLLMENT.start) await activateWindow(a, world, members);
  if (day === OPEN_ENROLLMENT.complete) await completeWindow(a, world);
  if ((CENSUS.days as readonly string[]).includes(day)) await censusDay(a, day, world, members, story.runDueJobs);
  if (day === PREMIUM_BILL.day) await premiumBillDay(a, day, world, members);
  await payrollDay(a, day, world, members, story.payrollLedger);
  // Life events, as many as the employer's members make likely.
  const afterOpenEnrollment = compareDates(day, OPEN_ENROLLMENT.complete) > 0;
  const active = members.filter((member) => member.state === 'active' && daysBetween(member.hireDate, day) >= 45);
  const still = (extra: (member: SimMember) => boolean = () => true) => active.filter((member) => member.state === 'active' && extra(member));
  const draw = async (rate: number, candidates: () => SimMember[], act: (member: SimMember) => Promise<void>) => {
    for (let count = howMany(random, rate, active.length); count > 0; count--) {
      const chosen = candidates();
      if (chosen.length === 0) return;
      await act(random.pick(chosen));
    }
  };
  await draw(
    DAILY.marriage,
    () => still((member) => !member.spouse),
    (member) => marriage(a, member),
  );
  await draw(
    DAILY.birth,
    () => still(),
    (member) => birth(a, member, afterOpenEnrollment),
  );
  await draw(
    DAILY.divorce,
    () => still((member) => member.spouse !== undefined && member.spouseSince !== undefined && daysBetween(member.spouseSince, day) >= 60),
    (member) => divorce(a, member),
  );
  await draw(
    DAILY.death,
    () => still(),
    (member) => death(a, member),
  );
  await draw(
    DAILY.termination,
    () => still(),
    async (member) => {
      const back = await termination(a, member);
      // Rehires come back before the autumn (a rehire's elections across open enrollment are not in this story).
      if (back && compareDates(back, '2026-10-15') < 0) member.rehireOn = back;
    },
  );
}

/** How many of an event `population` members have on a day: the expected count's whole part, and one more by the chance of its fraction. */
function howMany(random: Random, ratePerMember: number, population: number): number {
  const expected = ratePerMember * population;
  const whole = Math.floor(expected);
  return whole + (random.chance(expected - whole) ? 1 : 0);
}

/** The COBRA qualifying events the year recorded (at a termination, a death, a divorce, an age-out, or by the sweep), counted by type. */
async function countCobraEvents(a: Actions, employers: readonly SimEmployer[]): Promise<void> {
  for (const world of employers) {
    let page: string | null = `/cobra_events?employer=${world.id}&page_size=100`;
    while (page) {
      const body: { results: { event_type: string }[]; next: string | null } | undefined = await a.steps.expect('COBRA events', a.admin.get(page));
      for (const event of body?.results ?? []) a.steps.count(`cobra_${event.event_type}`);
      page = body?.next ?? null;
    }
  }
}
