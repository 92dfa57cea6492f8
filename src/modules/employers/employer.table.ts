import type { Generated, Selectable } from 'kysely';
import type { HoursMeasurementMethod } from '../coverage/eligibility-loss-rules.ts';

export interface EmployerTable {
  id: string;
  provider_id: string;
  legal_name: string;
  trade_name: string | null;
  federal_ein: string | null;
  email: string | null;
  phone_number: string | null;
  /** Address as JSON text. */
  address: string;
  external_id: string | null;
  /** Metadata as JSON text. */
  metadata: string;
  /** How full-time status is measured, which decides when a loss of eligibility ends coverage (eligibility-loss-rules.ts). */
  hours_measurement_method: Generated<HoursMeasurementMethod>;
  /** 'MM-DD': the first day of the stability periods each year (look_back). */
  stability_period_start: string | null;
  stability_period_months: number | null;
  created_at: string;
}

export type EmployerRow = Selectable<EmployerTable>;
