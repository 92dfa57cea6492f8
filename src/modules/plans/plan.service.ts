import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import type { Transaction } from '../../db/database.ts';
import { isVisibleReference, lockEmployerRow } from '../../db/references.ts';
import type { Clock } from '../../shared/clock.ts';
import { compareDates } from '../../shared/dates.ts';
import { InvalidState, NotFound, ValidationFailed, inputError, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { mergeMetadata, parseMetadata } from '../../shared/metadata.ts';
import { fromCents, toCents, toCentsOrNull } from '../../shared/money.ts';
import { applyChanges } from '../../shared/patch.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { COVERAGE_TIERS } from './coverage-tier.ts';
import { findPlanConfigurationsForPlans, insertPlanConfiguration } from '../plan-configurations/plan-configuration.repository.ts';
import type { PlanConfigurationRow } from '../plan-configurations/plan-configuration.table.ts';
import { linkedDatesErrors, renewalLinkErrors, renewalStart } from './plan-renewal.ts';
import type { PlanRates } from './pricing.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './plan.repository.ts';
import type { AgeRates, CompositeRates, CreatePlanBody, ListPlansQuery, PlanResponse, RenewPlanBody, UpdatePlanBody, VolumeRules } from './plan.schemas.ts';
import type { LineOfCoverage, PlanRow, PremiumType, RateBasis } from './plan.table.ts';

/** Money as the API answers it: two decimals ("412.5" is stored and returned as "412.50"). */
function canonicalMoney(value: string): string {
  return fromCents(toCents(value));
}

function canonicalCompositeRates(rates: CompositeRates): CompositeRates {
  return Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, canonicalMoney(rates[tier])])) as CompositeRates;
}

function canonicalAgeRates(rates: AgeRates): AgeRates {
  return rates.map((band) => ({ age: band.age, amount: canonicalMoney(band.amount) }));
}

/** The stored rates, with the tiers in their usual order whatever order the database kept the keys in. */
export function parseCompositeRates(json: string | null): CompositeRates | null {
  if (json === null) return null;
  const stored = JSON.parse(json) as CompositeRates;
  return Object.fromEntries(COVERAGE_TIERS.map((tier) => [tier, stored[tier]])) as CompositeRates;
}

export function parseAgeRates(json: string | null): AgeRates | null {
  return json === null ? null : (JSON.parse(json) as AgeRates);
}

/** What pricing.ts needs of a plan to compute a premium. */
export function toPlanRates(row: Pick<PlanRow, 'premium_type' | 'composite_rates' | 'age_rates'>): PlanRates {
  return { premium_type: row.premium_type, composite_rates: parseCompositeRates(row.composite_rates), age_rates: parseAgeRates(row.age_rates) };
}

export function toPlanResponse(row: PlanRow, carrierId: string): PlanResponse {
  return {
    id: row.id,
    group: row.group_id,
    carrier: carrierId,
    employer: row.employer_id,
    plan_name: row.plan_name,
    plan_type: row.plan_type,
    line_of_coverage: row.line_of_coverage,
    effective_start: row.effective_start,
    effective_end: row.effective_end,
    premium_type: row.premium_type,
    composite_rates: parseCompositeRates(row.composite_rates),
    age_rates: parseAgeRates(row.age_rates),
    guaranteed_issue_volume: row.guaranteed_issue_volume_cents === null ? null : fromCents(row.guaranteed_issue_volume_cents),
    requires_primary_care_provider: Boolean(row.requires_primary_care_provider),
    aca_child_rating_limit: Boolean(row.aca_child_rating_limit),
    volume_rules: parseVolumeRules(row.volume_rules),
    rate_basis: row.rate_basis,
    age_rating_date: row.age_rating_date,
    previous_plan: row.previous_plan_id,
    next_plan: row.next_plan_id,
    metadata: parseMetadata(row.metadata),
    created_at: row.created_at,
  };
}

/** The lines each per-unit rate basis applies to (flat applies to every line). */
const RATE_BASIS_LINES: Partial<Record<RateBasis, readonly LineOfCoverage[]>> = {
  per_1000_volume: ['life', 'accidental_death', 'critical_illness'],
  per_100_monthly_benefit: ['short_term_disability', 'long_term_disability'],
};

/** The fields whose combination makes a plan consistent; on PATCH, the merged result of current and input. */
interface PlanTerms {
  line_of_coverage: LineOfCoverage;
  rate_basis: RateBasis;
  effective_start: string;
  effective_end: string;
  premium_type: PremiumType | null;
  composite_rates: CompositeRates | null;
  age_rates: AgeRates | null;
}

/**
 * A plan year in order, rates that match the premium type (composite: composite_rates only; age_banded:
 * age_rates only; none: no rates, prices come from the client), and one band per age.
 */
function planTermsErrors(terms: PlanTerms): InputError[] {
  const errors: InputError[] = [];
  if (compareDates(terms.effective_end, terms.effective_start) < 0) {
    errors.push(inputError(['effective_end'], 'The plan year cannot end before it starts: effective_end must not be before effective_start.'));
  }
  const needs = { composite_rates: terms.premium_type === 'composite', age_rates: terms.premium_type === 'age_banded' };
  const owner = { composite_rates: 'composite', age_rates: 'age_banded' } as const;
  for (const field of ['composite_rates', 'age_rates'] as const) {
    const present = terms[field] !== null;
    if (needs[field] && !present) {
      errors.push(inputError([field], `Required when premium_type is ${owner[field]}.`));
    } else if (!needs[field] && present) {
      errors.push(
        inputError(
          [field],
          `${field} apply only when premium_type is ${owner[field]}; premium_type is ${terms.premium_type ?? 'null'}. Send null to remove them.`,
        ),
      );
    }
  }
  const lines = RATE_BASIS_LINES[terms.rate_basis];
  if (lines !== undefined && !lines.includes(terms.line_of_coverage)) {
    errors.push(inputError(['rate_basis'], `${terms.rate_basis} rates apply to ${lines.join(', ')} plans; this plan is ${terms.line_of_coverage}.`));
  } else if (lines !== undefined && terms.premium_type === null) {
    errors.push(inputError(['rate_basis'], `${terms.rate_basis} needs rates to apply: premium_type composite or age_banded.`));
  }
  const firstIndexOfAge = new Map<number, number>();
  terms.age_rates?.forEach((band, index) => {
    const first = firstIndexOfAge.get(band.age);
    if (first === undefined) firstIndexOfAge.set(band.age, index);
    else errors.push(inputError(['age_rates', index, 'age'], `Age ${band.age} already has a band (age_rates.${first}); each age may appear once.`));
  });
  return errors;
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

export class PlanService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  async createPlan(scope: Scope, input: CreatePlanBody): Promise<PlanResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const terms: PlanTerms = {
        line_of_coverage: input.line_of_coverage,
        rate_basis: input.rate_basis ?? 'flat',
        effective_start: input.effective_start,
        effective_end: input.effective_end,
        premium_type: input.premium_type ?? null,
        composite_rates: input.composite_rates ? canonicalCompositeRates(input.composite_rates) : null,
        age_rates: input.age_rates ? canonicalAgeRates(input.age_rates) : null,
      };
      const errors = planTermsErrors(terms);
      const group = (await isVisibleReference(trx, scope, 'group', input.group))
        ? await repository.findGroupParties(trx, scope.providerId, input.group)
        : undefined;
      if (!group) errors.unshift(inputError(['group'], 'No such group.'));
      if (errors.length > 0 || !group) throw new ValidationFailed(errors);
      const row: PlanRow = {
        id: newId('plan'),
        provider_id: scope.providerId,
        employer_id: group.employer_id,
        group_id: input.group,
        plan_name: input.plan_name,
        plan_type: input.plan_type ?? null,
        line_of_coverage: input.line_of_coverage,
        effective_start: terms.effective_start,
        effective_end: terms.effective_end,
        premium_type: terms.premium_type,
        composite_rates: jsonOrNull(terms.composite_rates),
        age_rates: jsonOrNull(terms.age_rates),
        guaranteed_issue_volume_cents: toCentsOrNull(input.guaranteed_issue_volume),
        requires_primary_care_provider: input.requires_primary_care_provider ?? false,
        aca_child_rating_limit: input.aca_child_rating_limit ?? false,
        volume_rules: volumeRulesJson(input.volume_rules ?? null),
        rate_basis: terms.rate_basis,
        age_rating_date: input.age_rating_date ?? 'coverage_start',
        previous_plan_id: null,
        next_plan_id: null,
        metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertPlan(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('plan', 'created', row)] });
      return toPlanResponse(row, group.carrier_id);
    });
  }

  async getPlan(scope: Scope, id: string): Promise<PlanResponse> {
    const row = await repository.findPlanById(this.#db, scope, id);
    if (!row) throw new NotFound('plan');
    return toPlanResponse(row, row.carrier_id);
  }

  async listPlans(scope: Scope, filter: Omit<ListPlansQuery, 'cursor' | 'page_size'>, page: PageRequest): Promise<Page<PlanResponse>> {
    const rows = await repository.listPlans(
      this.#db,
      scope,
      { groupId: filter.group, employerId: filter.employer, lineOfCoverage: filter.line_of_coverage },
      page,
    );
    return mapPage(rows, (row) => toPlanResponse(row, row.carrier_id));
  }

  async updatePlan(scope: Scope, id: string, input: UpdatePlanBody): Promise<PlanResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const touchesLinks = [input.previous_plan, input.next_plan, input.effective_start, input.effective_end].some((value) => value !== undefined);
      if (touchesLinks) {
        // Link changes (and date moves of linked plans) of one employer run one at a time, so that none of them
        // checks a neighbour that another is changing.
        const found = await repository.findPlanById(trx, scope, id);
        if (!found) throw new NotFound('plan');
        await lockEmployerRow(trx, found.provider_id, found.employer_id);
      }
      const current = await repository.lockPlanById(trx, scope, id);
      if (!current) throw new NotFound('plan');
      const given = <T>(value: T | undefined, currentValue: T): T => (value !== undefined ? value : currentValue);
      const terms: PlanTerms = {
        line_of_coverage: current.line_of_coverage,
        rate_basis: given(input.rate_basis, current.rate_basis),
        effective_start: given(input.effective_start, current.effective_start),
        effective_end: given(input.effective_end, current.effective_end),
        premium_type: given(input.premium_type, current.premium_type),
        composite_rates: given(input.composite_rates && canonicalCompositeRates(input.composite_rates), parseCompositeRates(current.composite_rates)),
        age_rates: given(input.age_rates && canonicalAgeRates(input.age_rates), parseAgeRates(current.age_rates)),
      };
      const errors = planTermsErrors(terms);
      const updated: PlanRow = {
        ...applyChanges(current, input, [
          'plan_name',
          'plan_type',
          'effective_start',
          'effective_end',
          'premium_type',
          'requires_primary_care_provider',
          'aca_child_rating_limit',
          'rate_basis',
          'age_rating_date',
        ]),
        composite_rates: jsonOrNull(terms.composite_rates),
        age_rates: jsonOrNull(terms.age_rates),
        guaranteed_issue_volume_cents:
          input.guaranteed_issue_volume !== undefined ? toCentsOrNull(input.guaranteed_issue_volume) : current.guaranteed_issue_volume_cents,
        volume_rules: input.volume_rules !== undefined ? volumeRulesJson(input.volume_rules) : current.volume_rules,
        previous_plan_id: given(input.previous_plan, current.previous_plan_id),
        next_plan_id: given(input.next_plan, current.next_plan_id),
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
      };
      const links = touchesLinks ? await this.#linkChanges(trx, scope, current, updated) : { errors: [], unlinked: [], linked: [] };
      errors.push(...links.errors);
      if (errors.length > 0) throw new ValidationFailed(errors);
      // Old links go first, so that the unique indexes never see a plan with two predecessors or successors.
      for (const change of links.unlinked) await repository.updatePlanLink(trx, change.plan.provider_id, change.plan.id, change.column, change.value);
      await repository.updatePlan(trx, updated);
      for (const change of links.linked) await repository.updatePlanLink(trx, change.plan.provider_id, change.plan.id, change.column, change.value);
      const relinked = [...links.unlinked, ...links.linked].map((change) => eventOf('plan', 'updated', { ...change.plan, [change.column]: change.value }));
      await this.#changes.commit(trx, { events: [eventOf('plan', 'updated', updated), ...relinked] });
      const group = await repository.findGroupParties(trx, scope.providerId, updated.group_id);
      if (!group) throw new NotFound('group');
      return toPlanResponse(updated, group.carrier_id);
    });
  }

  /**
   * Renews a plan: next plan year's plan as a record of its own, starting the day after this one ends, with
   * the body's dates and rates and everything else copied, linked both ways (previous_plan / next_plan). The
   * plan's configurations are copied too, contribution strategies included, so that the successor prices
   * enrollments at once; their order (which one wins among equals) is kept. 409 if the plan is already renewed.
   */
  async renewPlan(scope: Scope, id: string, input: RenewPlanBody): Promise<PlanResponse> {
    return this.#db.transaction().execute(async (trx) => {
      const found = await repository.findPlanById(trx, scope, id);
      if (!found) throw new NotFound('plan');
      // Like every link change of the employer's plans (see updatePlan).
      await lockEmployerRow(trx, found.provider_id, found.employer_id);
      const current = await repository.lockPlanById(trx, scope, id);
      if (!current) throw new NotFound('plan');
      if (current.next_plan_id !== null) {
        throw new InvalidState(`The plan is already renewed by plan ${current.next_plan_id} (next_plan); a plan has at most one successor.`);
      }
      const given = <T>(value: T | undefined, currentValue: T): T => (value !== undefined ? value : currentValue);
      const terms: PlanTerms = {
        line_of_coverage: current.line_of_coverage,
        rate_basis: current.rate_basis,
        effective_start: input.effective_start ?? renewalStart(current),
        effective_end: input.effective_end,
        premium_type: given(input.premium_type, current.premium_type),
        composite_rates: given(input.composite_rates && canonicalCompositeRates(input.composite_rates), parseCompositeRates(current.composite_rates)),
        age_rates: given(input.age_rates && canonicalAgeRates(input.age_rates), parseAgeRates(current.age_rates)),
      };
      const now = this.#clock.now().toISOString();
      const successor: PlanRow = {
        ...current,
        id: newId('plan'),
        plan_name: input.plan_name ?? current.plan_name,
        effective_start: terms.effective_start,
        effective_end: terms.effective_end,
        premium_type: terms.premium_type,
        composite_rates: jsonOrNull(terms.composite_rates),
        age_rates: jsonOrNull(terms.age_rates),
        guaranteed_issue_volume_cents:
          input.guaranteed_issue_volume !== undefined ? toCentsOrNull(input.guaranteed_issue_volume) : current.guaranteed_issue_volume_cents,
        previous_plan_id: current.id,
        next_plan_id: null,
        metadata: JSON.stringify(mergeMetadata(parseMetadata(current.metadata), input.metadata)),
        created_at: now,
      };
      const errors = [...renewalLinkErrors(current, successor, ['effective_start']), ...planTermsErrors(terms)];
      if (errors.length > 0) throw new ValidationFailed(errors);
      const configurations = await findPlanConfigurationsForPlans(trx, current.provider_id, [current.id]);
      // Copies made in one instant are ordered by id: ordered ids keep the originals' order.
      const copies = configurations.map((configuration): PlanConfigurationRow => ({
        ...configuration,
        id: newId('plan_configuration'),
        plan_id: successor.id,
        created_at: now,
      }));
      await repository.insertPlan(trx, successor);
      await repository.updatePlanLink(trx, current.provider_id, current.id, 'next_plan_id', successor.id);
      for (const copy of copies) await insertPlanConfiguration(trx, copy);
      const linked = [eventOf('plan', 'created', successor), eventOf('plan', 'updated', { ...current, next_plan_id: successor.id })];
      await this.#changes.commit(trx, { events: [...linked, ...copies.map((copy) => eventOf('plan_configuration', 'created', copy))] });
      return toPlanResponse(successor, found.carrier_id);
    });
  }

  /**
   * What a PATCH does to the plan's renewal links (`updated` holds the links and dates asked for): each new
   * link is checked against the rules of plan-renewal.ts at its field, each kept one against the plan's new
   * dates. Returns the neighbours whose side of a link changes: those left (`unlinked`) and those joined.
   */
  async #linkChanges(
    trx: Transaction<Database>,
    scope: Scope,
    current: PlanRow,
    updated: PlanRow,
  ): Promise<{ errors: InputError[]; unlinked: NeighbourChange[]; linked: NeighbourChange[] }> {
    const errors: InputError[] = [];
    const unlinked: NeighbourChange[] = [];
    const linked: NeighbourChange[] = [];
    const named = [updated.previous_plan_id, updated.next_plan_id].filter((planId): planId is string => planId !== null);
    const visible = new Set<string>();
    for (const planId of named) if (await isVisibleReference(trx, scope, 'plan', planId)) visible.add(planId);
    const ids = [...new Set([current.previous_plan_id, current.next_plan_id, ...visible].filter((planId): planId is string => planId !== null))];
    const plans = new Map((await repository.lockPlansByIds(trx, current.provider_id, ids)).map((plan) => [plan.id, plan]));
    const sides = [
      { field: 'previous_plan', own: 'previous_plan_id', theirs: 'next_plan_id' },
      { field: 'next_plan', own: 'next_plan_id', theirs: 'previous_plan_id' },
    ] as const;
    for (const { field, own, theirs } of sides) {
      const before = current[own];
      const after = updated[own];
      const neighbour = after === null ? undefined : plans.get(after);
      if (before === after) {
        // A link kept: the plan's dates may have moved away from its neighbour.
        if (neighbour) errors.push(...linkedDatesErrors(updated, own === 'previous_plan_id' ? { predecessor: neighbour } : { successor: neighbour }));
        continue;
      }
      const left = before === null ? undefined : plans.get(before);
      if (left) unlinked.push({ plan: left, column: theirs, value: null });
      if (after === null) continue;
      if (!neighbour || !visible.has(after)) {
        errors.push(inputError([field], 'No such plan.'));
        continue;
      }
      const [predecessor, successor] = own === 'previous_plan_id' ? [neighbour, updated] : [updated, neighbour];
      errors.push(...renewalLinkErrors(predecessor, successor, [field]));
      linked.push({ plan: neighbour, column: theirs, value: updated.id });
    }
    return { errors, unlinked, linked };
  }
}

/** A neighbour's side of a renewal link changing: `column` of `plan` becomes `value`. */
interface NeighbourChange {
  plan: PlanRow;
  column: 'previous_plan_id' | 'next_plan_id';
  value: string | null;
}

/** Volume rules as stored: money in canonical form ("50000" -> "50000.00"), parts not given left out; the percentage and the flag as given. */
function volumeRulesJson(rules: VolumeRules | null): string | null {
  if (rules === null) return null;
  const canonical = Object.fromEntries(
    Object.entries(rules)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([key, value]) => [key, typeof value === 'boolean' || key === 'spouse_max_percent' ? value : fromCents(toCents(value as string))]),
  );
  return JSON.stringify(canonical);
}

export function parseVolumeRules(json: string | null): VolumeRules | null {
  return json === null ? null : (JSON.parse(json) as VolumeRules);
}
