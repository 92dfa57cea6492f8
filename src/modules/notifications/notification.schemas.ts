import { Type, type Static } from 'typebox';
import { IdSchema, PageQuerySchema, StringEnum, TimestampSchema } from '../../http/schemas.ts';
import { NOTIFICATION_OWNERS, NOTIFICATION_TYPES, RELATED_OBJECT_TYPES } from './notification.table.ts';

export const NotificationSchema = Type.Object(
  {
    id: IdSchema,
    notification_type: StringEnum(NOTIFICATION_TYPES),
    related_object_type: StringEnum(RELATED_OBJECT_TYPES),
    related_object_id: IdSchema,
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'Ids and statuses the reader needs; never personal data' }),
    owner: StringEnum(NOTIFICATION_OWNERS),
    created_at: TimestampSchema,
  },
  { title: 'Notification' },
);
export type NotificationResponse = Static<typeof NotificationSchema>;

export const ListNotificationsQuerySchema = Type.Object(
  {
    ...PageQuerySchema,
    notification_type: Type.Optional(
      Type.Array(Type.String({ maxLength: 500 }), {
        maxItems: 20,
        description: `One or more of ${NOTIFICATION_TYPES.join(', ')}; repeat the parameter or separate values with commas (OR).`,
      }),
    ),
    related_object_id: Type.Optional(IdSchema),
    related_object_type: Type.Optional(StringEnum(RELATED_OBJECT_TYPES)),
  },
  { additionalProperties: false },
);
export type ListNotificationsQuery = Static<typeof ListNotificationsQuerySchema>;
