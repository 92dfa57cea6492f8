import type { Generated, Selectable } from 'kysely';
import type { AgeOutRule, CoverageStartRule, TerminationPolicy } from './eligibility.ts';

export interface PlanConfigurationTable {
  id: string;
  provider_id: string;
  /** The plan's employer. */
  employer_id: string;
  plan_id: string;
  waiting_period_days: number;
  termination_policy: TerminationPolicy;
  dependent_age_limit: number;
  dependent_age_out_rule: AgeOutRule;
  required_subclass_id: string | null;
  coverage_start_rule: CoverageStartRule;
  /** The least scheduled hours a week (member hours_worked) for eligibility, or null for any. */
  minimum_hours_per_week: number | null;
  /** JSON text: the employment statuses eligible (EMPLOYMENT_STATUSES), or null for any. */
  eligible_employment_statuses: string | null;
  /** Whether an admin's rules_override on an enrollment waives the waiting period (members/rehire-rules.ts waitingPeriodBasis). */
  waiting_period_waiver_allowed: Generated<boolean | number>;
  /** JSON text of the ContributionStrategy (POST /plan_configurations/{id}/contribution_strategy), or null until one is set. */
  contribution_strategy: string | null;
  /** The code payroll files this configuration's deduction under; null for the plan's line of coverage. */
  deduction_code: string | null;
  /** How the deduction is taxed (TaxTreatment); null for the line's default (payroll/deduction-rules.ts). */
  tax_treatment: 'pre_tax_125' | 'post_tax' | 'imputed' | null;
  metadata: string;
  created_at: string;
}

export type PlanConfigurationRow = Selectable<PlanConfigurationTable>;
