import { Type, type Static } from 'typebox';
import { DateSchema, IdSchema, MoneySchema, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { MONEY_PATTERN } from '../../shared/money.ts';
import { PAY_RATE_PERIODS } from './pay-rate.table.ts';

const AmountSchema = Type.String({ pattern: MONEY_PATTERN, description: 'Pay per period: a decimal string, at most 2 decimals, greater than zero' });

export const PayRateSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    amount: MoneySchema,
    period: StringEnum(PAY_RATE_PERIODS),
    effective_start: DateSchema,
    created_at: TimestampSchema,
  },
  { title: 'PayRate' },
);
export type PayRateResponse = Static<typeof PayRateSchema>;

export const CreatePayRateBodySchema = Type.Object(
  {
    member: IdSchema,
    amount: AmountSchema,
    period: Type.Optional(StringEnum(PAY_RATE_PERIODS, { default: 'annually' })),
    effective_start: DateSchema,
  },
  { title: 'CreatePayRateBody', additionalProperties: false },
);
export type CreatePayRateBody = Static<typeof CreatePayRateBodySchema>;

/** A pay rate stays with the member it was created for: `member` is not accepted here. */
export const UpdatePayRateBodySchema = Type.Object(
  { amount: Type.Optional(AmountSchema), period: Type.Optional(StringEnum(PAY_RATE_PERIODS)), effective_start: Type.Optional(DateSchema) },
  { title: 'UpdatePayRateBody', additionalProperties: false },
);
export type UpdatePayRateBody = Static<typeof UpdatePayRateBodySchema>;

export const ListPayRatesQuerySchema = Type.Object({ ...PageQuerySchema, member: Type.Optional(IdSchema) }, { additionalProperties: false });
