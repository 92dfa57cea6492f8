// Hostile JSON bodies for the hostile-clients scenario, each just under the body limit it is sent to:
//
// - attackBodies(): what the keyless attackers send (the service must refuse them before reading a byte of
//   them): arrays nested 2,000 deep, an object of 60,000 keys, a 200,000-item array, a 1 MiB string, NULs.
// - worstBodies(): per operation, bodies made from the operation's JSON schema (as GET /openapi.json gives it)
//   that a caller with a valid key can send: long strings in every string field (letters, whitespace, 4-byte
//   characters, NUL escapes, lone surrogates), unknown keys up to the value limit (plain, with NULs, in the
//   deepest object), every array and map filled up to the value limit, huge numbers, nesting at the depth
//   limit, keys that make the JSON parser scan for prototype poisoning. oneFieldBodies(): the whole budget in
//   one string field, matching its format or pattern for as long as possible (then failing it, or not), or
//   whitespace: what a check that is not linear in its text's length costs.
// - documentBodies(): POST /documents around a valid 10 MiB upload; overLimitBodies(): over the depth and value
//   limits (refused before parsing, whatever the route).
//
// Every body is built from a size parameter `n` (characters per string, digits per number, ...) chosen so that
// the body lands just under the limit; those within the service's depth and value limits are checked to be so
// with the service's own jsonShape, so that they really reach the parser and the schema.

import { randomBytes } from 'node:crypto';

/** Bytes kept free under a body limit: room for rounding in the fit below. */
const LIMIT_MARGIN_BYTES = 256;
/** The second size fit() tries: small, as a case may repeat its strings 10,000 times. */
const PROBE = 8;

/**
 * The keyless attack: { name, text } for each body, each at most `limit` bytes. `documentLimit` adds one body
 * of that size for POST /documents.
 */
export function attackBodies({ limit, documentLimit }) {
  const budget = limit - LIMIT_MARGIN_BYTES;
  const nest = (depth) => '['.repeat(depth) + ']'.repeat(depth);
  const keyCount = 60_000;
  const keys = Array.from({ length: keyCount }, (_, i) => `"k${String(i).padStart(5, '0')}":0`);
  const bodies = [
    { name: 'arrays_255x2000_deep', text: `[${Array.from({ length: 255 }, () => nest(2000)).join(',')}]` },
    { name: 'object_60000_keys', text: `{${keys.join(',')}}` },
    { name: 'array_200000_items', text: `[${'"a",'.repeat(199_999)}"a"]` },
    { name: 'string_1mib', text: fit((n) => JSON.stringify({ legal_name: 'a'.repeat(n) }), budget) },
    { name: 'nul_escapes', text: fit((n) => JSON.stringify({ legal_name: '\u0000'.repeat(n), trade_name: 'x' }), budget) },
  ];
  for (const body of bodies) {
    if (Buffer.byteLength(body.text) > limit) throw new Error(`attack body ${body.name} is larger than ${limit} bytes`);
  }
  const documentBody = fit(
    (n) => JSON.stringify({ name: 'x.bin', content_type: 'application/octet-stream', content_base64: 'A'.repeat(n) }),
    documentLimit - LIMIT_MARGIN_BYTES,
  );
  return { bodies, documentBody: { name: 'document_14mib', text: documentBody } };
}

/**
 * Bodies over the service's depth or value limit, just under `limits.bodyLimit`: { case, make() }. They are
 * refused before parsing whatever the route, so they need sending to one route only.
 */
export function overLimitBodies(limits) {
  const budget = limits.bodyLimit - LIMIT_MARGIN_BYTES;
  const over = (name, make) => ({ case: name, make: () => checked(name, fit(make, budget), limits, false) });
  return [over('over_depth_limit', (n) => '['.repeat(n) + ']'.repeat(n)), over('over_value_limit', (n) => `[${'0,'.repeat(n)}0]`)];
}

/**
 * The operations of an OpenAPI document that take a JSON body: { method, path, schema }, the schema with every
 * `$ref` to the document's components written out (the document names its bodies and records there).
 */
export function operationsWithJsonBodies(openapi) {
  const operations = [];
  for (const [path, item] of Object.entries(openapi.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const schema = operation?.requestBody?.content?.['application/json']?.schema;
      if (!schema || !['post', 'put', 'patch'].includes(method)) continue;
      const body = inlined(schema, openapi);
      // An action that takes no fields (EmptyBody: `{}` or nothing) has no body to make hostile.
      if (body.type === 'object' && Object.keys(body.properties ?? {}).length === 0 && body.additionalProperties === false) continue;
      operations.push({ method: method.toUpperCase(), path, schema: body });
    }
  }
  return operations;
}

/**
 * The schema with each `{ $ref: '#/components/...' }` replaced by a copy of what it names (its own fields, e.g. a
 * description, kept beside). A reference to a schema already being written out above it (a recursive schema)
 * becomes `{}`; a reference the document does not hold is an error, not a body made of guesses.
 */
export function inlined(schema, openapi, above = new Set()) {
  if (Array.isArray(schema)) return schema.map((item) => inlined(item, openapi, above));
  if (schema === null || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const { $ref: ref, ...beside } = schema;
    if (above.has(ref)) return {};
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node, part) => node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], openapi);
    if (target === undefined) throw new Error(`hostile bodies: the OpenAPI document has no ${ref}`);
    return { ...inlined(target, openapi, new Set([...above, ref])), ...inlined(beside, openapi, above) };
  }
  // Examples are data, not schemas.
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === 'examples' || key === 'example' ? value : inlined(value, openapi, above)]),
  );
}

/**
 * The hostile bodies of one operation's schema, as { case, make() } with make() returning the body text (or
 * undefined where the case does not apply, e.g. no arrays to fill), so that a caller holds one body at a time.
 * `limits`: { bodyLimit, maxDepth, maxValues, jsonShape } (the service's own, from dist/).
 */
export function worstBodies(schema, limits) {
  const budget = limits.bodyLimit - LIMIT_MARGIN_BYTES;
  const template = build(schema, {});
  const baseValues = limits.jsonShape(JSON.stringify(template)).values;
  const free = limits.maxValues - baseValues;
  const within = (name, make) => ({ case: name, make: () => checked(name, fit(make, budget), limits, true) });
  const strings = (name, filler) => within(name, (n) => stringify(build(schema, { string: (s, path) => filler(s, n, path) })));
  const cases = [
    strings('strings_letters', (_s, n) => 'a'.repeat(n)),
    strings('strings_whitespace', (_s, n) => ' '.repeat(n)),
    strings('strings_4_byte_characters', (_s, n) => '\u{1F600}'.repeat(n)),
    strings('strings_nul_escapes', (_s, n) => '\u0000'.repeat(n)),
    strings('strings_lone_surrogates', (_s, n) => '\ud800'.repeat(n)),
    within('unknown_keys', (n) =>
      withMembers(
        template,
        members(free, (i) => `x${i}`, 'a'.repeat(n)),
      ),
    ),
    within('unknown_keys_with_nul', (n) =>
      withMembers(
        template,
        members(free, (i) => `x${i}\u0000`, 'a'.repeat(n)),
      ),
    ),
    within('unknown_keys_deepest', (n) =>
      withMembers(
        deepestObjectMarked(template),
        members(free, (i) => `x${i}`, 'a'.repeat(n)),
      ),
    ),
    within('prototype_scan_keys', (n) => {
      const count = Math.floor((free - 2) / 2);
      return stringify({ ...template, c: Array.from({ length: count }, () => ({ constructor: 'a'.repeat(n) })) });
    }),
    within('depth_at_limit', (n) => {
      const items = free - limits.maxDepth - 2;
      let value = Array.from({ length: items }, () => 'a'.repeat(n));
      for (let level = 2; level < limits.maxDepth; level++) value = [value];
      return stringify({ ...template, deep: value });
    }),
  ];
  const arrays = fillArrays(schema, template, limits);
  if (arrays) cases.push(within('arrays_filled', arrays));
  const maps = fillMaps(schema, template, free);
  if (maps) cases.push(within('maps_filled', maps));
  if (countLeaves(schema, (s) => s.type === 'number' || s.type === 'integer') > 0) {
    cases.push(within('numbers_huge', (n) => stringify(build(schema, { number: () => HUGE_NUMBER })).replaceAll(`"${HUGE_NUMBER}"`, '9'.repeat(n + 1))));
  }
  return cases;
}

/**
 * The string fields of a schema: { path, check }, `check` naming the checks the service runs on the field's
 * text (format, pattern, length limit). Enumerations are left out: comparing with a few values is cheap.
 */
export function stringFields(schema) {
  const fields = [];
  build(schema, {
    string: (s, path) => {
      if (!s.enum) fields.push({ path: path.join('/'), check: `format=${s.format ?? ''} pattern=${s.pattern ?? ''} maxLength=${s.maxLength !== undefined}` });
      return sampleString(s);
    },
  });
  return fields;
}

/**
 * The whole budget in one string field, the others valid: a check that costs more than linearly in the length
 * of its text (a backtracking pattern, a format that splits its text) shows here, not when the budget is shared
 * by every field. Matching the field's format or pattern for as long as possible, the same failing at the last
 * character, and whitespace.
 */
export function oneFieldBodies(schema, field, limits) {
  const budget = limits.bodyLimit - LIMIT_MARGIN_BYTES;
  const only = (filler) => (n) => stringify(build(schema, { string: (s, path) => (path.join('/') === field.path ? filler(s, n) : sampleString(s)) }));
  const name = (variant) => `whole_body_in_${field.path}_${variant}`;
  return [
    { case: name('matching'), make: () => checked(name('matching'), fit(only(matchingFiller), budget), limits, true) },
    {
      case: name('matching_bad_tail'),
      make: () =>
        checked(
          name('matching_bad_tail'),
          fit(
            only((s, n) => `${matchingFiller(s, n)} `),
            budget,
          ),
          limits,
          true,
        ),
    },
    {
      case: name('whitespace'),
      make: () =>
        checked(
          name('whitespace'),
          fit(
            only((_s, n) => ' '.repeat(n)),
            budget,
          ),
          limits,
          true,
        ),
    },
  ];
}

/** POST /documents only: { case, make() } bodies around a valid 10 MiB upload, at most `limit` bytes. */
export function documentBodies({ limit, maxDocumentBytes }) {
  const content = () => randomBytes(maxDocumentBytes).toString('base64');
  const body = (fields) => JSON.stringify({ name: 'bench.bin', content_type: 'application/octet-stream', ...fields });
  return [
    { case: 'valid_10mib', make: () => body({ content_base64: content() }) },
    { case: 'valid_10mib_unknown_member', make: () => body({ content_base64: content(), member: 'mbr_00000000000000000000' }) },
    {
      case: 'base64_invalid_last_character',
      make: () => {
        const text = content();
        return body({ content_base64: `${text.slice(0, -5)}!${text.slice(-4)}` });
      },
    },
    { case: 'base64_over_10mib', make: () => fit((n) => body({ content_base64: 'A'.repeat(4 * n) }), limit - LIMIT_MARGIN_BYTES) },
    {
      // Every character of valid base64 as a \u escape: the parser's slowest way to spell a string.
      case: 'base64_all_escaped',
      make: () => {
        const length = 4 * Math.floor((limit - LIMIT_MARGIN_BYTES - 100) / 24);
        const text = randomBytes((length / 4) * 3).toString('base64');
        let escaped = '';
        for (let i = 0; i < text.length; i += 65_536) {
          escaped += Array.from(text.slice(i, i + 65_536), (c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
        }
        return `{"name":"bench.bin","content_type":"application/octet-stream","content_base64":"${escaped}"}`;
      },
    },
  ];
}

/**
 * Every case of the hostile-clients bodies phase: { name, group ('body', 'document' or 'refused'), method, path,
 * authorization, make() }: operationBodyCases, then refusedBodyCases.
 */
export function bodyCases({ openapi, idFor, authorization, limits }) {
  return [...operationBodyCases({ openapi, idFor, authorization, limits }), ...refusedBodyCases({ authorization, limits })];
}

/**
 * The cases of every operation of the OpenAPI document that takes a JSON body. `idFor(path)` gives the id put
 * in an operation's path parameters; `limits`: those of worstBodies, plus `documentBodyLimit` and
 * `maxDocumentBytes` for POST /documents.
 */
export function operationBodyCases({ openapi, idFor, authorization, limits }) {
  const cases = [];
  // The whole budget in one field, for one field of each kind of check: the check is the same code wherever it is.
  const checksSeen = new Set();
  for (const operation of operationsWithJsonBodies(openapi)) {
    const path = operation.path.replaceAll(/\{[^}]+\}/g, () => idFor(operation.path));
    const isDocument = operation.method === 'POST' && operation.path === '/documents';
    const bodyLimit = isDocument ? limits.documentBodyLimit : limits.bodyLimit;
    const fields = stringFields(operation.schema).filter((field) => {
      const check = `${isDocument} ${field.check}`;
      if (checksSeen.has(check)) return false;
      checksSeen.add(check);
      return true;
    });
    const made = [
      ...(isDocument ? documentBodies({ limit: bodyLimit, maxDocumentBytes: limits.maxDocumentBytes }) : []),
      ...worstBodies(operation.schema, { ...limits, bodyLimit }),
      ...fields.flatMap((field) => oneFieldBodies(operation.schema, field, { ...limits, bodyLimit })),
    ];
    for (const { case: caseName, make } of made) {
      cases.push({
        name: `${operation.method} ${operation.path} ${caseName}`,
        group: isDocument ? 'document' : 'body',
        method: operation.method,
        path,
        authorization,
        make,
      });
    }
  }
  return cases;
}

/**
 * What is answered before parsing: no key, an unknown key, an unknown route, over the depth or value limit. The
 * keyless bodies are attackBodies', made for the service's own limits (`limits` as for operationBodyCases).
 */
export function refusedBodyCases({ authorization, limits }) {
  const cases = [];
  const { bodies, documentBody } = attackBodies({ limit: limits.bodyLimit, documentLimit: limits.documentBodyLimit });
  const string = bodies.find((body) => body.name === 'string_1mib');
  const refusals = [
    { name: 'POST /carriers without a key', path: '/carriers', body: string },
    { name: 'POST /carriers with an unknown key', path: '/carriers', body: string, authorization: `Bearer bk_live_${'0'.repeat(52)}` },
    { name: 'POST /nope (no such route) with a valid key', path: '/nope', body: string, authorization },
    { name: 'POST /documents without a key', path: '/documents', body: documentBody, group: 'document' },
    ...overLimitBodies(limits).map((over) => ({
      name: 'POST /carriers with a valid key',
      path: '/carriers',
      body: { name: over.case, make: over.make },
      authorization,
    })),
  ];
  for (const refusal of refusals) {
    const make = refusal.body.make ?? (() => refusal.body.text);
    cases.push({
      name: `${refusal.name}, ${refusal.body.name}`,
      group: refusal.group ?? 'refused',
      method: 'POST',
      path: refusal.path,
      authorization: refusal.authorization,
      make,
    });
  }
  return cases;
}

const HUGE_NUMBER = '@@huge-number@@';

function stringify(value) {
  return JSON.stringify(value);
}

/**
 * The text `make(n)` for the largest n whose text fits in `budget` bytes: the size is linear in n, so two
 * probes give the slope, then n shrinks until the text fits. Undefined when make() gives undefined or the
 * text does not grow with n (e.g. strings in a schema without string fields).
 */
export function fit(make, budget) {
  const base = make(0);
  if (base === undefined) return undefined;
  const baseBytes = Buffer.byteLength(base);
  const perUnit = (Buffer.byteLength(make(PROBE)) - baseBytes) / PROBE;
  if (perUnit <= 0) return undefined;
  let n = Math.max(0, Math.floor((budget - baseBytes) / perUnit));
  for (;;) {
    const text = make(n);
    if (Buffer.byteLength(text) <= budget || n === 0) return text;
    n = Math.floor(n * 0.99);
  }
}

function checked(name, text, limits, withinLimits) {
  if (text === undefined) return undefined;
  const shape = limits.jsonShape(text);
  const isWithin = shape.depth <= limits.maxDepth && shape.values <= limits.maxValues;
  if (isWithin !== withinLimits) {
    throw new Error(`hostile body ${name}: depth ${shape.depth}, ${shape.values} values: expected ${withinLimits ? 'within' : 'over'} the limits`);
  }
  return text;
}

/**
 * The branch of an anyOf/oneOf that a body fills: the one that is not null (a nullable field as TypeBox writes
 * it), or of several objects (a union told apart by a field, e.g. a delivery's `method`) the one with the most
 * fields, whose strings and maps give a hostile body the most room.
 */
function branch(schema) {
  const options = schema.anyOf ?? schema.oneOf;
  if (!options) return schema;
  const fields = (option) => Object.keys(branch(option).properties ?? {}).length;
  const candidates = options.filter((option) => option.type !== 'null');
  if (candidates.length === 0) return branch(options[0]);
  return branch(candidates.reduce((widest, option) => (fields(option) > fields(widest) ? option : widest)));
}

function isMap(schema) {
  return schema.type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object';
}

/**
 * A value of the schema with every property present. `hooks.string(schema, path)` and `hooks.number(schema)`
 * fill the leaves (valid samples where absent), `hooks.array(schema, path, item)` an array, `hooks.map` a map.
 */
function build(schema, hooks, path = []) {
  const s = branch(schema);
  if ('const' in s) return s.const;
  const type = s.type ?? (s.properties ? 'object' : s.enum ? typeof s.enum[0] : undefined);
  switch (type) {
    case 'string':
      return hooks.string ? hooks.string(s, path) : sampleString(s);
    case 'integer':
    case 'number':
      return hooks.number ? hooks.number(s) : (s.enum?.[0] ?? s.minimum ?? 0);
    case 'boolean':
      return s.enum?.[0] ?? true;
    case 'array': {
      const item = (index) => build(s.items ?? {}, hooks, [...path, index]);
      if (hooks.array) return hooks.array(s, path, item);
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, (_, index) => item(index));
    }
    case 'object': {
      if (isMap(s)) {
        const entry = (key) => build(s.additionalProperties, hooks, [...path, key]);
        return hooks.map ? hooks.map(s, path, entry) : { key: entry('key') };
      }
      const out = {};
      for (const [key, property] of Object.entries(s.properties ?? {})) out[key] = build(property, hooks, [...path, key]);
      return out;
    }
    default:
      return 'x';
  }
}

function countLeaves(schema, predicate) {
  const s = branch(schema);
  let count = predicate(s) ? 1 : 0;
  for (const property of Object.values(s.properties ?? {})) count += countLeaves(property, predicate);
  if (s.items) count += countLeaves(s.items, predicate);
  if (isMap(s)) count += countLeaves(s.additionalProperties, predicate);
  return count;
}

/** Samples of the patterns the service uses, tried in order until one matches. */
const PATTERN_SAMPLES = [
  'id_0000000000',
  '12345',
  '12-3456789',
  '1234',
  '123456789',
  '1',
  '12.50',
  'https://example.com/a',
  'application/pdf',
  'carrier.created',
  'a',
];
const FORMAT_SAMPLES = { date: '2026-01-01', 'date-time': '2026-01-01T00:00:00Z', email: 'member@example.com', uri: 'https://example.com/a', byte: 'AAAA' };

function sampleString(s) {
  if (s.enum) return s.enum[0];
  if (s.format && FORMAT_SAMPLES[s.format]) return FORMAT_SAMPLES[s.format];
  if (s.pattern) {
    const pattern = new RegExp(s.pattern, 'u');
    return PATTERN_SAMPLES.find((sample) => pattern.test(sample)) ?? 'a';
  }
  return 'a'.repeat(Math.max(1, s.minLength ?? 1));
}

/**
 * About n characters that keep the field's format or pattern matching for as long as possible, so that its
 * check reads all of them: a long valid email address or URL, a date-time of separators (what RFC 3339
 * splits on), a pattern's sample grown by a character the pattern still accepts.
 */
function matchingFiller(s, n) {
  if (s.enum) return s.enum[0];
  const half = Math.floor(n / 2);
  switch (s.format) {
    case 'email':
      return `${'a'.repeat(half)}@${'a'.repeat(half)}.com`;
    case 'uri':
      return `https://example.com/${'a'.repeat(n)}`;
    case 'date-time':
      return 't'.repeat(n);
    case 'date':
      return `2026-01-01${'1'.repeat(n)}`;
    case 'byte':
      return 'A'.repeat(4 * Math.floor(n / 4));
    default:
      break;
  }
  if (!s.pattern) return 'a'.repeat(n);
  const pattern = new RegExp(s.pattern, 'u');
  const sample = sampleString(s);
  const grown = ['a', '1', 'A', '_', '.', '-', '/'].find((c) => pattern.test(sample + c.repeat(3)));
  return grown ? sample + grown.repeat(n) : sample + 'a'.repeat(n);
}

const MEMBERS_MARK = '@@members@@';

/** `count` object members as JSON text, `"key":"value"` joined by commas. */
function members(count, key, value) {
  const valueText = JSON.stringify(value);
  return Array.from({ length: count }, (_, i) => `${JSON.stringify(key(i))}:${valueText}`).join(',');
}

/** The value as JSON text with `membersText` added to the object marked with MEMBERS_MARK (or to the root object). */
function withMembers(value, membersText) {
  const text = JSON.stringify(value);
  const mark = `${JSON.stringify(MEMBERS_MARK)}:0`;
  if (text.includes(mark)) return text.replace(mark, membersText);
  return text === '{}' ? `{${membersText}}` : `${text.slice(0, -1)},${membersText}}`;
}

/** A copy of the template whose most deeply nested object (the longest field paths) is marked for withMembers. */
function deepestObjectMarked(template) {
  const copy = structuredClone(template);
  let deepest = { node: copy, depth: 0 };
  const stack = [{ node: copy, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop();
    if (!Array.isArray(node) && depth > deepest.depth) deepest = { node, depth };
    for (const value of Object.values(node)) {
      if (value !== null && typeof value === 'object') stack.push({ node: value, depth: depth + 1 });
    }
  }
  deepest.node[MEMBERS_MARK] = 0;
  return copy;
}

/**
 * Every array that is not inside another array, filled with distinct items up to the value limit (inner
 * arrays keep one item), strings n characters long. Undefined when the schema has no arrays.
 */
function fillArrays(schema, template, limits) {
  const outermost = [];
  const find = (s, path, insideArray) => {
    const b = branch(s);
    if (b.type === 'array') {
      if (!insideArray) outermost.push({ path: path.join('/'), items: b.items ?? {} });
      if (b.items) find(b.items, [...path, 0], true);
    }
    for (const [key, property] of Object.entries(b.properties ?? {})) find(property, [...path, key], insideArray);
  };
  find(schema, [], false);
  if (outermost.length === 0) return undefined;
  const free = limits.maxValues - limits.jsonShape(JSON.stringify(template)).values;
  const counts = new Map(
    outermost.map(({ path, items }) => {
      const itemValues = 1 + limits.jsonShape(JSON.stringify(build(items, {}))).values;
      return [path, Math.max(1, Math.floor(free / outermost.length / itemValues))];
    }),
  );
  return (n) =>
    stringify(
      build(schema, {
        string: (s, path) => {
          const indexes = path.filter((part) => typeof part === 'number');
          return indexes.length > 0 && !s.enum ? `${indexes.join('_')}_${'a'.repeat(n)}` : sampleString(s);
        },
        array: (s, path, item) => Array.from({ length: counts.get(path.join('/')) ?? 1 }, (_, index) => item(index)),
      }),
    );
}

/**
 * Every map (e.g. metadata) filled up to the value limit with keys and values longer than the service allows
 * (41 and n characters). Undefined when the schema has no maps.
 */
function fillMaps(schema, template, free) {
  const count = countLeaves(schema, isMap);
  if (count === 0) return undefined;
  const mark = `{${JSON.stringify(MEMBERS_MARK)}:0}`;
  const withMark = JSON.stringify(build(schema, { map: () => ({ [MEMBERS_MARK]: 0 }) }));
  return (n) => withMark.replaceAll(mark, `{${members(Math.floor(free / count), (i) => `k${String(i).padStart(40, '0')}`, 'a'.repeat(n))}}`);
}
