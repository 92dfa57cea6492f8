import type { Kysely } from 'kysely';
import { isUniqueViolation, type Executor } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { isVisibleReference } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import type { EmploymentStatus } from '../members/member.table.ts';
import { defaultCoverageStartRule, HIRE_DATE_RULES, MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH } from './eligibility.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { fromCents, toCents } from '../../shared/money.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { COVERAGE_TIERS } from '../plans/coverage-tier.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './plan-configuration.repository.ts';
import type {
  ContributionRule,
  ContributionStrategy,
  CreatePlanConfigurationBody,
  PlanConfigurationResponse,
  UpdatePlanConfigurationBody,
} from './plan-configuration.schemas.ts';
import type { PlanConfigurationRow } from './plan-configuration.table.ts';

/** The stored strategy, tiers and fields in their usual order whatever order the database kept the keys in. */
export function parseContributionStrategy(json: string | null): ContributionStrategy | null {
  if (json === null) return null;
  const stored = JSON.parse(json) as ContributionStrategy;
  return Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, ruleOf(stored[tier])])) as ContributionStrategy;
}

function ruleOf(rule: ContributionRule): ContributionRule {
  return { contribution: rule.contribution, monthly_min_threshold: rule.monthly_min_threshold, monthly_max_threshold: rule.monthly_max_threshold };
}

export function toPlanConfigurationResponse(row: PlanConfigurationRow): PlanConfigurationResponse {
  return {
    id: row.id,
    plan: row.plan_id,
    waiting_period_days: row.waiting_period_days,
    termination_policy: row.termination_policy,
    dependent_age_limit: row.dependent_age_limit,
    dependent_age_out_rule: row.dependent_age_out_rule,
    required_subclass: row.required_subclass_id,
    coverage_start_rule: row.coverage_start_rule,
    minimum_hours_per_week: row.minimum_hours_per_week,
    eligible_employment_statuses: parseEmploymentStatuses(row.eligible_employment_statuses),
    waiting_period_waiver_allowed: Boolean(row.waiting_period_waiver_allowed),
    contribution_strategy: parseContributionStrategy(row.contribution_strategy),
    deduction_code: row.deduction_code,
    tax_treatment: row.tax_treatment,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

/** Money as the API answers it: two decimals ("412.5" is stored and returned as "412.50"). */
function canonicalMoney(value: string): string {
  return fromCents(toCents(value));
}

/** A second configuration of the same plan for the same required subclass (or none) would make the choice ambiguous. */
function duplicateConfiguration(requiredSubclassId: string | null): ValidationFailed {
  const message =
    requiredSubclassId === null
      ? 'This plan already has a configuration without a required_subclass (open to every member). Change that one, or name a required_subclass.'
      : 'This plan already has a configuration for this required_subclass. Change that one, or name another subclass.';
  return new ValidationFailed([inputError(['required_subclass'], message)]);
}

/** Runs a write that the one-configuration-per-plan-and-subclass index may refuse, turning that refusal into a 400. */
async function withUniqueConfiguration(requiredSubclassId: string | null, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateConfiguration(requiredSubclassId);
    throw error;
  }
}

export class PlanConfigurationService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createPlanConfiguration(scope: Scope, input: CreatePlanConfigurationBody): Promise<PlanConfigurationResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const employerId = (await isVisibleReference(trx, scope, 'plan', input.plan))
        ? await repository.findPlanEmployerId(trx, scope.providerId, input.plan)
        : undefined;
      if (employerId === undefined) throw new ValidationFailed([inputError(['plan'], 'No such plan.')]);
      const requiredSubclassId = input.required_subclass ?? null;
      await this.#assertSubclassOfEmployer(trx, scope.providerId, employerId, requiredSubclassId);
      const row: PlanConfigurationRow = {
        id: newId('plan_configuration'),
        provider_id: scope.providerId,
        employer_id: employerId,
        plan_id: input.plan,
        waiting_period_days: input.waiting_period_days ?? 0,
        termination_policy: input.termination_policy ?? 'termination_date',
        dependent_age_limit: input.dependent_age_limit ?? 26,
        dependent_age_out_rule: input.dependent_age_out_rule ?? 'date_of_birth',
        required_subclass_id: requiredSubclassId,
        coverage_start_rule: input.coverage_start_rule ?? defaultCoverageStartRule(input.waiting_period_days ?? 0),
        minimum_hours_per_week: input.minimum_hours_per_week ?? null,
        eligible_employment_statuses: input.eligible_employment_statuses ? JSON.stringify(input.eligible_employment_statuses) : null,
        waiting_period_waiver_allowed: input.waiting_period_waiver_allowed ?? false,
        contribution_strategy: null,
        deduction_code: input.deduction_code ?? null,
        tax_treatment: input.tax_treatment ?? null,
        metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
        created_at: this.#clock.now().toISOString(),
      };
      assertStartRuleFits(row);
      // The unique index decides, not a prior lookup: two concurrent creates cannot both pass it.
      await withUniqueConfiguration(requiredSubclassId, () => repository.insertPlanConfiguration(trx, row));
      await this.#changes.commit(trx, { events: [eventOf('plan_configuration', 'created', row)] });
      return toPlanConfigurationResponse(row);
    });
  }

  async getPlanConfiguration(scope: Scope, id: string): Promise<PlanConfigurationResponse> {
    const row = await repository.findPlanConfigurationById(this.#db, scope, id);
    if (!row) throw new NotFound('plan configuration');
    return toPlanConfigurationResponse(row);
  }

  async listPlanConfigurations(scope: Scope, filter: { plan?: string | undefined }, page: PageRequest): Promise<Page<PlanConfigurationResponse>> {
    const rows = await repository.listPlanConfigurations(this.#db, scope, { planId: filter.plan }, page);
    return mapPage(rows, toPlanConfigurationResponse);
  }

  async updatePlanConfiguration(scope: Scope, id: string, input: UpdatePlanConfigurationBody): Promise<PlanConfigurationResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockPlanConfigurationById(trx, scope, id);
      if (!current) throw new NotFound('plan configuration');
      if (input.required_subclass !== undefined) {
        await this.#assertSubclassOfEmployer(trx, current.provider_id, current.employer_id, input.required_subclass);
      }
      const updated: PlanConfigurationRow = {
        ...applyChanges(current, input, [
          'waiting_period_days',
          'termination_policy',
          'dependent_age_limit',
          'dependent_age_out_rule',
          'coverage_start_rule',
          'minimum_hours_per_week',
          'deduction_code',
          'tax_treatment',
        ]),
        waiting_period_waiver_allowed: input.waiting_period_waiver_allowed ?? current.waiting_period_waiver_allowed,
        required_subclass_id: input.required_subclass !== undefined ? input.required_subclass : current.required_subclass_id,
        eligible_employment_statuses:
          input.eligible_employment_statuses !== undefined
            ? input.eligible_employment_statuses && JSON.stringify(input.eligible_employment_statuses)
            : current.eligible_employment_statuses,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      assertStartRuleFits(updated);
      await withUniqueConfiguration(updated.required_subclass_id, () => repository.updatePlanConfiguration(trx, updated));
      await this.#changes.commit(trx, { events: [eventOf('plan_configuration', 'updated', updated)] });
      return toPlanConfigurationResponse(updated);
    });
  }

  /**
   * Endpoint 11: replaces the configuration's contribution strategy as a whole and answers it as stored
   * (money thresholds with two decimals).
   */
  async setContributionStrategy(scope: Scope, id: string, input: ContributionStrategy): Promise<ContributionStrategy> {
    return this.#db.transaction().execute(async (trx) => {
      const current = await repository.lockPlanConfigurationById(trx, scope, id);
      if (!current) throw new NotFound('plan configuration');
      const errors: InputError[] = [];
      for (const tier of COVERAGE_TIERS) {
        const rule = input[tier];
        if (toCents(rule.monthly_min_threshold) > toCents(rule.monthly_max_threshold)) {
          errors.push(inputError([tier, 'monthly_min_threshold'], 'The monthly minimum cannot be above the monthly maximum (monthly_max_threshold).'));
        }
      }
      if (errors.length > 0) throw new ValidationFailed(errors);
      const strategy = Object.fromEntries(
        COVERAGE_TIERS.map((tier) => {
          const rule = input[tier];
          return [
            tier,
            {
              contribution: rule.contribution,
              monthly_min_threshold: canonicalMoney(rule.monthly_min_threshold),
              monthly_max_threshold: canonicalMoney(rule.monthly_max_threshold),
            },
          ];
        }),
      ) as ContributionStrategy;
      await repository.updatePlanConfiguration(trx, { ...current, contribution_strategy: JSON.stringify(strategy) });
      await this.#changes.commit(trx, { events: [eventOf('plan_configuration', 'updated', current)] });
      return strategy;
    });
  }

  /** A required subclass must be one of the plan's employer's (another employer's does not exist for it). */
  async #assertSubclassOfEmployer(trx: Executor, providerId: string, employerId: string, subclassId: string | null): Promise<void> {
    if (subclassId === null) return;
    if (!(await repository.isEmployerSubclass(trx, providerId, employerId, subclassId))) {
      throw new ValidationFailed([inputError(['required_subclass'], "No such subclass for the plan's employer.")]);
    }
  }
}

export function parseEmploymentStatuses(json: string | null): EmploymentStatus[] | null {
  return json === null ? null : (JSON.parse(json) as EmploymentStatus[]);
}

/**
 * A coverage start rule counted from the hire date allows no waiting period; a first-of-the-month rule after a
 * waiting period keeps within the ACA 90-day limit (MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH).
 */
function assertStartRuleFits(row: Pick<PlanConfigurationRow, 'coverage_start_rule' | 'waiting_period_days'>): void {
  if (HIRE_DATE_RULES.has(row.coverage_start_rule) && row.waiting_period_days !== 0) {
    throw new ValidationFailed([
      inputError(
        ['coverage_start_rule'],
        `${row.coverage_start_rule} counts from the hire date: it allows no waiting period (waiting_period_days is ${row.waiting_period_days}).`,
      ),
    ]);
  }
  if (row.coverage_start_rule === 'first_of_month_following_waiting_period' && row.waiting_period_days > MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH) {
    throw new ValidationFailed([
      inputError(
        ['waiting_period_days'],
        `With first_of_month_following_waiting_period the waiting period may be at most ${MAX_WAITING_PERIOD_DAYS_BEFORE_FIRST_OF_MONTH} days, so that coverage starts within 90 days (29 CFR 2590.715-2708).`,
      ),
    ]);
  }
}
