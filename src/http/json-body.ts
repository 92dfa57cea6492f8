import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ValidationFailed, inputError, type InputError } from '../shared/errors.ts';

/**
 * Request bodies: JSON only, read only where a route takes one, and every check over them linear in the body's
 * size (STYLE habit 13). A hostile body must cost no more CPU than an honest one of the same size.
 */

/** Deepest nesting of arrays and objects a body may have; no request of this API needs more than a few. */
export const MAX_JSON_DEPTH = 32;
/**
 * Array items and object members a body may hold in all: the largest honest body (an enrollment with every
 * plan and dependent) holds a few hundred. Bounds what parsing, the checks and validation cost.
 */
export const MAX_JSON_VALUES = 10_000;
/** Input errors reported for one body at most: the rest are more of the same and would only grow the answer. */
export const MAX_INPUT_ERRORS = 100;

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw JSON body text, kept for the idempotency fingerprint. */
    rawBody?: string;
  }
}

/**
 * JSON is the only body type: the text is checked for depth before it is parsed, and the parsed value for
 * text neither database can store. The raw text is kept for idempotency fingerprints.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    const shape = jsonShape(text);
    if (shape.depth > MAX_JSON_DEPTH || shape.values > MAX_JSON_VALUES) {
      const limit =
        shape.depth > MAX_JSON_DEPTH
          ? `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`
          : `holds more than ${MAX_JSON_VALUES} array items and object members`;
      done(new AppError('invalid_request', `The JSON body ${limit}.`), undefined);
      return;
    }
    void parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      // Text decoded from UTF-8 is well-formed and JSON forbids raw control characters: NULs and lone
      // surrogates can only come from escapes, so a body without any needs no walk.
      const bad = MAYBE_UNSTORABLE_ESCAPE.test(text) ? unstorableStrings(value) : [];
      if (bad.length > 0) return done(new ValidationFailed(bad), undefined);
      done(null, value);
    });
  });
}

/**
 * Refuses, before a byte of the body is read, what the route cannot take: any body on a route without one
 * (RFC 9110 section 9.3: content on such a request has no defined meaning here), a content coding other than
 * identity, and a charset other than UTF-8 (RFC 8259 section 8.1: JSON exchanged between systems is UTF-8).
 * Runs after authentication, so a caller without a key learns that first.
 */
export function refuseUnreadableBody(request: FastifyRequest): void {
  if (!hasBody(request)) return;
  if (!request.routeOptions.schema?.body) {
    throw new AppError('invalid_request', `${request.method} ${request.routeOptions.url ?? ''} takes no request body; send none.`);
  }
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new AppError('unsupported_media_type', 'Request bodies are not decoded: send them without Content-Encoding.', {
      headers: { 'accept-encoding': 'identity' },
    });
  }
  const charset = charsetOf(request.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported_media_type', `Request bodies must be UTF-8 JSON (Content-Type: application/json; charset=utf-8), not ${charset}.`);
  }
}

/** A request has a body when it says so (RFC 9112 section 6.3): a transfer coding, or a non-zero length. */
function hasBody(request: FastifyRequest): boolean {
  const { 'transfer-encoding': transferEncoding, 'content-length': contentLength } = request.headers;
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength !== '0');
}

function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  return match ? (match[1] ?? '').toLowerCase() : undefined;
}

/** `\u0000` or a surrogate escape; may also match an escaped backslash before `u` (then the walk decides). */
const MAYBE_UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/**
 * How deep the JSON text nests arrays and objects, and how many items and members they hold (roughly: one
 * more than the separators, for each non-empty one): one pass over the characters, skipping strings, so that a
 * deep or huge body is refused before the parser, or anything after it, walks it. Stops counting past the limits.
 */
export function jsonShape(text: string): { depth: number; values: number } {
  let depth = 0;
  let deepest = 0;
  let values = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      // Skip the string: find its closing quote natively (a document's content is one string of megabytes),
      // stepping over quotes escaped by an odd run of backslashes.
      let end = text.indexOf('"', index + 1);
      while (end > 0 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break;
      index = end;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > deepest) deepest = depth;
      values++;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--;
    } else if (code === 0x2c /* , */) {
      values++;
    }
    if (deepest > MAX_JSON_DEPTH || values > MAX_JSON_VALUES) break;
  }
  return { depth: deepest, values };
}

/** Whether the character at `index` follows an odd run of backslashes (is escaped). */
function escapedAt(text: string, index: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(index - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

interface PendingValue {
  value: unknown;
  parent: PendingValue | undefined;
  key: string;
}

/**
 * Text neither database stores faithfully (NUL characters, unpaired surrogates), in values and keys. An
 * explicit stack, not recursion, and a field path is only built for a value that is reported.
 */
export function unstorableStrings(root: unknown): InputError[] {
  const out: InputError[] = [];
  const bad = (text: string) => text.includes('\u0000') || !text.isWellFormed();
  const stack: PendingValue[] = [{ value: root, parent: undefined, key: '' }];
  while (stack.length > 0 && out.length < MAX_INPUT_ERRORS) {
    const pending = stack.pop() as PendingValue;
    const { value } = pending;
    if (typeof value === 'string') {
      if (bad(value)) out.push(inputError(pathOf(pending), 'Text may not contain NUL characters or unpaired surrogates.'));
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        const item: unknown = value[index];
        if (item !== null && typeof item === 'object') stack.push({ value: item, parent: pending, key: String(index) });
        else if (typeof item === 'string' && bad(item)) stack.push({ value: item, parent: pending, key: String(index) });
      }
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0 && out.length < MAX_INPUT_ERRORS; index--) {
        const [key, item] = entries[index] as [string, unknown];
        if (bad(key)) out.push(inputError([...pathOf(pending), key], 'Keys may not contain NUL characters or unpaired surrogates.'));
        else if ((item !== null && typeof item === 'object') || typeof item === 'string') stack.push({ value: item, parent: pending, key });
      }
    }
  }
  return out;
}

function pathOf(pending: PendingValue): string[] {
  const path: string[] = [];
  for (let at: PendingValue | undefined = pending; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}
