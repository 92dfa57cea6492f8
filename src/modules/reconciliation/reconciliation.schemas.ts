import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, Nullable, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import { DISCREPANCY_KINDS } from './reconciliation-rules.ts';

const SideSchema = Type.Object({
  plan: IdSchema,
  enrolled_plan: IdSchema,
  effective_start: Nullable(DateSchema),
  effective_end: Nullable(Type.Unsafe<string>({ ...DateSchema, description: 'The last day; null when open-ended or running to the end of its plan year' })),
  dependents: Type.Array(IdSchema),
  volume: Nullable(Type.String({ description: 'Amount of coverage, dollars with two decimals' })),
});

export const DiscrepancySchema = Type.Object(
  {
    member: IdSchema,
    line_of_coverage: StringEnum(LINES_OF_COVERAGE),
    discrepancies: Type.Array(StringEnum(DISCREPANCY_KINDS)),
    ours: Nullable(SideSchema),
    carrier: Nullable(SideSchema),
    pending_benefit_changes: Type.Array(IdSchema, { description: 'Benefit changes of this line recorded and not yet delivered to the carrier, oldest first' }),
    pending_since: Nullable(Type.Unsafe<string>({ ...TimestampSchema, description: 'When the oldest pending change was recorded' })),
    pending_age_days: Nullable(Type.Integer({ description: 'Whole days since pending_since' })),
  },
  { title: 'Discrepancy' },
);
export type DiscrepancyResponse = Static<typeof DiscrepancySchema>;

export const ReconciliationSchema = Type.Object(
  {
    object: Type.Literal('reconciliation'),
    group: IdSchema,
    date: DateSchema,
    results: Type.Array(DiscrepancySchema),
  },
  { title: 'Reconciliation' },
);
export type ReconciliationResponse = Static<typeof ReconciliationSchema>;

export const ReconciliationQuerySchema = Type.Object(
  {
    date: Type.Optional(Type.Unsafe<string>({ ...DateSchema, description: 'The day compared; today by default' })),
    member: Type.Optional(IdSchema),
  },
  { additionalProperties: false },
);
