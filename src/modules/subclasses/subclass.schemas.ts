import { Type, type Static } from 'typebox';
import { IdSchema, PageQuerySchema, StringEnum, TimestampSchema, describeProperties } from '../../http/schemas.ts';
import { SUBCLASS_CATEGORIES } from './subclass.table.ts';

const CategorySchema = StringEnum(SUBCLASS_CATEGORIES);
const NameSchema = Type.String({ minLength: 1, maxLength: 255 });

export const SubclassSchema = Type.Object(
  {
    id: IdSchema,
    category: CategorySchema,
    name: Type.String(),
    employer: IdSchema,
    is_default: Type.Boolean({ description: "Whether this is the employer's default subclass of its category (at most one is)" }),
    created_at: TimestampSchema,
  },
  { title: 'Subclass' },
);
describeProperties(SubclassSchema, {
  category: 'The kind of grouping (e.g. department)',
  name: 'Name of the subclass',
  employer: 'The employer the subclass belongs to (employer identifier)',
});
export type SubclassResponse = Static<typeof SubclassSchema>;

export const CreateSubclassBodySchema = Type.Object(
  {
    category: CategorySchema,
    name: NameSchema,
    employer: IdSchema,
    is_default: Type.Optional(Type.Boolean({ default: false, description: 'Making one the default unsets the others of its category' })),
  },
  { title: 'CreateSubclassBody', additionalProperties: false },
);
export type CreateSubclassBody = Static<typeof CreateSubclassBodySchema>;

/** The employer of a subclass is fixed; members and plan configurations refer to it. */
export const UpdateSubclassBodySchema = Type.Object(
  { category: Type.Optional(CategorySchema), name: Type.Optional(NameSchema), is_default: Type.Optional(Type.Boolean()) },
  { title: 'UpdateSubclassBody', additionalProperties: false },
);
export type UpdateSubclassBody = Static<typeof UpdateSubclassBodySchema>;

export const ListSubclassesQuerySchema = Type.Object({ ...PageQuerySchema, employer: Type.Optional(IdSchema) }, { additionalProperties: false });
