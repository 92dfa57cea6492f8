import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PERCENTAGE_PATTERN } from '../modules/plans/pricing.ts';
import { ID_PATTERN } from '../shared/ids.ts';
import { DATE_INPUT_MESSAGE, TIMESTAMP_INPUT_MESSAGE } from '../shared/dates.ts';
import { MONEY_PATTERN } from '../shared/money.ts';
import { SSN_INPUT_PATTERN } from '../shared/ssn.ts';
import { isTransientConflict } from '../db/transaction-conflicts.ts';
import { AppError, ConcurrentChange, STATUS_OF, inputError, type ErrorType, type InputError } from '../shared/errors.ts';
import { MAX_INPUT_ERRORS, MAX_JSON_VALUES } from './json-body.ts';
import type { ErrorBody } from './schemas.ts';

interface AjvLikeError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** Present because the validators run with ajv's `verbose` option. */
  parentSchema?: { description?: string; oneOf?: { properties?: Record<string, { const?: unknown; enum?: unknown[] }> }[] };
}

/** Fastify's own error codes that are the client's fault, and what they mean in our vocabulary. */
const FASTIFY_CLIENT_ERRORS: Record<string, [ErrorType, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'The request body is larger than the limit of this route.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_request', 'Content-Length does not match the body.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_request', 'The JSON body is empty.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_request', 'The body is not valid JSON.'],
};

/** One place that turns every error into the error body (docs/decisions.md "Requests"). */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    const { status, body, headers } = toErrorResponse(error, request);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    if (headers) void reply.headers(headers);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const { status, body, headers } = toErrorResponse(error, request);
  if (headers) void reply.headers(headers);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

function toErrorResponse(thrown: unknown, request: FastifyRequest): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  // A deadlock or serialization failure no retry absorbed: the client may send the request again, not a 5xx.
  const error = isTransientConflict(thrown) ? new ConcurrentChange() : thrown;
  const render = (type: ErrorType, message: string, inputErrors?: InputError[]) => ({
    status: STATUS_OF[type],
    body: { type, message, ...(inputErrors ? { input_errors: inputErrors } : {}), request_id: request.id },
  });

  if (error instanceof AppError) {
    // Services may find thousands of wrong fields (metadata keys, ...): the first MAX_INPUT_ERRORS say enough.
    const inputErrors = error.inputErrors?.slice(0, MAX_INPUT_ERRORS);
    return { ...render(error.type, error.message, inputErrors), ...(error.headers ? { headers: error.headers } : {}) };
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvLikeError[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const context = fastifyError.validationContext ?? 'body';
    const inputErrors = firstPerField(withoutUnionNoise(inChosenBranches(fastifyError.validation)).map((e) => toInputError(e, context)));
    if (context === 'body') return render('validation_error', 'Invalid data passed for fields', inputErrors);
    if (context === 'params') return render('not_found', 'No such record.');
    return render('invalid_request', `Invalid ${context === 'querystring' ? 'query parameters' : context}.`, inputErrors);
  }
  const known = fastifyError.code ? FASTIFY_CLIENT_ERRORS[fastifyError.code] : undefined;
  if (known) return render(known[0], known[1]);
  if (error instanceof SyntaxError || fastifyError.statusCode === 400) {
    return render('invalid_request', 'The request is malformed.');
  }
  if (fastifyError.statusCode === 413) return render('payload_too_large', 'The request body is too large.');
  if (fastifyError.statusCode === 415) return render('unsupported_media_type', 'Request bodies must be JSON.');
  return render('internal_error', 'Something went wrong on our side. Quote the request id when reporting it.');
}

/** An ajv error as an input error with its field path (e.g. ['address', 'state']; docs/decisions.md "Requests"). */
function toInputError(error: AjvLikeError, context: string): InputError {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  switch (error.keyword) {
    case 'required':
      return inputError([...path, String(error.params.missingProperty)], 'This field is required.');
    case 'additionalProperties':
      return inputError(
        [...path, String(error.params.additionalProperty)],
        context === 'querystring' ? 'Unknown query parameter.' : 'Unknown field; check its spelling.',
      );
    case 'propertyNames':
      return inputError([...path, String(error.params.propertyName)], 'Invalid key.');
    case 'format':
      return inputError(path, formatMessage(String(error.params.format)));
    case 'enum':
      return inputError(path, `Must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}.`);
    case 'anyOf':
      return inputError(path, 'Invalid value.');
    case 'discriminator': {
      // A DiscriminatedUnion (http/schemas.ts) whose field is missing or names no branch.
      const field = String(error.params.tag);
      if (error.params.tagValue === undefined) return inputError([...path, field], 'This field is required.');
      return inputError([...path, field], `Must be one of: ${discriminatorValues(error.parentSchema, field).join(', ')}.`);
    }
    case 'pattern':
      return inputError(path, PATTERN_MESSAGES[String(error.params.pattern)] ?? describedFormat(error.parentSchema?.description));
    default:
      return inputError(path, capitalize(error.message ?? 'Invalid value.'));
  }
}

/** The values of a discriminated union's field, branch by branch. */
function discriminatorValues(union: AjvLikeError['parentSchema'], field: string): unknown[] {
  return (union?.oneOf ?? []).flatMap((branch) => {
    const property = branch.properties?.[field];
    return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
  });
}

/**
 * A union without a discriminator (`anyOf`: an enrollment's `enrolled_plans` is elections or EOI decisions)
 * reports the errors of every branch; only those of the branch the value comes closest to are useful: the branch
 * with the fewest fields missing or unknown, then the fewest other errors, never one whose very type the value
 * is not (ties: the first). An EOI decision with a
 * wrong `eoi_status` is then one error at eoi_status, not "plan is required, id and eoi_status unknown". When the
 * value is of no branch's type, every error is kept (withoutUnionNoise sorts them). Linear in the errors: each is
 * matched to its unions by its schema path's `anyOf` steps and its instance path's prefixes (at most
 * MAX_JSON_DEPTH).
 */
function inChosenBranches(errors: AjvLikeError[]): AjvLikeError[] {
  // Every failed union: its schema path (ending in /anyOf) and the places it failed at.
  const unions = new Map<string, Set<string>>();
  for (const error of errors) {
    if (error.keyword !== 'anyOf' || error.schemaPath === undefined) continue;
    const places = unions.get(error.schemaPath) ?? new Set<string>();
    places.add(error.instancePath);
    unions.set(error.schemaPath, places);
  }
  if (unions.size === 0) return errors;
  // Each error's branch of each union it is inside: `${union}|${place}` -> branch index.
  const branchesOf = errors.map((error) => {
    const found: [string, number][] = [];
    const schemaPath = error.schemaPath ?? '';
    for (let at = schemaPath.indexOf('/anyOf/'); at >= 0; at = schemaPath.indexOf('/anyOf/', at + 1)) {
      const unionPath = schemaPath.slice(0, at + '/anyOf'.length);
      const places = unions.get(unionPath);
      if (!places) continue;
      const place = placeAmong(places, error.instancePath);
      if (place !== undefined) found.push([`${unionPath}|${place}`, Number.parseInt(schemaPath.slice(at + '/anyOf/'.length), 10)]);
    }
    return found;
  });
  // Per union: errors per branch, and the branches the value is not even the type of.
  const scores = new Map<string, Map<number, number>>();
  errors.forEach((error, index) => {
    for (const [union, branch] of branchesOf[index]!) {
      const branchScores = scores.get(union) ?? new Map<number, number>();
      const [unionPath, place] = union.split('|') as [string, string];
      const wrongType = error.keyword === 'type' && error.instancePath === place && error.schemaPath === `${unionPath}/${branch}/type`;
      // A field missing or unknown says the value is of another shape: it weighs more than any number of wrong values.
      const weight = error.keyword === 'required' || error.keyword === 'additionalProperties' ? MAX_JSON_VALUES : 1;
      branchScores.set(branch, wrongType ? Infinity : (branchScores.get(branch) ?? 0) + weight);
      scores.set(union, branchScores);
    }
  });
  const chosen = new Map<string, number>();
  for (const [union, branchScores] of scores) {
    let best: [number, number] | undefined;
    for (const [branch, score] of [...branchScores].sort((a, b) => a[0] - b[0])) if (score !== Infinity && (!best || score < best[1])) best = [branch, score];
    if (best) chosen.set(union, best[0]);
  }
  return errors.filter((_error, index) => branchesOf[index]!.every(([union, branch]) => !chosen.has(union) || chosen.get(union) === branch));
}

/** The place in `places` that is `instancePath` or one of its parents (a JSON pointer prefix), if any. */
function placeAmong(places: Set<string>, instancePath: string): string | undefined {
  for (let path = instancePath; ; path = path.slice(0, Math.max(0, path.lastIndexOf('/')))) {
    if (places.has(path)) return path;
    if (path === '') return undefined;
  }
}

/**
 * A nullable object that is wrong inside reports the inner error and also "must be null" and "must match a
 * schema in anyOf" for the object itself; those two say nothing useful when a more precise error exists at
 * the same place or deeper. Linear: the places of the precise errors and of their parents are collected once.
 */
function withoutUnionNoise(errors: AjvLikeError[]): AjvLikeError[] {
  const isNoise = (error: AjvLikeError) => error.keyword === 'anyOf' || (error.keyword === 'type' && error.params.type === 'null');
  const explained = new Set<string>();
  for (const error of errors) {
    if (isNoise(error)) continue;
    // The error's own place and every place above it (bodies nest at most MAX_JSON_DEPTH levels).
    for (let path = error.instancePath; !explained.has(path); path = path.slice(0, Math.max(0, path.lastIndexOf('/')))) {
      explained.add(path);
      if (path === '') break;
    }
  }
  return errors.filter((error) => !isNoise(error) || !explained.has(error.instancePath));
}

/**
 * A union reports one error per branch; the first one per field says the most. At most MAX_INPUT_ERRORS are
 * reported: a body with thousands of wrong fields learns enough from the first hundred.
 */
function firstPerField(errors: InputError[]): InputError[] {
  const seen = new Set<string>();
  const out: InputError[] = [];
  for (const error of errors) {
    const key = error.field_path.join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(error);
    if (out.length === MAX_INPUT_ERRORS) break;
  }
  return out;
}

/** Patterns said in words: a client should never have to read a regular expression. */
const PATTERN_MESSAGES: Record<string, string> = {
  [MONEY_PATTERN]: 'Must be a decimal string with at most 2 decimals, e.g. "412.50".',
  [PERCENTAGE_PATTERN]: 'Must be a percentage from "0" to "100" with at most 2 decimals.',
  [ID_PATTERN]: 'Must be an identifier (letters, digits, - and _).',
  [SSN_INPUT_PATTERN]: 'An SSN is exactly 9 digits, or written 123-45-6789.',
};

function describedFormat(description: string | undefined): string {
  return description ? `Invalid format (${description}).` : 'Invalid format.';
}

function formatMessage(format: string): string {
  switch (format) {
    case 'date':
      return DATE_INPUT_MESSAGE;
    case 'date-time':
      return TIMESTAMP_INPUT_MESSAGE;
    case 'email':
      return 'Must be an email address.';
    case 'uri':
      return 'Must be an absolute URL.';
    default:
      return `Must match format ${format}.`;
  }
}

function capitalize(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith('.') ? text : `${text}.`;
}
