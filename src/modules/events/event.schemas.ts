import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { EVENT_OBJECT_TYPES } from './event.table.ts';
import { EVENT_TYPES } from './event-types.ts';

export const EventSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('event'),
    event_type: StringEnum(EVENT_TYPES, { description: '<object_type>.<action>, e.g. enrollment.approved, member.updated, notification.created' }),
    object_type: StringEnum(EVENT_OBJECT_TYPES),
    object_id: IdSchema,
    employer: Nullable(IdSchema),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Ids and statuses of the object as the change left it; never personal data' }),
    created_at: TimestampSchema,
  },
  { title: 'Event' },
);
export type EventResponse = Static<typeof EventSchema>;

export const ListEventsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    type: Type.Optional(
      Type.Array(Type.String({ maxLength: 500 }), {
        maxItems: 20,
        description:
          'One or more event types (e.g. enrollment.approved), or <object_type>.* for every event of an object type; repeat the parameter or separate values with commas (OR).',
      }),
    ),
    object_id: Type.Optional(IdSchema),
    object_type: Type.Optional(StringEnum(EVENT_OBJECT_TYPES)),
    employer: Type.Optional(IdSchema),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created strictly after this instant' })),
    created_before: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created strictly before this instant' })),
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuerySchema>;
