/**
 * Open enrollment's carry-over (docs/decisions.md "Open enrollment windows"): the job a completed window enqueues
 * carries every member who did nothing into the new period through the enrollment engine: a passive window's
 * elections go on (each plan to its successor), and coverage that ends with the plan year and goes nowhere (an
 * active window's, or a plan without a successor) is waived, so that its carrier is told it ends.
 */
import { sql, type Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays, compareDates } from '../../shared/dates.ts';
import { AppError } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { CreateEnrollmentBody, EnrollmentResponse, PrimaryCareProvider } from '../enrollments/enrollment.schemas.ts';
import { claimOccurrence } from '../daily-sweep/sweep.repository.ts';
import { findCoveredLinesOn } from '../coverage/window-coverage.repository.ts';
import { findDesignationsOf } from '../enrollments/enrollment.repository.ts';
import { findMemberSubclassIds } from '../members/member.repository.ts';
import { findPlanConfigurationsForPlans } from '../plan-configurations/plan-configuration.repository.ts';
import { findPlansByIds } from '../plans/plan.repository.ts';
import { designationInputs, money } from '../enrollments/enrollment.response.ts';
import { disabilityCertifiedThrough, selectPlanConfiguration } from '../plan-configurations/eligibility.ts';
import { parseVolumeRules } from '../plans/plan.service.ts';
import { carriedPlan, carriedVolumes, isDependentCarried } from './carry-over.ts';
import * as repository from './open-enrollment-window.repository.ts';
import { datedWindow } from './window-response.ts';

/** What passive open enrollment needs from the enrollment engine, inside the completing transaction. */
export interface EnrollmentEngine {
  createEnrollmentIn(trx: Transaction<Database>, scope: Scope, input: CreateEnrollmentBody, options: { windowId: string }): Promise<EnrollmentResponse>;
  submitEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse>;
  approveEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse>;
}

/** The job that carries a completed passive window's idle members over; payload `{ open_enrollment_window }`. */
export const PASSIVE_ROLLOVER_JOB = 'open_enrollment.passive_rollover';

/** Members carried over per transaction by the passive carry-over (about 0.4 s of work on SQLite). */
const ROLLOVER_BATCH = 200;

export class PassiveCarryOver {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #enrollments: EnrollmentEngine;

  constructor(options: { db: Kysely<Database>; clock: Clock; enrollments: EnrollmentEngine }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#enrollments = options.enrollments;
  }

  /**
   * The passive carry-over of a completed passive window (the job completeWindow enqueues): walks the members
   * still incomplete in batches, one transaction per batch, and carries each over (see #rollOver). Safe to
   * run again or after a crash: a member carried over is no longer incomplete, and each member's carry-over
   * is keyed (`passive_open_enrollment:<window>:<member>`) in the transaction that makes it. Returns how many
   * members got an enrollment.
   */
  async rollOverPassively(windowId: string, batchSize = ROLLOVER_BATCH): Promise<number> {
    const window = await this.#db.selectFrom('open_enrollment_windows').selectAll().where('id', '=', windowId).executeTakeFirst();
    if (window?.status !== 'completed') return 0;
    const dated = datedWindow(window)!;
    const planIds = (await repository.findWindowPlanIds(this.#db, [windowId])).get(windowId)!;
    let carried = 0;
    let after: string | undefined;
    for (;;) {
      const batch = await repository.findIncompleteMemberIds(this.#db, dated, { ...(after === undefined ? {} : { after }), limit: batchSize });
      if (batch.length === 0) break;
      carried += await this.#db.transaction().execute(async (trx) => this.#rollOver(trx, dated, window.enrollment_type === 'passive', planIds, batch));
      after = batch.at(-1);
    }
    return carried;
  }

  /**
   * Passive open enrollment: each member's coverage in force the day before renewal_date becomes an enrollment
   * (reason passive_open_enrollment) starting on renewal_date, submitted and approved by the engine. Each line
   * goes to the plan the window offers for it on renewal_date (carry-over.ts): the same plan while it still
   * runs, else the plan that renews it, priced by the engine with that plan's rates and the member's
   * configuration of it; children aged out by renewal_date stay behind, and volumes are cut to fit the new
   * plan's guaranteed issue and volume rules. Lines with neither are not carried: their coverage ends with
   * their plan. A member whose carried elections still fail the submission rules is left as is, inside a
   * savepoint, and stays in the incomplete members report.
   */
  async #rollOver(
    trx: Transaction<Database>,
    window: repository.DatedWindow,
    passive: boolean,
    planIds: readonly string[],
    memberIds: readonly string[],
  ): Promise<number> {
    const scope: Scope = { providerId: window.provider_id, employerId: null };
    // The engine's own plan rows: the carry-over reads their dates, predecessor, guaranteed issue and volume rules.
    const offered = await findPlansByIds(trx, window.provider_id, planIds);
    const configurations = Map.groupBy(await findPlanConfigurationsForPlans(trx, window.provider_id, planIds), (configuration) => configuration.plan_id);
    const lastDay = addDays(window.renewal_date, -1);
    let carriedOver = 0;
    for (const member of memberIds) {
      if (!(await claimOccurrence(trx, `passive_open_enrollment:${window.id}:${member}`, this.#clock.now().toISOString()))) continue;
      const coverage = await findCoveredLinesOn(trx, member, lastDay);
      const carried = coverage.flatMap((line) => {
        const plan = passive ? carriedPlan(line.plan_id, offered, window.renewal_date) : undefined;
        return plan ? [{ line, plan }] : [];
      });
      // Coverage that ends with its plan year and goes nowhere: its carrier still holds it (a plan year's end is
      // not a termination to a carrier), so the enrollment waives the line and the carrier is told it ends.
      const ending = coverage.filter(
        (line) => line.effective_end !== null && compareDates(line.effective_end, lastDay) <= 0 && !carried.some((carry) => carry.line.id === line.id),
      );
      if (carried.length === 0 && ending.length === 0) continue;
      const subclassIds = await findMemberSubclassIds(trx, member);
      // Beneficiary designations go on with the life coverage they belong to.
      const designations = await findDesignationsOf(
        trx,
        carried.map(({ line }) => line.id),
      );
      const provider = (json: string | null) => {
        if (json === null) return null;
        const { id: _id, ...rest } = JSON.parse(json) as PrimaryCareProvider;
        return rest;
      };
      const input: CreateEnrollmentBody = {
        member,
        category: 'open_enrollment',
        reason: 'passive_open_enrollment',
        effective_start: window.renewal_date,
        enrolled_plans: carried.map(({ line, plan }) => {
          const configuration = selectPlanConfiguration(subclassIds, configurations.get(plan.id) ?? []);
          const dependents = line.dependents.filter((dependent) =>
            isDependentCarried(
              {
                relationship: dependent.member_relationship,
                dob: dependent.dob,
                disabilityCertifiedThrough: disabilityCertifiedThrough(Boolean(dependent.has_disability), dependent.disability_certified_on),
                relationshipEndDate: dependent.relationship_end_date,
              },
              configuration,
              window.renewal_date,
            ),
          );
          const volumes = carriedVolumes(
            { guaranteedIssueCents: plan.guaranteed_issue_volume_cents, rules: parseVolumeRules(plan.volume_rules) },
            line.volume_cents,
            dependents.map((dependent) => ({ relationship: dependent.member_relationship, volumeCents: dependent.volume_cents })),
          );
          return {
            plan: plan.id,
            beneficiary_designations: designationInputs(designations, line.id),
            enrolled_dependents: dependents.map((dependent, index) => ({
              dependent: dependent.dependent_id,
              requested_volume: money(volumes.dependents[index] ?? null),
            })),
            primary_care_provider: provider(line.primary_care_provider),
            payroll_provider_external_id: line.payroll_provider_external_id,
            requested_volume: money(volumes.member),
          };
        }),
        coverage_waivers: ending.map((line) => ({ line_of_coverage: line.line_of_coverage, reason: 'other' as const })),
      };
      await sql`savepoint passive_rollover`.execute(trx);
      try {
        const created = await this.#enrollments.createEnrollmentIn(trx, scope, input, { windowId: window.id });
        await this.#enrollments.submitEnrollmentIn(trx, scope, created.id);
        await this.#enrollments.approveEnrollmentIn(trx, scope, created.id);
        await sql`release savepoint passive_rollover`.execute(trx);
        carriedOver += 1;
      } catch (error) {
        if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
        await sql`rollback to savepoint passive_rollover`.execute(trx);
        await sql`release savepoint passive_rollover`.execute(trx);
      }
    }
    return carriedOver;
  }
}
