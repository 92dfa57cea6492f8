import { Type, type Static } from 'typebox';
import { IdSchema, Nullable, PageQuerySchema, TimestampSchema } from '../../http/schemas.ts';

/** At most this many coverage items on one card, per kind: far above any real card. */
export const MAX_CARD_ASSIGNMENTS = 100;

const CardNumberSchema = Type.String({ minLength: 1, maxLength: 255 });

export const MemberIdCardSchema = Type.Object(
  {
    id: IdSchema,
    member: IdSchema,
    carrier: Nullable(IdSchema),
    member_number: Nullable(Type.String()),
    group_number: Nullable(Type.String()),
    document: Nullable(IdSchema),
    enrolled_plans: Type.Array(IdSchema, { description: 'Ids of the enrolled plans this card is assigned to' }),
    enrolled_dependents: Type.Array(IdSchema, { description: 'Ids of the enrolled dependents this card is assigned to' }),
    created_at: TimestampSchema,
  },
  { title: 'MemberIdCard' },
);
export type MemberIdCardResponse = Static<typeof MemberIdCardSchema>;

export const CreateMemberIdCardBodySchema = Type.Object(
  {
    member: IdSchema,
    carrier: Type.Optional(Nullable(IdSchema)),
    member_number: Type.Optional(Nullable(CardNumberSchema)),
    group_number: Type.Optional(Nullable(CardNumberSchema)),
    // An image or PDF of the card uploaded with POST /documents, of the member or their employer.
    document: Type.Optional(Nullable(IdSchema)),
    enrolled_plans: Type.Optional(
      Type.Array(IdSchema, {
        maxItems: MAX_CARD_ASSIGNMENTS,
        uniqueItems: true,
        description: "Enrolled plans of the member's enrollments to assign the card to (moves them off any other card)",
      }),
    ),
    enrolled_dependents: Type.Optional(
      Type.Array(IdSchema, {
        maxItems: MAX_CARD_ASSIGNMENTS,
        uniqueItems: true,
        description: "Enrolled dependents of the member's enrolled plans to assign the card to (moves them off any other card)",
      }),
    ),
  },
  { title: 'CreateMemberIdCardBody', additionalProperties: false },
);
export type CreateMemberIdCardBody = Static<typeof CreateMemberIdCardBodySchema>;

export const ListMemberIdCardsQuerySchema = Type.Object({ ...PageQuerySchema, member: Type.Optional(IdSchema) }, { additionalProperties: false });
export type ListMemberIdCardsQuery = Static<typeof ListMemberIdCardsQuerySchema>;
