import { Type, type Static } from 'typebox';
import { IdSchema, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { ALERT_AUDIENCES, ALERT_KINDS } from './alert.table.ts';

export const AlertSchema = Type.Object(
  {
    id: IdSchema,
    kind: StringEnum(ALERT_KINDS),
    audience: StringEnum(ALERT_AUDIENCES, { description: "Who must act: the provider's admins, the employer, or the member" }),
    employer: Type.Union([IdSchema, Type.Null()]),
    member: Type.Union([IdSchema, Type.Null()]),
    related_object_type: Type.String({ description: 'The record to act on, e.g. benefit_change, edi_file' }),
    related_object_id: IdSchema,
    message: Type.String({ description: 'What happened and what to do; never personal data' }),
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'Ids and statuses the reader needs; never personal data' }),
    created_at: TimestampSchema,
  },
  { title: 'Alert' },
);
export type AlertResponse = Static<typeof AlertSchema>;

export const ListAlertsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    kind: Type.Optional(StringEnum(ALERT_KINDS)),
    audience: Type.Optional(StringEnum(ALERT_AUDIENCES)),
    related_object_id: Type.Optional(IdSchema),
    member: Type.Optional(IdSchema),
  },
  { additionalProperties: false },
);
export type ListAlertsQuery = Static<typeof ListAlertsQuerySchema>;
