import { Type, type Static, type TObject, type TSchema, type TUnion } from 'typebox';
import { ID_PATTERN } from '../shared/ids.ts';
import { MONEY_PATTERN } from '../shared/money.ts';
import { STATUS_OF, type ErrorType } from '../shared/errors.ts';

/**
 * The shared primitives every module's schemas are built from (STYLE habit 2): written once, used for
 * validation, serialization, types and the OpenAPI document.
 */
export const IdSchema = Type.String({ pattern: ID_PATTERN, maxLength: 64, description: 'Record identifier' });
export const DateSchema = Type.String({ format: 'date', description: 'Calendar date, YYYY-MM-DD' });
export const TimestampSchema = Type.String({ format: 'date-time', description: 'UTC timestamp (ISO 8601)' });
export const MoneySchema = Type.String({ pattern: MONEY_PATTERN, description: 'Decimal string, at most 2 decimals' });
export const EmailSchema = Type.String({ format: 'email', maxLength: 255 });
// ajv's `uri` format allows an empty host (`https://`); the pattern insists on one.
export const UrlSchema = Type.String({ format: 'uri', pattern: '^https?://[^\\s/?#:@]', maxLength: 2048, description: 'An absolute http(s) URL with a host' });

/** A closed set of string values, rendered as a JSON Schema `enum`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A string that may be set, cleared with null, or left out. The schema's description is the union's too (the reference shows it). */
export function Nullable<T extends TSchema>(schema: T) {
  const description = (schema as { description?: unknown }).description;
  return Type.Union([schema, Type.Null()], typeof description === 'string' ? { description } : {});
}

/**
 * A union of objects told apart by one constant field (e.g. `method`), each branch requiring it. A body is checked
 * only against the branch its value names, so errors point at the real field; an unknown value is one error at
 * that field listing the allowed ones (docs/decisions.md, Requests). JSON Schema `oneOf` with OpenAPI's
 * `discriminator`, which the validators apply (ajv's `discriminator` option, src/http/validators.ts).
 */
/**
 * Gives each named property of `schema` a `description` (for the OpenAPI reference), without touching the shared
 * primitive it was built from: the property is replaced by a copy that keeps TypeBox's hidden markers (optional).
 */
export function describeProperties<T extends TObject>(schema: T, descriptions: { [K in keyof T['properties']]?: string }): T {
  const properties = schema.properties as Record<string, TSchema>;
  for (const [key, description] of Object.entries(descriptions) as [string, string][]) {
    const property = properties[key];
    if (property === undefined) throw new Error(`describeProperties: no property ${key}`);
    properties[key] = Object.create(Object.getPrototypeOf(property) as object | null, {
      ...Object.getOwnPropertyDescriptors(property),
      description: { value: description, enumerable: true, writable: true, configurable: true },
    }) as TSchema;
  }
  return schema;
}

export function DiscriminatedUnion<const T extends TObject[]>(propertyName: string, branches: [...T], options: { description?: string } = {}) {
  return Type.Unsafe<Static<TUnion<T>>>({ type: 'object', oneOf: branches, discriminator: { propertyName }, ...options });
}

export const US_STATES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'DC',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
] as const;

export const AddressSchema = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 255, description: 'Street address' }),
    line2: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Apartment, suite or unit' }))),
    city: Type.String({ minLength: 1, maxLength: 255, description: 'City' }),
    state: StringEnum(US_STATES, { description: 'US state code (50 states and DC)' }),
    zip_code: Type.String({ pattern: '^[0-9]{5}(-[0-9]{4})?$', description: 'ZIP code: 12345 or 12345-6789' }),
  },
  { title: 'Address', additionalProperties: false },
);
export type Address = Static<typeof AddressSchema>;

/** Addresses as answered: line2 always present, null when unset. */
export const AddressResponseSchema = Type.Object(
  { ...AddressSchema.properties, line2: Type.Union([Type.String(), Type.Null()], { description: 'Apartment, suite or unit; null when unset' }) },
  { title: 'AddressResponse' },
);
export type AddressResponse = Static<typeof AddressResponseSchema>;

export function parseAddress(json: string): AddressResponse {
  const address = JSON.parse(json) as Address;
  return { ...address, line2: address.line2 ?? null };
}

/**
 * Metadata as accepted in requests. Sizes are checked by shared/metadata.ts so that every message names the
 * offending key and the 50-pair limit applies to the merged result.
 */
export const MetadataSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Up to 50 string pairs; key at most 40 characters, value at most 500; "" removes a key.',
});
export const MetadataResponseSchema = Type.Record(Type.String(), Type.String(), {
  description: 'Your own key-value pairs for this record (up to 50), as last set',
});

export const ErrorBodySchema = Type.Object(
  {
    type: StringEnum(Object.keys(STATUS_OF) as ErrorType[], { description: 'Stable error type' }),
    message: Type.String(),
    input_errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String(),
          field_path: Type.Array(Type.String()),
          message: Type.String(),
        }),
      ),
    ),
    request_id: Type.String(),
  },
  { title: 'ErrorBody' },
);
export type ErrorBody = Static<typeof ErrorBodySchema> & { type: ErrorType };

export const IdParamsSchema = Type.Object({ public_id: Type.String({ pattern: ID_PATTERN, maxLength: 64 }) });

/**
 * The body of an action that takes none (approve, cancel, ...): no body at all, or an empty object, which many
 * HTTP clients send for a JSON POST without fields (Python's `requests.post(json={})`). Routes get it from
 * acceptEmptyObjectBodies (routing.ts); the validators accept a missing body for it (validators.ts).
 */
/**
 * Marks the body of an action whose fields are all optional (e.g. a census import's apply, with its optional
 * confirm_terminations): like an action without fields, it may be sent with no body at all, `{}` or its fields
 * (docs/decisions.md "Requests"). The validators accept a missing body for it (validators.ts) and the OpenAPI
 * document makes its request body optional (openapi-document.ts).
 */
export const OPTIONAL_BODY_KEYWORD = 'x-body-optional';
export function OptionalBodySchema<T extends TObject>(schema: T): T {
  return Object.assign(schema, { [OPTIONAL_BODY_KEYWORD]: true });
}

export const EMPTY_BODY_TITLE = 'EmptyBody';
export const EmptyBodySchema = Type.Object(
  {},
  { title: EMPTY_BODY_TITLE, additionalProperties: false, description: 'This action takes no fields: send no body, or an empty object `{}`' },
);

/**
 * A list filter on an id another system gave a record (an employer's `external_id`, a member's
 * `payroll_provider_external_id`): exact match, within the caller's provider (docs/decisions.md "Lookups by
 * external ids").
 */
export function ExternalIdQuerySchema(description: string) {
  // No NUL character: PostgreSQL cannot compare text holding one (the body parser refuses them the same way).
  return Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\u0000]*$', description }));
}

export const PageQuerySchema = {
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
};

/** A page of a list: named `<Item>List` in the OpenAPI document when its item has a title. */
export function PageSchema<T extends TSchema>(item: T) {
  const itemTitle = (item as { title?: unknown }).title;
  const title = typeof itemTitle === 'string' ? `${itemTitle}List` : undefined;
  return Type.Object(
    {
      next: Type.Union([Type.String(), Type.Null()], { description: 'The URL of the next page, or null on the last' }),
      previous: Type.Union([Type.String(), Type.Null()], { description: 'The URL of the previous page, or null on the first' }),
      results: Type.Array(item, { description: 'The records of this page, in order' }),
    },
    title === undefined ? {} : { title },
  );
}

export const DeletedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.String(),
    deleted: Type.Literal(true),
  },
  { title: 'Deleted' },
);

/** Standard error responses a route declares next to its success response. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorBodySchema])) as Record<number, typeof ErrorBodySchema>;
