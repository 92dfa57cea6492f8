import type { ApiClient } from './test-app.ts';
import { createGroup } from './factories.ts';

async function created(client: ApiClient, path: string, body: Record<string, unknown>) {
  const response = await client.post(path, body);
  if (response.status !== 201) {
    throw new Error(`POST ${path} answered ${response.status}: ${response.text}`);
  }
  return response.body;
}

/** Monthly composite rates for the five coverage tiers. */
export const compositeRates = (overrides: Record<string, unknown> = {}) => ({
  member: '512.40',
  member_spouse: '1080.00',
  member_child: '905.15',
  member_children: '1210.00',
  member_family: '1650.75',
  ...overrides,
});

/** Age bands as a carrier quotes them (a few representative bands). */
export const ageRates = () => [
  { age: 0, amount: '210.00' },
  { age: 21, amount: '330.50' },
  { age: 30, amount: '375.00' },
  { age: 40, amount: '452.25' },
  { age: 50, amount: '640.00' },
  { age: 64, amount: '980.00' },
];

/** One tier's contribution rule. */
export const contributionRule = (contribution = '75', monthly_min_threshold = '0.00', monthly_max_threshold = '1500.00') => ({
  contribution,
  monthly_min_threshold,
  monthly_max_threshold,
});

/** A complete ContributionStrategy: every tier, with overrides per tier. */
export const contributionStrategy = (overrides: Record<string, unknown> = {}) => ({
  member: contributionRule('100', '0.00', '600.00'),
  member_spouse: contributionRule('75', '250.00', '900.00'),
  member_child: contributionRule('75', '250.00', '900.00'),
  member_children: contributionRule('60', '300.00', '1000.00'),
  member_family: contributionRule('50.5', '400.00', '1200.00'),
  ...overrides,
});

/**
 * A plan through the API. Without `group`, a new group is created (of `employer` when given, else of a new
 * employer); the admin client must then be able to create groups and carriers.
 */
export async function createPlan(client: ApiClient, overrides: Record<string, unknown> & { employer?: string } = {}) {
  const { employer, ...rest } = overrides;
  const group = rest.group ?? (await createGroup(client, employer === undefined ? {} : { employer })).id;
  return created(client, '/plans', {
    plan_name: 'Gold PPO 1500',
    line_of_coverage: 'medical',
    effective_start: '2026-01-01',
    effective_end: '2026-12-31',
    ...rest,
    group,
  });
}

/**
 * A plan configuration through the API; without `plan`, a new plan (of `employer` when given) is created. Its
 * coverage_start_rule is end_of_waiting_period unless given (the API's default before
 * first_of_month_following_waiting_period, which the tests written then count on); pass
 * `coverage_start_rule: undefined` to let the API choose.
 */
export async function createPlanConfiguration(client: ApiClient, overrides: Record<string, unknown> & { employer?: string } = {}) {
  const { employer, ...rest } = overrides;
  const plan = rest.plan ?? (await createPlan(client, employer === undefined ? {} : { employer })).id;
  return created(client, '/plan_configurations', { coverage_start_rule: 'end_of_waiting_period', ...rest, plan });
}
