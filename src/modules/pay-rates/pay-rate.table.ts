import type { Selectable } from 'kysely';

export const PAY_RATE_PERIODS = ['annually', 'hourly'] as const;
export type PayRatePeriod = (typeof PAY_RATE_PERIODS)[number];

export interface PayRateTable {
  id: string;
  provider_id: string;
  employer_id: string;
  member_id: string;
  amount_cents: number;
  period: PayRatePeriod;
  effective_start: string;
  created_at: string;
}

export type PayRateRow = Selectable<PayRateTable>;
