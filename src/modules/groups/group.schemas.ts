import { Type, type Static } from 'typebox';
import { IdSchema, MetadataResponseSchema, MetadataSchema, PageQuerySchema, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
import { CONNECTION_METHODS } from './group.table.ts';

const GroupNumberSchema = Type.String({ minLength: 1, maxLength: 255, description: 'The number the carrier gave the group' });
const ConnectionMethodSchema = StringEnum(CONNECTION_METHODS, { description: 'How enrollment changes reach the carrier' });

export const GroupSchema = Type.Object(
  {
    id: IdSchema,
    group_number: Type.String(),
    carrier: IdSchema,
    employer: IdSchema,
    connection_method: ConnectionMethodSchema,
    metadata: MetadataResponseSchema,
    created_at: TimestampSchema,
  },
  { title: 'Group' },
);
describeProperties(GroupSchema, {
  group_number: 'The number the carrier gave the group',
  carrier: 'The carrier (carrier identifier)',
  employer: 'The employer the group covers (employer identifier)',
});
export type GroupResponse = Static<typeof GroupSchema>;

export const CreateGroupBodySchema = Type.Object(
  {
    group_number: GroupNumberSchema,
    carrier: IdSchema,
    employer: IdSchema,
    connection_method: Type.Optional(StringEnum(CONNECTION_METHODS, { description: 'Defaults to manual', default: 'manual' })),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'CreateGroupBody', additionalProperties: false },
);
export type CreateGroupBody = Static<typeof CreateGroupBodySchema>;

/** The employer of a group is fixed: a group that changes hands is a new group. */
export const UpdateGroupBodySchema = Type.Object(
  {
    group_number: Type.Optional(GroupNumberSchema),
    carrier: Type.Optional(IdSchema),
    connection_method: Type.Optional(ConnectionMethodSchema),
    metadata: Type.Optional(MetadataSchema),
  },
  { title: 'UpdateGroupBody', additionalProperties: false },
);
export type UpdateGroupBody = Static<typeof UpdateGroupBodySchema>;

export const ListGroupsQuerySchema = Type.Object({ ...PageQuerySchema, employer: Type.Optional(IdSchema) }, { additionalProperties: false });
