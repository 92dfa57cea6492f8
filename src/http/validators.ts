import type { FastifyInstance } from 'fastify';
import { Ajv, type ErrorObject, type Format, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseDate, parseTimestamp } from '../shared/dates.ts';
import { MAX_INPUT_ERRORS } from './json-body.ts';
import { EMPTY_BODY_TITLE, OPTIONAL_BODY_KEYWORD } from './schemas.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv, options: { mode: 'full' }) => Ajv;

/**
 * Longest text any string format (email, uri, date-time, ...) is checked against: every formatted field of the
 * API is far shorter, and some format checks cost much more than the length of what they read.
 */
const MAX_FORMATTED_LENGTH = 4096;

/**
 * Bodies are validated strictly (no type coercion, unknown fields are errors); query strings and path
 * parameters are coerced from text, as they must be. Both are bounded in cost (STYLE habit 13): formats are
 * checked only on text of a sane length, and an array over its `maxItems` is refused before ajv, which with
 * `allErrors` would otherwise check every one of its items.
 */
export function installValidators(app: FastifyInstance): void {
  // verbose: errors carry their schema, so messages can use its description instead of a raw pattern.
  // discriminator: a union marked with one (DiscriminatedUnion in schemas.ts) is checked against the branch it names.
  const common = { useDefaults: true, removeAdditional: false, allErrors: true, strict: false, verbose: true, discriminator: true } as const;
  const bodyAjv = boundedFormats(addFormats(new Ajv({ ...common, coerceTypes: false }), { mode: 'full' }));
  const textAjv = boundedFormats(addFormats(new Ajv({ ...common, coerceTypes: 'array' }), { mode: 'full' }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && (schema as { title?: unknown }).title === EMPTY_BODY_TITLE) return validateEmptyBody;
    const validate = withItemLimits(schema as SchemaNode, (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
    return httpPart === 'body' && (schema as Record<string, unknown>)[OPTIONAL_BODY_KEYWORD] === true ? orNoBody(validate) : validate;
  });
}

/**
 * The body of an action whose fields are all optional (OptionalBodySchema): none at all (Fastify hands a missing
 * body to validators as null, so a JSON `null` reads as none too), or what the schema allows.
 */
function orNoBody(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    if (data === undefined || data === null) return true;
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return checked;
}

const EMPTY_BODY_MESSAGE = 'this action takes no fields: send no body, or an empty object {}';

/**
 * The body of an action that takes none (EmptyBodySchema): none at all, or `{}`. Anything else is one error
 * per field (at most MAX_INPUT_ERRORS), or one for the body when it is not an object. Fastify hands a missing
 * body to validators as null, so a JSON `null` body reads as none too.
 */
const validateEmptyBody = ((data: unknown) => {
  if (data === undefined || data === null) return true;
  const isObject = data !== null && typeof data === 'object' && !Array.isArray(data);
  const fields = isObject ? Object.keys(data).slice(0, MAX_INPUT_ERRORS) : [];
  if (isObject && fields.length === 0) return true;
  const places = isObject ? fields.map((field) => `/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`) : [''];
  validateEmptyBody.errors = places.map((instancePath) => ({ instancePath, schemaPath: '#', keyword: 'emptyBody', params: {}, message: EMPTY_BODY_MESSAGE }));
  return false;
}) as ValidateFunction;

/** Every string format behind a length check; dates and timestamps through the one parser each (shared/dates.ts). */
function boundedFormats(ajv: Ajv): Ajv {
  const formats: Record<string, (text: string) => boolean> = {
    // The range both databases store.
    date: (text) => parseDate(text) !== undefined,
    'date-time': (text) => parseTimestamp(text) !== undefined,
  };
  for (const [name, format] of Object.entries(ajv.formats)) {
    if (formats[name]) continue;
    const test = stringTest(format);
    if (test) formats[name] = test;
  }
  for (const [name, test] of Object.entries(formats)) {
    ajv.addFormat(name, { type: 'string', validate: (text: string) => text.length <= MAX_FORMATTED_LENGTH && test(text) });
  }
  return ajv;
}

function stringTest(format: Format | undefined): ((text: string) => boolean) | undefined {
  if (format instanceof RegExp) return (text) => format.test(text);
  if (typeof format === 'function') return (text) => format(text);
  if (typeof format === 'object' && (format.type ?? 'string') === 'string' && !format.async) {
    const { validate } = format as { validate: RegExp | ((text: string) => boolean) };
    return validate instanceof RegExp ? (text) => validate.test(text) : (text) => validate(text);
  }
  return undefined;
}

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  maxItems?: number;
  anyOf?: SchemaNode[];
}

/**
 * Runs before the ajv validator: an array (at any depth the schema names through plain properties and items)
 * longer than its `maxItems` is the one error reported. One walk over the body's arrays, linear in its size.
 */
function withItemLimits(schema: SchemaNode, validate: ValidateFunction): ValidateFunction {
  if (!hasItemLimit(schema)) return validate;
  const checked = ((data: unknown) => {
    const tooLong = arrayOverLimit(schema, data, '');
    if (tooLong) {
      checked.errors = [tooLong];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return checked;
}

function hasItemLimit(schema: SchemaNode | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (schema.maxItems !== undefined) return true;
  return Object.values(schema.properties ?? {}).some(hasItemLimit) || hasItemLimit(schema.items) || (schema.anyOf ?? []).some(hasItemLimit);
}

/** The most items any array branch of a union allows, when every array branch has a limit. */
function unionItemLimit(branches: SchemaNode[] | undefined): number | undefined {
  const arrays = (branches ?? []).filter((branch) => branch.type === 'array' || branch.items !== undefined);
  if (arrays.length === 0 || arrays.some((branch) => branch.maxItems === undefined)) return undefined;
  return Math.max(...arrays.map((branch) => branch.maxItems as number));
}

function arrayOverLimit(schema: SchemaNode | undefined, data: unknown, path: string): ErrorObject | undefined {
  if (!schema || typeof schema !== 'object' || data === null || typeof data !== 'object') return undefined;
  if (Array.isArray(data)) {
    const limit = schema.maxItems ?? unionItemLimit(schema.anyOf);
    if (limit !== undefined && data.length > limit) {
      return { instancePath: path, schemaPath: '#/maxItems', keyword: 'maxItems', params: { limit }, message: `must NOT have more than ${limit} items` };
    }
    for (let index = 0; schema.items && index < data.length; index++) {
      const found = arrayOverLimit(schema.items, data[index], `${path}/${index}`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const found = arrayOverLimit(property, (data as Record<string, unknown>)[key], `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found) return found;
  }
  return undefined;
}
