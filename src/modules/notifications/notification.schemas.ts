import { Type, type Static } from 'typebox';
import { IdSchema, PageQuerySchema, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
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
describeProperties(NotificationSchema, {
  notification_type: 'What happened (the event type it reports)',
  related_object_type: 'The kind of record it is about (e.g. member)',
  related_object_id: 'The record it is about (its identifier)',
  owner: 'Who the notification is for: member, employer or broker',
});
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
