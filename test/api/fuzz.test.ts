import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeWindow } from '../helpers/enrollment-world.ts';
import { createBusinessUnit, createCarrier, createEmployer, createGroup, createMember, createSubclass } from '../helpers/factories.ts';
import { compositeRates, contributionStrategy, createPlan, createPlanConfiguration } from '../helpers/plan-factories.ts';
import {
  BOUNDARY_DATES,
  BOUNDARY_TIMESTAMPS,
  LITTLE,
  deepMixedText,
  deepestIn,
  fitTo,
  formUrlEncoded,
  gzip,
  gzipBomb,
  latin1,
  longStringText,
  manyKeysText,
  multipart,
  nestedText,
  repeatedArrayIn,
  repeatedArrayText,
  utf16,
  type Nesting,
} from '../helpers/hostile-inputs.ts';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';
import { BODY_LIMIT_BYTES } from '../../src/app.ts';

/*
 * Fuzzing every route of the OpenAPI document (README.md "Using the API"): malformed and mutated bodies, paths,
 * query strings, methods and headers. The server must never answer 5xx, and every non-2xx answer must be
 * the documented error body with Content-Type application/json.
 *
 * Routes are discovered from GET /openapi.json, and bodies are synthesized from each operation's JSON
 * schema, so routes added later are fuzzed without touching this file. Runs are reproducible: the PRNG
 * seed is printed with any failure; set FUZZ_SEED to replay another one.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20230825) >>> 0;
const CONCURRENCY = 8;
const MIN_REQUESTS = 1000;
/** As routes are added the cases grow; past this many, a seeded sample (in order) keeps the run short. */
const MAX_REQUESTS = 6000;

/** Error types and their statuses, as documented in docs/decisions.md "Requests". */
const DOCUMENTED_STATUS: Record<string, number> = {
  validation_error: 400,
  invalid_request: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  idempotency_error: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  internal_error: 500,
};
const ID_PATTERN = '^[-a-zA-Z0-9_]+$';

// ---------------------------------------------------------------------------------------------------------
// Reproducible randomness

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
function sample<T>(items: readonly T[], count: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, count);
}

// ---------------------------------------------------------------------------------------------------------
// JSON with raw fragments: values JSON.stringify cannot produce (lone surrogates as escapes, 1e400,
// duplicate keys, "__proto__" keys, invalid JSON inside an otherwise valid body).

class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
const raw = (text: string) => new Raw(text);
/** Marks a field to be left out of the body. */
const MISSING = Symbol('missing');

function encode(value: unknown): string {
  const fragments: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Raw ? `\u0001RAW${fragments.push(v.text) - 1}\u0001` : v));
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_match, index: string) => fragments[Number(index)] ?? '');
}

const deepObject = (depth: number) => raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const deepArray = (depth: number) => raw(`${'['.repeat(depth)}1${']'.repeat(depth)}`);

// ---------------------------------------------------------------------------------------------------------
// Mutation pools

const HUGE = 'x'.repeat(100_000);
const UNICODE: [string, unknown][] = [
  ['accents', 'Zoë Ñúñez-Ångström'],
  ['emoji', '💩🎉 👩‍👩‍👧‍👦'],
  ['rtl', 'شركة المثال للتأمين'],
  ['rtl override', 'Acme\u202Egnp.exe'],
  ['zero-width', 'Ac\u200Bme\u200D\uFEFF'],
  ['nul char', 'Acme\u0000Corp'],
  ['only nul', '\u0000'],
  ['control chars', '\u0001\u0007\u001b[31mred\u007f'],
  ['lone high surrogate', raw('"Acme \\ud800"')],
  ['lone low surrogate', raw('"\\udfff"')],
  ['reversed surrogates', raw('"\\udc00\\ud800"')],
  ['combining marks', 'Z\u0351\u0359\u0324a\u0301\u0301\u0301l\u0327g\u0303o'],
  ['line separators', 'line\u2028break\u2029\r\n'],
  ['astral max', '\u{10FFFF}\u{1F600}'],
  ['fullwidth', 'Ａｃｍｅ　１２３'],
  ['emoji x255', '😀'.repeat(255)],
];
const INJECTION: [string, unknown][] = [
  ['sql or', "' OR 1=1 --"],
  ['sql drop', '"; DROP TABLE employers; --'],
  ['sql union', "x' UNION SELECT key_hash FROM api_keys --"],
  ['sql sleep', "'; SELECT pg_sleep(10); --"],
  ['template', '${7*7}'],
  ['mustache', '{{7*7}}'],
  ['html', '<script>alert(1)</script>'],
  ['path traversal', '../../etc/passwd'],
  ['percent nul', '%00'],
  ['format string', '%s%s%s%n'],
  ['shell', '$(cat /etc/passwd)`id`'],
  ['json in string', '{"$gt":""}'],
  ['backslashes', '\\\\\\"'],
  ['like wildcards', '%_%'],
];
const BLANKS: [string, unknown][] = [
  ['empty string', ''],
  ['spaces', '   '],
  ['whitespace', '\t\n\r'],
];
const BAD_DATES = [
  '2023-02-30',
  '2023-13-01',
  '0000-00-00',
  '2023-1-1',
  '9999-99-99',
  '2023-02-29',
  '2023-04-31',
  '2023-00-10',
  '20230101',
  '2023/01/01',
  '01-01-2023',
  '2023-01-01T00:00:00Z',
  '+275760-09-13',
  '-000001-01-01',
  ' 2023-01-01',
  '2023-01-01\u0000',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '1900-02-29',
  'today',
  '',
];
const BAD_TIMESTAMPS = [
  '2023-02-30T00:00:00Z',
  '2023-01-01T25:61:61Z',
  '2023-01-01',
  'yesterday',
  '0000-00-00T00:00:00Z',
  '9999-12-31T23:59:59.999999999+14:00',
];
const BAD_EMAILS = [
  'not-an-email',
  'a@',
  '@example.com',
  'a@@example.com',
  `${'a'.repeat(250)}@example.com`,
  '"quoted"@example.com',
  'üñî@exämple.com',
  'a@[127.0.0.1]',
  'a@b.c\u0000',
];
const BAD_URLS = [
  'javascript:alert(1)',
  'ftp://example.com/x',
  'http://',
  `https://${'a'.repeat(3000)}.com`,
  'https://exa mple.com',
  '//example.com',
  'http://[::1]/',
  'file:///etc/passwd',
  'https://example.com/%00',
];
const BAD_MONEY = ['-1.00', '1.234', '1e3', 'NaN', '１２３', '00.10', '.5', '5.', '-0', ' 1', '999999999999.99', '9999999999999', '1,000.00'];

// ---------------------------------------------------------------------------------------------------------
// OpenAPI

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  default?: unknown;
  $ref?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}

interface Operation {
  method: string;
  template: string;
  pathParams: string[];
  query: Parameter[];
  body: Schema | undefined;
  /** Open without an API key (an empty `security` list). */
  isPublic: boolean;
}

let openapi: {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; security?: unknown[] }>>;
};

function deref(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    let target: unknown = openapi;
    for (const segment of current.$ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown> | undefined)?.[segment];
    current = (target as Schema | undefined) ?? {};
  }
  return current;
}

/** The schema with unions resolved to their first non-null branch. */
function resolve(schema: Schema | undefined): { schema: Schema; nullable: boolean } {
  const current = deref(schema);
  const union = current.anyOf ?? current.oneOf;
  if (union) {
    const branches = union.map(deref);
    const nonNull = branches.find((branch) => branch.type !== 'null') ?? {};
    return { schema: resolve(nonNull).schema, nullable: branches.some((branch) => branch.type === 'null') };
  }
  if (current.allOf) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of current.allOf.map((p) => resolve(p).schema)) {
      Object.assign(merged.properties as object, part.properties);
      merged.required?.push(...(part.required ?? []));
    }
    return { schema: merged, nullable: false };
  }
  const types = Array.isArray(current.type) ? current.type : [current.type];
  return { schema: current, nullable: types.includes('null') };
}

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'map' | 'array' | 'unknown';
function kindOf(schema: Schema): Kind {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || (!type && schema.properties)) {
    return schema.properties && Object.keys(schema.properties).length > 0 ? 'object' : 'map';
  }
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean' || type === 'array') return type;
  const first = schema.enum?.[0] ?? schema.const;
  if (typeof first === 'string') return 'string';
  if (typeof first === 'number') return 'number';
  if (typeof first === 'boolean') return 'boolean';
  return 'unknown';
}

function discoverOperations(): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
        query: parameters.filter((p) => p.in === 'query'),
        body: operation.requestBody?.content?.['application/json']?.schema,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------------------
// Seeds: realistic values and the ids of records made first

/** Ids of real records, by kind (employer, carrier, ...), of the default provider and of another one. */
const seeds = new Map<string, string>();
const foreignIds: string[] = [];
const otherKindIds = () => [...seeds.values()];

function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('sses')) return name.slice(0, -2);
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return name;
}
function plural(name: string): string {
  if (name.endsWith('y')) return `${name.slice(0, -1)}ies`;
  if (name.endsWith('s')) return `${name}es`;
  return `${name}s`;
}
/** The kind of record a field or path segment names: `required_subclass` -> subclass, `subclasses` -> subclass. */
const kindOfName = (name: string) => singular(name.replace(/^(required|primary|previous|next)_/, '').replace(/_ids?$/, ''));

function isIdField(name: string, schema: Schema): boolean {
  return schema.pattern === ID_PATTERN || seeds.has(kindOfName(name));
}

const PATTERN_CANDIDATES = ['412.50', '62701', '12-3456789', '5555550100', '123456789', '2026-01-01', 'ABC123', 'abc', 'A', '1', 'application/pdf', '*'];

function stringFor(name: string, schema: Schema): string {
  if (isIdField(name, schema)) return seeds.get(kindOfName(name)) ?? `${kindOfName(name)}_00000000000000000000`;
  if (schema.format === 'date') {
    if (/dob|birth/.test(name)) return '1985-04-12';
    return /end|termination/.test(name) ? '2026-12-31' : '2026-01-01';
  }
  if (schema.format === 'date-time') return '2026-03-01T00:00:00.000Z';
  if (schema.format === 'email') return 'benefits@example.com';
  if (schema.format === 'uri') return 'https://example.com/logo.png';
  if (schema.format === 'byte') return Buffer.from('%PDF-1.7 fuzz').toString('base64');
  if (name === 'url') return 'https://hooks.integrator.example/fuzz';
  if (name === 'zip_code') return '62701';
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    const fits = PATTERN_CANDIDATES.find((c) => pattern.test(c) && c.length <= (schema.maxLength ?? Infinity));
    if (fits) return fits;
  }
  const text = `Fuzz ${name.replaceAll('_', ' ')}`.slice(0, schema.maxLength ?? 255);
  return text.padEnd(schema.minLength ?? 0, 'x');
}

/** A valid-ish value for a schema: every property present, known fields with realistic values. */
function synthesize(input: Schema | undefined, name: string, depth = 0, requiredOnly = false): unknown {
  const { schema } = resolve(input);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  switch (kindOf(schema)) {
    case 'string':
      return stringFor(name, schema);
    case 'integer':
    case 'number': {
      const value = /age_limit/.test(name) ? 26 : /days/.test(name) ? 30 : 1;
      return Math.min(Math.max(value, schema.minimum ?? -Infinity), schema.maximum ?? Infinity);
    }
    case 'boolean':
      return false;
    case 'array':
      return depth > 6 ? [] : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => synthesize(schema.items, singular(name), depth + 1));
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if (requiredOnly && !schema.required?.includes(key)) continue;
        if (depth < 6) result[key] = synthesize(property, key, depth + 1);
      }
      return result;
    }
    case 'map':
      return typeof schema.additionalProperties === 'object' ? { cost_center: synthesize(schema.additionalProperties, 'value', depth + 1) } : {};
    case 'unknown':
      return 'fuzz';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Value mutations, by the kind of the field they replace

type Mutation = [label: string, value: unknown];

function stringMutations(name: string, schema: Schema, valid: unknown): Mutation[] {
  const out: Mutation[] = [
    ['number', 42],
    ['negative float', -1.5],
    ['boolean', true],
    ['empty array', []],
    ['array of the value', [valid]],
    ['empty object', {}],
    ['object', { value: valid }],
    ...BLANKS,
    ['huge string', HUGE],
    ...UNICODE,
    ...INJECTION,
  ];
  if (schema.maxLength !== undefined) out.push(['maxLength + 1', 'y'.repeat(schema.maxLength + 1)]);
  if (schema.enum) {
    for (const value of schema.enum.slice(0, 3)) {
      const text = String(value);
      out.push(['enum upper case', text.toUpperCase()], ['enum padded', ` ${text} `], ['enum with nul', `${text}\u0000`]);
    }
  }
  const dateLike = schema.format === 'date' || /(^|_)(date|dob|start|end)(_|$)/.test(name);
  if (dateLike) for (const date of BAD_DATES) out.push([`bad date ${date}`, date]);
  if (schema.format === 'date-time' || name.endsWith('_at')) for (const ts of BAD_TIMESTAMPS) out.push([`bad timestamp ${ts}`, ts]);
  if (schema.format === 'email' || name.includes('email')) for (const email of BAD_EMAILS) out.push([`bad email ${email.slice(0, 30)}`, email]);
  if (schema.format === 'uri' || name.endsWith('url')) for (const url of BAD_URLS) out.push([`bad url ${url.slice(0, 30)}`, url]);
  if (schema.pattern?.includes('[0-9]{0,11}') || /amount|premium|contribution|volume|rate/.test(name)) {
    for (const money of BAD_MONEY) out.push([`bad money ${money}`, money]);
  }
  if (isIdField(name, schema)) {
    const real = typeof valid === 'string' ? valid : 'x_1';
    for (const other of otherKindIds()) if (other !== real) out.push([`id of another kind ${other.split('_')[0]}`, other]);
    for (const foreign of foreignIds) out.push(['id of another provider', foreign]);
    out.push(
      ['unknown well-formed id', `${real.split('_')[0]}_00000000000000000000`],
      ['id upper case', real.toUpperCase()],
      ['id with trailing space', `${real} `],
      ['id 64 chars', `${real.split('_')[0]}_${'a'.repeat(63 - real.split('_')[0]!.length)}`],
      ['id 65 chars', 'a'.repeat(65)],
      ['id prefix only', `${real.split('_')[0]}_`],
      ['id underscore', '_'],
      ['id sql', `${real}' OR '1'='1`],
      ['id like wildcard', `${real.split('_')[0]}_%`],
    );
  }
  return out;
}

function numberMutations(schema: Schema): Mutation[] {
  const out: Mutation[] = [
    ['numeric string', '1'],
    ['string', 'abc'],
    ['empty string', ''],
    ['boolean', true],
    ['array', [1]],
    ['object', {}],
    ['negative', -1],
    ['zero', 0],
    ['float', 1.5],
    ['huge', 1e9],
    ['int32 overflow', 2 ** 31],
    ['unsafe integer', 2 ** 53 + 2],
    ['max double', 1e308],
    ['min double', -1e308],
    ['denormal', 5e-324],
    ['1e400 (Infinity)', raw('1e400')],
    ['-1e400', raw('-1e400')],
    ['1e-400', raw('1e-400')],
    ['1.0', raw('1.0')],
    ['-0', raw('-0')],
    ['NaN (invalid JSON)', raw('NaN')],
    ['leading zero (invalid JSON)', raw('01')],
    ['hex (invalid JSON)', raw('0x10')],
  ];
  if (schema.minimum !== undefined) out.push(['minimum - 1', schema.minimum - 1]);
  if (schema.maximum !== undefined) out.push(['maximum + 1', schema.maximum + 1]);
  return out;
}

const BOOLEAN_MUTATIONS: Mutation[] = [
  ['string true', 'true'],
  ['string false', 'false'],
  ['one', 1],
  ['zero', 0],
  ['empty string', ''],
  ['array', [true]],
  ['object', {}],
  ['True (invalid JSON)', raw('True')],
];

function objectMutations(valid: unknown): Mutation[] {
  const base = (valid && typeof valid === 'object' ? valid : {}) as Record<string, unknown>;
  const entries = Object.entries(base);
  const inner = entries.map(([k, v]) => `${JSON.stringify(k)}:${encode(v)}`).join(',');
  const out: Mutation[] = [
    ['array', []],
    ['string', 'x'],
    ['number', 1],
    ['boolean', true],
    ['empty object', {}],
    ['unknown extra field', { ...base, x_unknown_field: 'x' }],
    ['depth 1000', deepObject(1000)],
    ['array depth 1000', deepArray(1000)],
    ['10k keys', Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']))],
    ['__proto__ key', raw(`{${inner ? `${inner},` : ''}"__proto__":{"polluted":true}}`)],
    ['constructor.prototype key', raw(`{${inner ? `${inner},` : ''}"constructor":{"prototype":{"polluted":true}}}`)],
    ['constructor key', raw(`{${inner ? `${inner},` : ''}"constructor":"x"}`)],
    ['toString key', { ...base, toString: 'x' }],
  ];
  const first = entries[0];
  if (first) {
    out.push(['duplicate key with bad value', raw(`{${inner},${JSON.stringify(first[0])}:{"bad":[1,2,3]}}`)]);
    out.push(['duplicate key, bad value first', raw(`{${JSON.stringify(first[0])}:12345,${inner}}`)]);
  }
  return out;
}

function mapMutations(): Mutation[] {
  return [
    ['array', []],
    ['string', 'x'],
    ['number', 1],
    ['empty key', { '': 'x' }],
    ['key 41 chars', { ['k'.repeat(41)]: 'v' }],
    ['huge key', { ['k'.repeat(100_000)]: 'v' }],
    ['value 501 chars', { k: 'v'.repeat(501) }],
    ['huge value', { k: HUGE }],
    ['51 pairs', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))],
    ['10k pairs', Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']))],
    ['number value', { k: 1 }],
    ['null value', { k: null }],
    ['object value', { k: { nested: 'x' } }],
    ['array value', { k: ['x'] }],
    ['depth 1000 value', raw(`{"k":${deepObject(1000).text}}`)],
    ['removal of unknown key', { never_set: '' }],
    ['__proto__ key', raw('{"__proto__":"x"}')],
    ['__proto__ object', raw('{"__proto__":{"polluted":"yes"}}')],
    ['constructor key', { constructor: 'x' }],
    ['constructor.prototype', raw('{"constructor":{"prototype":{"polluted":"yes"}}}')],
    ['prototype-ish keys', { toString: 'x', hasOwnProperty: 'y', valueOf: 'z', prototype: 'p' }],
    ['nul in key', { 'a\u0000b': 'c' }],
    ['nul in value', { k: 'a\u0000b' }],
    ['lone surrogate key', raw('{"\\ud800":"x"}')],
    ['lone surrogate value', raw('{"k":"\\udfff"}')],
    ['unicode pairs', { '💩': '🎉', مفتاح: 'قيمة', 'a\u200Bb': '\u202E' }],
    ['injection pairs', { "' OR 1=1 --": '"; DROP TABLE employers; --', '${7*7}': '<script>alert(1)</script>' }],
    ['duplicate keys', raw('{"k":"a","k":"b","k":""}')],
  ];
}

function arrayMutations(schema: Schema, valid: unknown): Mutation[] {
  const item = Array.isArray(valid) && valid.length > 0 ? valid[0] : synthesize(schema.items, 'item');
  return [
    ['string', 'x'],
    ['object', {}],
    ['number', 1],
    ['empty array', []],
    ['array of null', [null]],
    ['array of numbers', [1, 2]],
    ['array of objects', [{}]],
    ['array of arrays', [[item]]],
    ['duplicates', [item, item, item]],
    ['101 items', Array.from({ length: 101 }, () => item)],
    ['10k items', Array.from({ length: 10_000 }, () => item)],
    ['depth 1000', deepArray(1000)],
  ];
}

function mutationsFor(input: Schema | undefined, name: string, valid: unknown): Mutation[] {
  const { schema, nullable } = resolve(input);
  const out: Mutation[] = [['missing', MISSING]];
  if (!nullable) out.push(['null', null]);
  switch (kindOf(schema)) {
    case 'string':
      out.push(...stringMutations(name, schema, valid));
      break;
    case 'integer':
    case 'number':
      out.push(...numberMutations(schema));
      break;
    case 'boolean':
      out.push(...BOOLEAN_MUTATIONS);
      break;
    case 'object':
      out.push(...objectMutations(valid));
      break;
    case 'map':
      out.push(...mapMutations());
      break;
    case 'array':
      out.push(...arrayMutations(schema, valid));
      break;
    case 'unknown':
      out.push(['string', 'x'], ['number', 1], ['object', {}], ...INJECTION.slice(0, 3));
      break;
  }
  return out;
}

/** Every field of a body schema, nested ones included, with its path. */
function fieldsOf(input: Schema | undefined, valid: unknown, path: string[] = []): { path: string[]; schema: Schema; valid: unknown }[] {
  const { schema } = resolve(input);
  const out: { path: string[]; schema: Schema; valid: unknown }[] = [];
  if (kindOf(schema) === 'object' && path.length < 6) {
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const value = (valid as Record<string, unknown> | undefined)?.[key];
      out.push({ path: [...path, key], schema: property, valid: value });
      out.push(...fieldsOf(property, value, [...path, key]));
    }
  }
  const resolved = resolve(input).schema;
  if (kindOf(resolved) === 'array' && Array.isArray(valid) && valid.length > 0 && path.length < 6) {
    out.push({ path: [...path, '0'], schema: resolved.items ?? {}, valid: valid[0] });
    out.push(...fieldsOf(resolved.items, valid[0], [...path, '0']));
  }
  return out;
}

function withValue(base: unknown, path: string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(base)) {
    const copy = [...(base as unknown[])];
    const index = Number(head);
    if (rest.length === 0 && value === MISSING) copy.splice(index, 1);
    else copy[index] = withValue(copy[index], rest, value);
    return copy;
  }
  const copy = { ...(base as Record<string, unknown>) };
  if (rest.length === 0 && value === MISSING) delete copy[head];
  else copy[head] = withValue(copy[head], rest, value);
  return copy;
}

// ---------------------------------------------------------------------------------------------------------
// Requests

interface Case {
  /** What was mutated, for the report. */
  label: string;
  method: string;
  /** The route template the case belongs to (or the raw path), for grouping failures. */
  route: string;
  path: string;
  client: ApiClient;
  headers?: Record<string, string | string[]>;
  body?: unknown;
  rawBody?: string | Buffer;
  /** Builds the raw body just before sending, so that big bodies are not all held in memory at once. */
  build?: () => string | Buffer;
  /** Send with node:http: verbatim paths (fetch would normalize "..") and headers or methods fetch refuses. */
  raw?: boolean;
  /** Sent alone, after the concurrent ones, so that its time is its own. */
  heavy?: boolean;
  /** Checks of this case on top of the general ones (empty when none fails). */
  check?: (outcome: Outcome) => string[];
}

interface Outcome {
  status: number;
  text: string;
  header(name: string): string | undefined;
  /** Wall time from sending the first byte to reading the last one. */
  ms: number;
}

/** The body exactly as sent. */
function bodyOf(c: Case): string | Buffer | undefined {
  return c.build?.() ?? c.rawBody ?? (c.body === undefined ? undefined : encode(c.body));
}

function sendRaw(baseUrl: string, c: Case, body: string | Buffer | undefined): Promise<Outcome> {
  const url = new URL(baseUrl);
  const headers: Record<string, string | string[]> = {};
  if (c.client.key) headers.authorization = `Bearer ${c.client.key}`;
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  // A fresh connection per request: a socket the server closed after an earlier error is never reused.
  headers.connection = 'close';
  Object.assign(headers, c.headers);
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const request = http.request({ host: url.hostname, port: url.port, method: c.method, path: c.path, headers, agent: false, timeout: 20_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolvePromise({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          header: (name) => {
            const value = response.headers[name.toLowerCase()];
            return Array.isArray(value) ? value.join(', ') : value;
          },
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no response within 20 s')));
    request.on('error', reject);
    request.end(body);
  });
}

async function send(baseUrl: string, c: Case): Promise<Outcome> {
  const body = bodyOf(c);
  if (c.raw || Buffer.isBuffer(body)) return sendRaw(baseUrl, c, body);
  const headers: Record<string, string> = {};
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(c.headers ?? {})) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const started = performance.now();
  const response = await c.client.request(c.method, c.path, { rawBody: body, headers });
  return { status: response.status, text: response.text, header: (name) => response.headers.get(name) ?? undefined, ms: performance.now() - started };
}

/** What is wrong with a response, per README.md "Using the API" and docs/decisions.md "Requests" (empty when nothing is). */
function problemsOf(c: Case, response: Outcome): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`server error ${response.status}`);
  if (response.status >= 200 && response.status < 300) return problems;
  if (c.method === 'HEAD') return problems; // no body by definition
  const contentType = response.header('content-type') ?? '';
  if (!/^application\/json(\s*;|$)/i.test(contentType)) problems.push(`content-type is "${contentType}"`);
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    problems.push('body is not JSON');
    return problems;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [...problems, 'body is not an object'];
  const error = body as Record<string, unknown>;
  const extra = Object.keys(error).filter((key) => !['type', 'message', 'request_id', 'input_errors'].includes(key));
  if (extra.length > 0) problems.push(`undocumented keys ${extra.join(', ')}`);
  if (typeof error.type !== 'string' || !(error.type in DOCUMENTED_STATUS)) problems.push(`undocumented type ${JSON.stringify(error.type)}`);
  else if (DOCUMENTED_STATUS[error.type] !== response.status) problems.push(`type ${error.type} with status ${response.status}`);
  if (typeof error.message !== 'string' || error.message.length === 0) problems.push('no message');
  else if (/\n\s+at /.test(error.message)) problems.push('message holds a stack trace');
  if (typeof error.request_id !== 'string' || !new RegExp(ID_PATTERN).test(error.request_id)) problems.push('no request_id');
  // An idempotent replay returns the first response's body as it was, request_id included.
  else if (response.header('idempotent-replayed') !== 'true' && response.header('x-request-id') !== error.request_id) {
    problems.push('request_id differs from X-Request-Id');
  }
  if (error.input_errors !== undefined) {
    const valid =
      Array.isArray(error.input_errors) &&
      error.input_errors.every(
        (e: unknown) =>
          !!e &&
          typeof e === 'object' &&
          typeof (e as Record<string, unknown>).field === 'string' &&
          typeof (e as Record<string, unknown>).message === 'string' &&
          Array.isArray((e as Record<string, unknown>).field_path) &&
          ((e as Record<string, unknown>).field_path as unknown[]).every((s) => typeof s === 'string') &&
          Object.keys(e).every((key) => ['field', 'field_path', 'message'].includes(key)),
      );
    if (!valid) problems.push('malformed input_errors');
  }
  if (error.type === 'validation_error' && (!Array.isArray(error.input_errors) || error.input_errors.length === 0)) {
    problems.push('validation_error without input_errors');
  }
  return problems;
}

const excerpt = (text: string | undefined, length: number) => {
  if (text === undefined) return '';
  const printable = JSON.stringify(text.length > length ? `${text.slice(0, length)}…(${text.length} chars)` : text);
  return printable.slice(1, -1);
};

// ---------------------------------------------------------------------------------------------------------
// The fuzz

let t: TestContext;
let employerClient: ApiClient;
let readOnlyClient: ApiClient;
let otherProviderClient: ApiClient;
/** A well-formed key no provider has. */
let bogusKeyClient: ApiClient;
let operations: Operation[];

beforeAll(async () => {
  t = await createTestApp();
  const employer = await createEmployer(t.admin);
  const carrier = await createCarrier(t.admin);
  await createCarrier(t.admin, { legal_name: 'Second Carrier' });
  await createEmployer(t.admin, { legal_name: 'Second Employer' });
  const group = await createGroup(t.admin, { employer: employer.id, carrier: carrier.id });
  const businessUnit = await createBusinessUnit(t.admin, { employer: employer.id });
  const subclass = await createSubclass(t.admin, { employer: employer.id });
  for (const [kind, record] of Object.entries({ employer, carrier, group, business_unit: businessUnit, subclass })) {
    seeds.set(kind, (record as { id: string }).id);
  }
  employerClient = await t.client('employer', { employer: employer.id });
  readOnlyClient = await t.client('read_only');
  otherProviderClient = await t.client('admin', { provider: 'fuzz-other-provider' });
  bogusKeyClient = new ApiClient(t.baseUrl, `bk_live_${'A'.repeat(40)}`);
  const foreignEmployer = await createEmployer(otherProviderClient, { legal_name: 'Foreign Employer' });
  await createEmployer(otherProviderClient, { legal_name: 'Foreign Employer 2' });
  foreignIds.push(foreignEmployer.id, (await createGroup(otherProviderClient, { employer: foreignEmployer.id })).id);

  const document = await t.anonymous.get('/openapi.json');
  expect(document.status).toBe(200);
  openapi = document.body;
  operations = discoverOperations();
  await seedApprovedEnrollment(employer.id, group.id);
  await resolveReferencedKinds();
});

/**
 * An approved enrollment and its benefit change, so that the routes of both reach real records (a benefit
 * change is the one record with a date-time in its body, and it has no collection to find one in).
 */
async function seedApprovedEnrollment(employer: string, group: string): Promise<void> {
  const plan = await createPlan(t.admin, { group, premium_type: 'composite', composite_rates: compositeRates() });
  const configuration = await createPlanConfiguration(t.admin, { plan: plan.id, waiting_period_days: 0 });
  expect((await t.admin.post(`/plan_configurations/${configuration.id}/contribution_strategy`, contributionStrategy())).status).toBe(200);
  const window = await activeWindow(t.admin, { employer, plans: [plan.id] });
  const member = await createMember(t.admin, { employer, dob: '1985-05-05', hire_date: '2025-01-01' });
  const enrollment = await t.admin.post('/enrollments', {
    member: member.id,
    category: 'open_enrollment',
    reason: 'open_enrollment',
    effective_start: '2026-04-01',
    enrolled_plans: [{ plan: plan.id }],
  });
  expect(enrollment.status, enrollment.text).toBe(201);
  expect((await t.admin.post(`/enrollments/${enrollment.body.id}/save_and_submit`)).status).toBe(200);
  expect((await t.admin.post(`/enrollments/${enrollment.body.id}/approve`)).status).toBe(200);
  const changes = await t.admin.get(`/enrollments/${enrollment.body.id}/benefit_changes`);
  expect(changes.status).toBe(200);
  const endpoint = await t.admin.post('/webhook_endpoints', { url: 'https://hooks.integrator.example/fuzz', enabled_events: ['*'] });
  expect(endpoint.status, endpoint.text).toBe(201);
  const document = await t.admin.post('/documents', {
    name: 'card.pdf',
    content_type: 'application/pdf',
    content_base64: Buffer.from('%PDF-1.7 card').toString('base64'),
    member: member.id,
  });
  expect(document.status, document.text).toBe(201);
  const deliveries = await t.admin.get(`/webhook_endpoints/${endpoint.body.id}/deliveries`);
  expect(deliveries.body.results?.length, deliveries.text).toBeGreaterThan(0);
  const records = {
    plan,
    plan_configuration: configuration,
    open_enrollment_window: window,
    member,
    benefit_change: changes.body[0],
    webhook_endpoint: endpoint.body,
    document: document.body,
    delivery: deliveries.body.results[0],
  };
  for (const [kind, record] of Object.entries(records)) seeds.set(kind, (record as { id: string }).id);
  await seedUntouchedRecords();
}

/** An enrollment not yet submitted, so that its PATCH and actions can succeed (before a test's cases use it up). */
async function seedUntouchedRecords(): Promise<void> {
  const member = await createMember(t.admin, { employer: seeds.get('employer'), first_name: 'Robin', dob: '1990-01-01', hire_date: '2025-01-01' });
  const enrollment = await t.admin.post('/enrollments', {
    member: member.id,
    category: 'open_enrollment',
    reason: 'open_enrollment',
    effective_start: '2026-04-01',
    enrolled_plans: [{ plan: seeds.get('plan') }],
  });
  expect(enrollment.status, enrollment.text).toBe(201);
  seeds.set('enrollment', enrollment.body.id);
}

afterAll(async () => {
  await t.close();
});

/** A record of the collection at `collection` (an existing one, or a new one when `fresh`). */
async function recordOf(collection: string, fresh: boolean): Promise<string | undefined> {
  if (!fresh) {
    const known = seeds.get(singular(collection.split('/').at(-1) ?? ''));
    if (known) return known;
    const list = await t.admin.get(`${collection}?page_size=1`);
    const first = (list.body as { results?: { id?: string }[] } | undefined)?.results?.[0]?.id;
    if (first) return first;
  }
  const create = operations.find((o) => o.method === 'POST' && o.template === collection);
  if (!create) return undefined;
  for (const requiredOnly of [true, false]) {
    const response = await t.admin.post(collection, synthesize(create.body, singular(collection), 0, requiredOnly));
    if (response.status === 201 && typeof response.body?.id === 'string') return response.body.id as string;
  }
  return undefined;
}

/** The path of an operation with every parameter naming a real record (a fresh one for deletes). */
async function concretePath(operation: Operation): Promise<string> {
  let path = operation.template;
  for (const param of operation.pathParams) {
    const collection = path.slice(0, path.indexOf(`{${param}}`)).replace(/\/$/, '');
    const id = (await recordOf(collection, operation.method === 'DELETE')) ?? `${singular(collection.split('/').at(-1) ?? 'x')}_00000000000000000000`;
    path = path.replace(`{${param}}`, encodeURIComponent(id));
  }
  return path;
}

/** Ids of kinds the seeds do not cover yet (routes added later), found through their collections. */
async function resolveReferencedKinds(): Promise<void> {
  for (const operation of operations) {
    for (const field of fieldsOf(operation.body, synthesize(operation.body, 'body'))) {
      const name = field.path.at(-1) ?? '';
      const { schema } = resolve(field.schema);
      const idLike = schema.pattern === ID_PATTERN || (kindOf(schema) === 'array' && resolve(schema.items).schema.pattern === ID_PATTERN);
      const kind = kindOfName(name);
      if (!idLike || seeds.has(kind)) continue;
      const collection = `/${plural(kind)}`;
      if (!operations.some((o) => o.method === 'GET' && o.template === collection)) continue;
      const id = await recordOf(collection, false);
      if (id) seeds.set(kind, id);
    }
  }
}

async function realCursor(client: ApiClient, collection: string): Promise<string | undefined> {
  const response = await client.get(`${collection}?page_size=1`);
  const next = (response.body as { next?: string | null } | undefined)?.next;
  return next ? (new URL(next).searchParams.get('cursor') ?? undefined) : undefined;
}

function chooseClient(): ApiClient {
  const roll = random();
  if (roll < 0.74) return t.admin;
  if (roll < 0.86) return employerClient;
  if (roll < 0.95) return readOnlyClient;
  if (roll < 0.98) return otherProviderClient;
  return t.anonymous;
}

const ODD_IDS: [string, string][] = [
  ['empty', ''],
  ['encoded nul', '%00'],
  ['dot dot', '..'],
  ['dot', '.'],
  ['encoded dot dot', '%2e%2e'],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['encoded slash', 'a%2Fb'],
  ['very long', 'x'.repeat(3000)],
  ['65 chars', 'a'.repeat(65)],
  ['emoji', encodeURIComponent('💩')],
  ['rtl', encodeURIComponent('مرحبا')],
  ['zero-width', encodeURIComponent('er_\u200b')],
  ['sql', encodeURIComponent("' OR 1=1 --")],
  ['sql drop', encodeURIComponent('"; DROP TABLE employers; --')],
  ['template', encodeURIComponent('${7*7}')],
  ['html', encodeURIComponent('<script>alert(1)</script>')],
  ['lone percent', '%'],
  ['bad percent escape', '%zz'],
  ['truncated utf-8', '%E0%A4%A'],
  ['overlong utf-8', '%C0%AE'],
  ['invalid utf-8', '%ff%fe'],
  ['lone surrogate', '%ED%A0%80'],
  ['null', 'null'],
  ['undefined', 'undefined'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['toString', 'toString'],
  ['zero', '0'],
  ['negative', '-1'],
  ['float', '1e9'],
  ['underscore', '_'],
  ['dash', '-'],
  ['star', '*'],
  ['semicolon', 'a;b=c'],
  ['comma', 'a,b'],
  ['encoded space', '%20'],
  ['encoded newline', '%0d%0a'],
  ['like wildcard', '%25'],
];

function bodyCases(operation: Operation, path: string): Case[] {
  const cases: Case[] = [];
  const valid = synthesize(operation.body, 'body');
  const add = (label: string, extra: Partial<Case>) =>
    cases.push({ label, method: operation.method, route: operation.template, path, client: chooseClient(), ...extra });

  add('valid-ish body', { body: valid });
  for (const field of fieldsOf(operation.body, valid)) {
    for (const [label, value] of mutationsFor(field.schema, field.path.at(-1) ?? '', field.valid)) {
      add(`${field.path.join('.')}: ${label}`, { body: withValue(valid, field.path, value) });
    }
  }
  const validText = encode(valid);
  const inner = validText.slice(1, -1);
  const wholeBodies: [string, string][] = [
    ['empty body', ''],
    ['spaces', '   '],
    ['null', 'null'],
    ['true', 'true'],
    ['number', '0'],
    ['string', '"str"'],
    ['array', '[]'],
    ['array of the body', `[${validText}]`],
    ['empty object', '{}'],
    ['truncated', validText.slice(0, Math.max(1, Math.floor(validText.length / 2)))],
    ['open brace', '{'],
    ['close brace', '}'],
    ['trailing comma', `{${inner},}`],
    ['single quotes', "{'legal_name':'x'}"],
    ['bare keys', '{legal_name:1}'],
    ['NaN', 'NaN'],
    ['nul char', '\u0000'],
    ['BOM prefix', `\uFEFF${validText}`],
    ['trailing garbage', `${validText}garbage`],
    ['two documents', `${validText}${validText}`],
    ['comment', `/* x */${validText}`],
    ['depth 1000 object', deepObject(1000).text],
    ['depth 1000 array', deepArray(1000).text],
    ['depth 100000 array', deepArray(100_000).text],
    ['__proto__ with the body', `{${inner ? `${inner},` : ''}"__proto__":{"polluted":true}}`],
    ['__proto__ first', `{"__proto__":{"polluted":true}${inner ? `,${inner}` : ''}}`],
    ['constructor.prototype', `{${inner ? `${inner},` : ''}"constructor":{"prototype":{"polluted":true}}}`],
    ['duplicate keys', `{${inner}${inner ? `,${inner}` : ''}}`],
    ['unknown extra field', `{${inner ? `${inner},` : ''}"x_unknown_field":"x"}`],
    ['10k unknown fields', encode({ ...(valid as object), ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, i])) })],
    ['over 1 MiB', `{${inner ? `${inner},` : ''}"padding":"${'x'.repeat(1024 * 1024 + 10)}"}`],
    ['invalid utf-8 escape', '{"a":"\\uZZZZ"}'],
  ];
  for (const [label, text] of wholeBodies) add(`raw body: ${label}`, { rawBody: text, headers: { 'content-type': 'application/json' } });

  const contentTypes = [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/xml',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/jsonx',
    'application/json-patch+json',
    'APPLICATION/JSON',
    'application/json;',
    'application/json; boundary=',
    '*/*',
    'application/*',
    ';',
    '',
    `application/${'x'.repeat(5000)}`,
  ];
  for (const type of contentTypes) add(`content-type "${type.slice(0, 40)}"`, { rawBody: validText, headers: { 'content-type': type }, raw: true });
  add('body without content-type', { rawBody: validText, raw: true });
  add('content-type json, no body', { raw: true, headers: { 'content-type': 'application/json' } });
  add('form body as json', { rawBody: 'legal_name=x&a=1', headers: { 'content-type': 'application/json' } });
  return cases;
}

function pathCases(operation: Operation, validPath: string): Case[] {
  const cases: Case[] = [];
  const body = operation.body ? synthesize(operation.body, 'body') : undefined;
  for (const param of operation.pathParams) {
    const before = operation.template.split(`{${param}}`)[0] ?? '';
    const valid = validPath.split('/')[before.split('/').length - 1] ?? '';
    const ids: [string, string][] = [
      ...ODD_IDS,
      ...otherKindIds()
        .filter((id) => id !== valid)
        .map((id): [string, string] => [`id of another kind ${id.split('_')[0]}`, id]),
      ...foreignIds.map((id): [string, string] => ['id of another provider', id]),
      ['unknown well-formed id', `${valid.split('_')[0]}_00000000000000000000`],
      ['upper-cased id', valid.toUpperCase()],
      ['id + encoded nul', `${valid}%00`],
      ['id + trailing space', `${valid}%20`],
      ['id + .json', `${valid}.json`],
      ['id + query-ish', `${valid}%3Fx=1`],
    ];
    for (const [label, id] of ids) {
      const parts = validPath.split('/');
      parts[before.split('/').length - 1] = id;
      cases.push({
        label: `path ${param}: ${label}`,
        method: operation.method,
        route: operation.template,
        path: parts.join('/'),
        client: chooseClient(),
        body,
        raw: true,
      });
    }
  }
  return cases;
}

function queryCases(operation: Operation, path: string, cursors: { own?: string; otherList?: string; otherProvider?: string }): Case[] {
  const cases: Case[] = [];
  const add = (label: string, query: string) =>
    cases.push({ label: `query: ${label}`, method: operation.method, route: operation.template, path: `${path}?${query}`, client: chooseClient(), raw: true });
  const names = operation.query.map((p) => p.name);
  if (names.includes('page_size')) {
    for (const value of [
      '-1',
      '0',
      '101',
      '1e9',
      'abc',
      '',
      '%5B%5D',
      '1.5',
      '%201',
      '0x10',
      '1e1',
      '99999999999999999999999',
      'null',
      'true',
      'NaN',
      'Infinity',
      '-0',
      '%00',
      '+5',
      '%E2%80%8B5',
      encodeURIComponent('１'),
    ]) {
      add(`page_size=${value}`, `page_size=${value}`);
    }
    add('repeated page_size', 'page_size=1&page_size=2');
    add('page_size[]', 'page_size[]=1');
    add('page_size[a]', 'page_size[a]=1');
  }
  if (names.includes('cursor')) {
    const forged = (payload: unknown) => `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${'A'.repeat(22)}`;
    const garbage = [
      'garbage',
      '',
      '.',
      '..',
      'a.b',
      'a.b.c',
      'x'.repeat(512),
      'x'.repeat(600),
      '%00',
      encodeURIComponent('💩.💩'),
      encodeURIComponent("' OR 1=1 --"),
      forged(['n', '2026-01-01', 'er_x']),
      forged(['n', 1, 2]),
      forged('not an array'),
      `${Buffer.from('not json').toString('base64url')}.${'A'.repeat(22)}`,
      '%2e%2e%2f',
    ];
    for (const cursor of garbage) add(`cursor=${cursor.slice(0, 30)}`, `cursor=${cursor}`);
    if (cursors.own) {
      const own = cursors.own;
      add('tampered cursor', `cursor=${own.slice(0, -1)}${own.endsWith('A') ? 'B' : 'A'}`);
      add('tampered payload', `cursor=B${own.slice(1)}`);
      add('repeated cursor', `cursor=${own}&cursor=${own}`);
      add('real cursor, page_size 100', `cursor=${own}&page_size=100`);
    }
    if (cursors.otherList) add('cursor of another list', `cursor=${cursors.otherList}`);
    if (cursors.otherProvider) add('cursor of another provider', `cursor=${cursors.otherProvider}`);
  }
  for (const parameter of operation.query.filter((p) => !['cursor', 'page_size'].includes(p.name))) {
    const name = parameter.name;
    const schema = resolve(parameter.schema).schema;
    const repeatable = kindOf(schema) === 'array';
    const item = repeatable ? resolve(schema.items).schema : schema;
    const valid = String(synthesize(item, singular(name)));
    const values = [
      valid,
      ...(item.enum ?? []).slice(1, 4).map(String),
      '',
      'x'.repeat(8000),
      ...otherKindIds(),
      ...foreignIds,
      ...[...UNICODE, ...INJECTION].flatMap(([, value]) => (typeof value === 'string' ? [value] : [])),
      ...(item.format === 'date' || /date|start|end/.test(name) ? BAD_DATES : []),
      ...(item.format === 'date-time' || name.endsWith('_at') ? BAD_TIMESTAMPS : []),
    ];
    for (const value of values) add(`${name}=${value.slice(0, 30)}`, `${name}=${encodeURIComponent(value)}`);
    const other = encodeURIComponent(values[1] ?? 'x');
    add(`repeated ${name}`, `${name}=${encodeURIComponent(valid)}&${name}=${other}`);
    add(`comma-separated ${name}`, `${name}=${encodeURIComponent(valid)},${other},,`);
    add(`${name} repeated 101 times`, Array.from({ length: 101 }, () => `${name}=${encodeURIComponent(valid)}`).join('&'));
    add(`${name}[]`, `${name}[]=${encodeURIComponent(valid)}`);
    add(`${name}[key]`, `${name}[key]=${encodeURIComponent(valid)}`);
    add(`${name} without value`, name);
  }
  const generic: [string, string][] = [
    ['unknown param', 'colour=blue'],
    ['__proto__ param', '__proto__=x'],
    ['__proto__ nested', '__proto__[polluted]=1'],
    ['constructor param', 'constructor=x&constructor[prototype][polluted]=1'],
    ['toString param', 'toString=x&hasOwnProperty=y'],
    ['huge param name', `${'k'.repeat(8000)}=1`],
    ['huge value', `colour=${'v'.repeat(8000)}`],
    ['over the header limit', `colour=${'v'.repeat(20_000)}`],
    ['lone ampersands', '&&&'],
    ['only equals', '='],
    ['name without value', 'page_size'],
    ['lone percent', '%'],
    ['bad escape', '%zz=1'],
    ['truncated utf-8', 'a=%E0%A4%A'],
    ['encoded nul name', '%00=%00'],
    ['semicolons', 'a=1;b=2'],
    ['fragment', 'page_size=1#frag'],
  ];
  for (const [label, query] of generic) add(label, query);
  return cases;
}

function headerCases(operation: Operation, path: string): Case[] {
  const cases: Case[] = [];
  const body = operation.body ? synthesize(operation.body, 'body') : undefined;
  const add = (label: string, client: ApiClient, headers: Record<string, string | string[]>) =>
    cases.push({ label, method: operation.method, route: operation.template, path, client, body, headers, raw: true });
  const adminKey = t.admin.key ?? '';

  for (const version of ['garbage', '', ' ', '2023-08-25 ', '2023-08-26', '2023-02-30', "' OR 1=1 --", 'x'.repeat(8000), 'v\u00e9rsion']) {
    add(`API-Version "${version.slice(0, 30)}"`, chooseClient(), { 'api-version': version });
  }
  add('API-Version twice', t.admin, { 'api-version': ['2023-08-25', '2023-08-25'] });
  const authorizations = [
    '',
    'Bearer',
    'Bearer ',
    `bearer ${adminKey}`,
    `BEARER   ${adminKey}`,
    `Basic ${Buffer.from('user:pass').toString('base64')}`,
    `Token ${adminKey}`,
    adminKey,
    `Bearer ${adminKey}x`,
    `Bearer ${adminKey} extra`,
    "Bearer ' OR 1=1 --",
    "Bearer '||'1'='1",
    `Bearer bk_live_${'x'.repeat(8000)}`,
    'Bearer bk_live_',
    'Bearer null',
    'Bearer %00',
    'Bearer k\u00e9y',
    `Bearer\t${adminKey}`,
    'Bearer bk_test_00000000000000000000000000000000',
  ];
  for (const authorization of sample(authorizations, 6)) {
    add(`Authorization "${authorization.slice(0, 30)}"`, t.anonymous, { authorization });
  }
  for (const requestId of ['x'.repeat(100), "' OR 1=1", 'r\u00e9q', ''])
    add(`X-Request-Id "${requestId.slice(0, 20)}"`, t.admin, { 'x-request-id': requestId });
  if (operation.method === 'POST') {
    for (const key of ['', ' ', 'a b', 'k'.repeat(256), 'k'.repeat(8000), 'k\u00e9y', '\t', "' OR 1=1 --", '%00', '${7*7}']) {
      add(`Idempotency-Key "${key.slice(0, 30)}"`, t.admin, { 'idempotency-key': key });
    }
    add('Idempotency-Key over the header limit', t.admin, { 'idempotency-key': 'k'.repeat(20_000) });
    // One key, different requests at once: one runs, the others are 409s (or replays).
    const shared = `fuzz-shared-${operation.template}`;
    for (let i = 0; i < 4; i++) {
      cases.push({
        label: `shared Idempotency-Key, request ${i}`,
        method: 'POST',
        route: operation.template,
        path,
        client: t.admin,
        headers: { 'idempotency-key': shared },
        // Actions such as approve take no body: their "different request" is one with a body.
        body: i % 2 === 0 ? body : body === undefined ? { changed: true } : withValue(body, [Object.keys(body as object)[0] ?? 'x'], 'changed'),
      });
    }
  }
  return cases;
}

function methodCases(templates: Map<string, { path: string; methods: Set<string> }>): Case[] {
  const cases: Case[] = [];
  const all = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'SEARCH'];
  for (const [template, { path, methods }] of templates) {
    for (const method of all.filter((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')))) {
      cases.push({
        label: `method ${method}`,
        method,
        route: template,
        path,
        client: chooseClient(),
        body: method === 'POST' || method === 'PUT' ? {} : undefined,
        raw: true,
      });
    }
    if (methods.has('GET')) {
      cases.push({ label: 'GET with a JSON body', method: 'GET', route: template, path, client: t.admin, body: { x: 1 }, raw: true });
    }
  }
  cases.push({ label: 'unknown method FUZZ', method: 'FUZZ', route: '/employers', path: '/employers', client: t.admin, raw: true });
  const oddPaths = [
    '/',
    '//employers',
    '/employers//x',
    '/employers/x/y/z',
    '/EMPLOYERS',
    '/employers%2F',
    '/employers/%2F',
    '/./employers',
    '/employers/x/../../api_keys',
    '/nothing',
    `/${'a'.repeat(3000)}`,
    '/%00',
    '/%',
    '/%zz',
    '/%E0%A4%A',
    '/employers%00',
    '/employers.json',
    '/employers;jsessionid=1',
    '/openapi.json/x',
    '/healthz/x',
    '/api_keys/key_x/extra',
    '/employers?%',
    '/employers?page_size=1#x',
  ];
  for (const path of oddPaths) {
    for (const method of ['GET', 'POST'])
      cases.push({
        label: `odd path ${method}`,
        method,
        route: path.slice(0, 40),
        path,
        client: chooseClient(),
        body: method === 'POST' ? {} : undefined,
        raw: true,
      });
  }
  for (const path of ['/healthz', '/openapi.json']) {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'])
      cases.push({ label: `method ${method} on a public route`, method, route: path, path, client: t.anonymous, raw: true });
  }
  return cases;
}

/** The longest any single request may take, wherever it comes from. */
const SLOW_MS = 1000;
/** Bodies, paths and nesting past these are sent one at a time: their time is then their own. */
const HEAVY_BODY_BYTES = 64 * 1024;
const HEAVY_PATH_LENGTH = 8 * 1024;
const HEAVY_NESTING = 64;

interface Result {
  c: Case;
  status: number;
  text: string;
  problems: string[];
  ms: number;
  /** Bytes of the body sent. */
  bytes: number;
  /** CPU time of this process (server and client) while it ran: its own cost when it ran alone. */
  cpuMs: number;
}

/** How deep brackets nest in a JSON text (strings are not skipped: an upper bound is all this needs). */
function nestingOf(text: string | Buffer): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = typeof text === 'string' ? text.charCodeAt(i) : (text[i] as number);
    if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

function isHeavy(c: Case): boolean {
  if (c.heavy || c.build || c.path.length > HEAVY_PATH_LENGTH) return true;
  const body = c.rawBody ?? (c.body === undefined ? undefined : encode(c.body));
  return body !== undefined && (Buffer.byteLength(body) > HEAVY_BODY_BYTES || nestingOf(body) > HEAVY_NESTING);
}

async function runOne(c: Case): Promise<Result> {
  const body = bodyOf(c);
  const bytes = body === undefined ? 0 : Buffer.byteLength(body);
  let outcome: Outcome;
  const cpu = process.cpuUsage();
  try {
    outcome = await send(t.baseUrl, { ...c, build: undefined, rawBody: body });
  } catch (error) {
    return { c, status: 0, text: '', problems: [`no response: ${String(error)}`], ms: 0, bytes, cpuMs: 0 };
  }
  const used = process.cpuUsage(cpu);
  const problems = [...problemsOf(c, outcome), ...(c.check?.(outcome) ?? [])];
  return { c, status: outcome.status, text: outcome.text, problems, ms: outcome.ms, bytes, cpuMs: (used.user + used.system) / 1000 };
}

async function runConcurrently(cases: Case[], concurrency: number): Promise<Result[]> {
  const results: Result[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) results.push(await runOne(cases[next++] as Case));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/**
 * Light cases run CONCURRENCY at a time, heavy ones alone. Server and client share this process, and other
 * processes share the machine: a case slower than SLOW_MS may only have waited for its neighbours, so it is
 * timed again alone and the faster of its times counts. Adds the "slower than 1 s" problem to every case
 * that is slow both times. The CPU time of the run alone shows what the request itself cost (on a busy
 * machine, wall time is several times that).
 */
async function runMeasured(cases: Case[]): Promise<Result[]> {
  const light: Case[] = [];
  const heavy: Case[] = [];
  for (const c of cases) (isHeavy(c) ? heavy : light).push(c);
  const results: Result[] = [];
  const phase = async (phaseCases: Case[], concurrency: number) => {
    const started = Date.now();
    const cpu = process.cpuUsage();
    const phaseResults = await runConcurrently(phaseCases, concurrency);
    const used = process.cpuUsage(cpu);
    // Among others, the CPU a request ran with is theirs too.
    if (concurrency > 1) for (const result of phaseResults) result.cpuMs = 0;
    results.push(...phaseResults);
    return `${((Date.now() - started) / 1000).toFixed(1)} s (${((used.user + used.system) / 1e6).toFixed(1)} s of CPU)`;
  };
  const lightTime = await phase(light, CONCURRENCY);
  const heavyTime = await phase(heavy, 1);
  console.info(`fuzz: ${light.length} light requests ${CONCURRENCY} at a time in ${lightTime}, ${heavy.length} heavy ones alone in ${heavyTime}`);
  const timedAgain: string[] = [];
  for (const result of results) {
    if (result.ms <= SLOW_MS) continue;
    const again = await runOne(result.c);
    timedAgain.push(
      `  ${Math.round(result.ms)} ms, then ${Math.round(again.ms)} ms alone (${Math.round(again.cpuMs)} ms of CPU): ${describeCase(result.c, result.bytes)}`,
    );
    result.ms = Math.min(result.ms, again.ms);
    result.cpuMs = again.cpuMs;
    if (result.ms > SLOW_MS) result.problems.push(`slower than ${SLOW_MS / 1000} s`);
  }
  if (timedAgain.length > 0) console.info(`fuzz: timed again:\n${timedAgain.join('\n')}`);
  return results;
}

const timeOf = (r: Result) => `${Math.round(r.ms)} ms${r.cpuMs > 0 ? ` (${Math.round(r.cpuMs)} ms of CPU)` : ''}`;
const describeCase = (c: Case, bytes: number) =>
  `${c.method} ${excerpt(c.path, 100)} [${excerpt(c.label, 80)}]${bytes > 0 ? ` ${bytes} bytes` : ''}${c.client.key ? '' : ' (no key)'}`;

/**
 * The failures grouped (by route and problem, unless `inputOf` names the input: then by input and problem,
 * with the operations it failed on), and the slowest requests.
 */
function failureReport(results: Result[], inputOf?: (c: Case) => string): { failures: Result[]; report: string } {
  const failures = results.filter((r) => r.problems.length > 0);
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 8);
  console.info(`fuzz: slowest requests:\n${slowest.map((r) => `  ${timeOf(r)} ${r.status} ${describeCase(r.c, r.bytes)}`).join('\n')}`);
  const groups = new Map<string, Result[]>();
  for (const failure of failures) {
    const problems = failure.problems.join('; ');
    const key = inputOf
      ? `[${inputOf(failure.c)}] -> ${failure.status}: ${problems}`
      : `${failure.c.method} ${failure.c.route} -> ${failure.status}: ${problems}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  const lines = [...groups].map(([key, group]) => {
    const routes = [...new Set(group.map(({ c }) => `${c.method} ${c.route}`))];
    const examples = group
      .slice(0, inputOf ? 2 : 3)
      .map(
        (r) =>
          `    [${excerpt(r.c.label, 80)}] ${r.c.method} ${excerpt(r.c.path, 120)} body=${excerpt(bodyText(r.c), 160)} ` +
          `headers=${excerpt(r.c.headers ? JSON.stringify(r.c.headers) : undefined, 100)} (${r.bytes} bytes, ${timeOf(r)}) -> ${r.status} ${excerpt(r.text, 300)}` +
          (r.status >= 500 ? `\n      server log: ${excerpt(serverErrorOf(r.text) ?? 'nothing', 300)}` : ''),
      );
    const on = inputOf ? [`    on ${routes.length} operations: ${routes.slice(0, 12).join(', ')}${routes.length > 12 ? ', ...' : ''}`] : [];
    return [`  ${key} (${group.length}x)`, ...on, ...examples].join('\n');
  });
  const slow = slowest.filter((r) => r.ms > SLOW_MS).map((r) => `  ${timeOf(r)}: ${describeCase(r.c, r.bytes)} -> ${r.status}`);
  const report = [
    `FUZZ_SEED=${SEED}: ${failures.length} of ${results.length} requests failed, in ${groups.size} groups:`,
    ...lines,
    ...(slow.length > 0 ? ['slowest:', ...slow] : []),
  ].join('\n');
  return { failures, report };
}

/** What the server logged about a failed request (its error's type and message), found by request id. */
function serverErrorOf(responseText: string): string | undefined {
  let requestId: unknown;
  try {
    requestId = (JSON.parse(responseText) as { request_id?: unknown }).request_id;
  } catch {
    return undefined;
  }
  if (typeof requestId !== 'string') return undefined;
  for (const line of t.logs) {
    if (!line.includes(requestId) || !line.includes('"err"')) continue;
    const err = (JSON.parse(line) as { err?: { type?: string; message?: string } }).err;
    if (err) return `${err.type ?? 'Error'}: ${err.message ?? ''}`;
  }
  return undefined;
}

/** The start of a body, for the report (bodies are rebuilt here rather than kept). */
function bodyText(c: Case): string | undefined {
  const body = c.rawBody ?? (c.body === undefined ? undefined : c.build ? undefined : encode(c.body));
  if (body === undefined) return c.build ? '(built when sent)' : undefined;
  return Buffer.isBuffer(body) ? `<${body.subarray(0, 40).toString('hex')}…>` : body.slice(0, 200);
}

// ---------------------------------------------------------------------------------------------------------
// Hostile inputs (docs/decisions.md "Requests"): boundary timestamps, deep nesting, huge arrays, long strings and odd
// content types, for every operation, with a valid admin key and without one.

const CATEGORIES = ['timestamps', 'nesting', 'arrays', 'strings', 'content types'] as const;
type Category = (typeof CATEGORIES)[number];

/** A seeded stream of its own, so that these cases never change the sample of the test above. */
const hostileRandom = mulberry32((SEED ^ 0x5f3759df) >>> 0);
/**
 * Always sent: every boundary timestamp in every date field and parameter, every content type on every
 * operation that takes a body, at least one case of each category on every operation (in a field where it
 * has one) and one without a key, and every variant on every method. Past those, a seeded sample of this
 * many more light and heavy cases.
 */
const HOSTILE_MORE_LIGHT = 500;
const HOSTILE_MORE_HEAVY = 50;
/** Bodies built to fit the limit stop this short of it. */
const FITTED_BYTES = BODY_LIMIT_BYTES - LITTLE;
/** Lengths of whole URLs: old browsers and proxies (2 KiB), nginx and Apache (8 KiB), Node (16 KiB), more. */
const URL_LENGTHS = [2048, 8192, 16 * 1024, 64 * 1024, FITTED_BYTES];
/** Characters that come back changed when a body's charset is ignored or misread. */
const MARKER = 'Zoë Ñúñez';
/** Where a fitted value goes in a body's JSON text. */
const HOLE = '"\u0002hole\u0002"';

interface HostileCase extends Case {
  category: Category;
  /** The input, without where it went: failures are grouped by it. */
  variant: string;
  /** The case is always sent when it is the first (in seeded order) of any of these groups. */
  groups: string[];
}

interface Target {
  operation: Operation;
  path: string;
  /** A body the operation answered 2xx to (so that hostile values in its fields reach the service), or the synthesized one. */
  body: unknown;
  accepted: boolean;
  /** Why the synthesized body was refused. */
  refusal?: string;
}

async function targetOf(operation: Operation): Promise<Target> {
  const path = await concretePath(operation);
  if (!operation.body) return { operation, path, body: undefined, accepted: false };
  let refusal = '';
  for (const requiredOnly of [false, true]) {
    const body = synthesize(operation.body, 'body', 0, requiredOnly);
    const response = await t.admin.request(operation.method, path, { body });
    if (response.status >= 200 && response.status < 300) return { operation, path, body, accepted: true };
    refusal ||= `${response.status} ${excerpt(response.text, 160)}`;
  }
  return { operation, path, body: synthesize(operation.body, 'body'), accepted: false, refusal };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
const pick = <T>(items: readonly T[], count: number) => shuffled(items, hostileRandom).slice(0, count);

/** The value at a path of a parsed JSON body. */
function valueAt(value: unknown, path: string[]): unknown {
  let current = value;
  for (const segment of path) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[segment] : undefined;
  return current;
}

/** A plain text field of a body (no format, pattern or enum, not an id), or a metadata entry: where MARKER goes. */
function markerPath(operation: Operation, valid: unknown): string[] | undefined {
  const fields = fieldsOf(operation.body, valid);
  const text = fields.find(({ path, schema }) => {
    const resolved = resolve(schema).schema;
    const name = path.at(-1) ?? '';
    return (
      kindOf(resolved) === 'string' &&
      !resolved.format &&
      !resolved.pattern &&
      !resolved.enum &&
      !isIdField(name, resolved) &&
      (resolved.maxLength ?? Infinity) >= 20 &&
      typeof valueAt(valid, path) === 'string'
    );
  });
  if (text) return text.path;
  const map = fields.find(({ path, schema }) => path.length === 1 && kindOf(resolve(schema).schema) === 'map');
  return map ? [...map.path, 'cost_center'] : undefined;
}

/** RFC 3339 full-date: four digits of year, and a day its month has. */
const isFullDate = (value: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
};
/** RFC 3339 section 5.6 (space separator aside, which its note allows). */
const isRfc3339DateTime = (value: string) => {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(value);
  if (!match || !isFullDate(match[1] as string)) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  const offset = match[7] === undefined ? true : Number(match[7]) <= 23 && Number(match[8]) <= 59;
  return hour <= 23 && minute <= 59 && second <= 60 && offset;
};

/** A 2xx to a date or timestamp the format does not allow means it was stored or used as something else. */
const rejectsInvalid =
  (format: string | undefined, value: string) =>
  (outcome: Outcome): string[] => {
    if (outcome.status < 200 || outcome.status >= 300) return [];
    if (format === 'date' && !isFullDate(value)) return ['accepted a date that is not an RFC 3339 full-date'];
    if (format === 'date-time' && !isRfc3339DateTime(value)) return ['accepted a timestamp that is not RFC 3339'];
    return [];
  };

const expectStatus = (status: number, why: string) => (outcome: Outcome) => (outcome.status === status ? [] : [`expected ${status} (${why})`]);

/** A 2xx must have read MARKER as sent (the body was decoded per its charset or content encoding). */
const keepsMarker = (path: string[] | undefined) => (outcome: Outcome) => {
  if (!path || outcome.status < 200 || outcome.status >= 300) return [];
  let stored: unknown;
  try {
    stored = valueAt(JSON.parse(outcome.text), path);
  } catch {
    return [];
  }
  return stored === undefined || stored === MARKER ? [] : [`accepted, but read "${MARKER}" as ${JSON.stringify(stored)}`];
};

function hostileCases(target: Target): HostileCase[] {
  const { operation, path, body: valid } = target;
  const operationName = `${operation.method} ${operation.template}`;
  const cases: HostileCase[] = [];
  const validText = valid === undefined ? undefined : encode(valid);
  const json = { 'content-type': 'application/json' };
  /** The groups of a case: it is sent when it is the first (seeded order) of one; its variant on its method is one. */
  const own = (category: Category) => `${operationName} | ${category}`;
  const alone = (where: string | undefined, variant: string) => `${operationName} | ${where} | ${variant}`;
  const add = (category: Category, variant: string, where: string | undefined, extra: Partial<Case>, groups: string[] = []) =>
    cases.push({
      label: `${category}: ${variant}${where ? ` in ${where}` : ''}`,
      method: operation.method,
      route: operation.template,
      path,
      client: t.admin,
      raw: true,
      category,
      variant: `${category}: ${variant}`,
      groups: [`${category} | ${variant} | ${operation.method}`, ...groups],
      ...extra,
    });
  /** The same request without a usable key: 401, before any of the body is read. One per operation. */
  const addWithoutKey = (category: Category, variant: string, extra: Partial<Case>) => {
    const client = hostileRandom() < 0.5 ? t.anonymous : bogusKeyClient;
    const check = operation.isPublic ? undefined : expectStatus(401, 'authentication comes before the body');
    add(category, `${variant}, ${client.key ? 'unknown key' : 'no key'}`, undefined, { client, ...extra, check }, [`${operationName} | no key`]);
  };
  /** A body with one field replaced by a fitted or fixed JSON text. */
  const withText = (field: string[], text: string | ((room: number) => string)) => {
    const template = encode(withValue(valid, field, raw(HOLE)));
    return typeof text === 'string' ? template.replace(HOLE, () => text) : fitTo(template, HOLE, FITTED_BYTES, text);
  };
  const fields = valid === undefined ? [] : fieldsOf(operation.body, valid).filter((field) => valueAt(valid, field.path) !== undefined);
  const stringFields = fields.filter((field) => kindOf(resolve(field.schema).schema) === 'string');
  /** The path with one parameter replaced (already encoded). */
  const withParam = (param: string, value: string) => {
    const parts = path.split('/');
    parts[(operation.template.split(`{${param}}`)[0] ?? '').split('/').length - 1] = value;
    return parts.join('/');
  };
  const query = (name: string, value: string) => `${path}?${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  const queryNames = operation.query.map((p) => p.name);

  // Boundary timestamps and dates: all of them in date fields and parameters, a few in every other string.
  const boundaries = [...BOUNDARY_TIMESTAMPS, ...BOUNDARY_DATES.map(([label, value]) => [`date ${label}`, value] as const)];
  for (const field of stringFields) {
    const schema = resolve(field.schema).schema;
    const dated = schema.format === 'date' || schema.format === 'date-time';
    for (const [label, value] of dated ? boundaries : pick(boundaries, 3)) {
      const where = field.path.join('.');
      const check = dated ? rejectsInvalid(schema.format, value) : undefined;
      add(
        'timestamps',
        label,
        where,
        { body: withValue(valid, field.path, value), check },
        dated ? [own('timestamps'), alone(where, label)] : [own('timestamps')],
      );
    }
  }
  for (const parameter of operation.query) {
    const schema = resolve(parameter.schema).schema;
    const item = kindOf(schema) === 'array' ? resolve(schema.items).schema : schema;
    const dated = item.format === 'date' || item.format === 'date-time';
    for (const [label, value] of dated ? boundaries : pick(boundaries, 3)) {
      const where = `?${parameter.name}`;
      const check = dated ? rejectsInvalid(item.format, value) : undefined;
      add('timestamps', label, where, { path: query(parameter.name, value), check }, dated ? [own('timestamps'), alone(where, label)] : [own('timestamps')]);
    }
  }
  for (const param of operation.pathParams) {
    for (const [label, value] of pick(boundaries, 2)) {
      add('timestamps', label, `{${param}}`, { path: withParam(param, encodeURIComponent(value)) }, [own('timestamps')]);
    }
  }
  {
    const dateField = stringFields.find((field) => resolve(field.schema).schema.format?.startsWith('date'));
    const leap = '2026-06-30T23:59:60Z';
    if (dateField) addWithoutKey('timestamps', 'leap second', { body: withValue(valid, dateField.path, leap) });
    else addWithoutKey('timestamps', 'leap second', { path: query(queryNames.find((n) => /created|date/.test(n)) ?? 'created_after', leap) });
  }

  // Deep nesting: as the whole body, in every field, and in the query.
  const depths: [label: string, depthOf: (kind: Nesting, room: number) => number][] = [
    ['33', () => 33],
    ['1000', () => 1000],
    ['deepest in 1 MiB', (kind, room) => deepestIn(kind, room)],
  ];
  for (const kind of ['array', 'object', 'mixed'] as const) {
    for (const [depthLabel, depthOf] of depths) {
      const variant = `${kind} depth ${depthLabel}`;
      const fitted = depthLabel === 'deepest in 1 MiB';
      add('nesting', variant, 'the body', {
        headers: json,
        ...(fitted ? { build: () => nestedText(kind, depthOf(kind, FITTED_BYTES)) } : { rawBody: nestedText(kind, depthOf(kind, 0)) }),
      });
      for (const field of fields) {
        const where = field.path.join('.');
        const body = fitted
          ? { build: () => withText(field.path, (room) => nestedText(kind, depthOf(kind, room))) }
          : { rawBody: withText(field.path, nestedText(kind, depthOf(kind, 0))) };
        add('nesting', variant, where, { headers: json, ...body }, [own('nesting')]);
      }
    }
  }
  for (const depth of [33, 1000]) {
    add('nesting', `bracket keys depth ${depth}`, 'the query', { path: `${path}?a${'[a]'.repeat(depth)}=1` });
    add('nesting', `JSON depth ${depth}`, 'the query', { path: query(queryNames[0] ?? 'filter', deepMixedText(depth)) });
  }
  addWithoutKey('nesting', 'mixed depth deepest in 1 MiB', { headers: json, build: () => deepMixedText(deepestIn('mixed', FITTED_BYTES)) });

  // Huge arrays and objects with many keys: as the whole body, and in array and object fields.
  const inner = validText && validText.startsWith('{') ? validText.slice(1, -1) : '';
  add('arrays', '100000 numbers', 'the body', { headers: json, build: () => repeatedArrayText(100_000) });
  add('arrays', 'numbers up to 1 MiB', 'the body', { headers: json, build: () => repeatedArrayIn(FITTED_BYTES) });
  add('arrays', '100000 empty objects', 'the body', { headers: json, build: () => repeatedArrayText(100_000, '{}') });
  add('arrays', '50000 unknown keys', 'the body', { headers: json, build: () => manyKeysText(50_000, inner) });
  if (validText) add('arrays', 'copies of the body up to 1 MiB', 'the body', { headers: json, build: () => repeatedArrayIn(FITTED_BYTES, validText) });
  for (const field of fields) {
    const schema = resolve(field.schema).schema;
    const where = field.path.join('.');
    const kind = kindOf(schema);
    if (kind === 'array') {
      const value = valueAt(valid, field.path);
      const item = Array.isArray(value) && value.length > 0 ? encode(value[0]) : '1';
      const hundredThousand = (room: number) =>
        (Buffer.byteLength(item) + 1) * 100_000 < room ? repeatedArrayText(100_000, item) : repeatedArrayIn(room, item);
      add('arrays', '100000 items', where, { headers: json, build: () => withText(field.path, hundredThousand) }, [own('arrays')]);
      add('arrays', 'items up to 1 MiB', where, { headers: json, build: () => withText(field.path, (room) => repeatedArrayIn(room, item)) }, [own('arrays')]);
      add('arrays', '100000 numbers', where, { headers: json, build: () => withText(field.path, repeatedArrayText(100_000)) }, [own('arrays')]);
    }
    if (kind === 'object' || kind === 'map') {
      const value = valueAt(valid, field.path);
      const inside = value && typeof value === 'object' ? encode(value).slice(1, -1) : '';
      add('arrays', '50000 unknown keys', where, { headers: json, build: () => withText(field.path, manyKeysText(50_000, inside)) }, [own('arrays')]);
    }
  }
  addWithoutKey('arrays', 'numbers up to 1 MiB', { headers: json, build: () => repeatedArrayIn(FITTED_BYTES) });

  // Long strings: 1 MiB (minus a little) in every string field and as the body; URLs and ids near limits.
  for (const filling of ['ascii', 'two-byte', 'escapes', 'emoji'] as const) {
    const variant = `1 MiB string of ${filling}`;
    add('strings', variant, 'the body', { headers: json, build: () => longStringText(FITTED_BYTES, filling) });
    for (const field of stringFields) {
      add('strings', variant, field.path.join('.'), { headers: json, build: () => withText(field.path, (room) => longStringText(room, filling)) }, [
        own('strings'),
      ]);
    }
  }
  for (const name of [...queryNames, 'unknown_param']) {
    for (const length of URL_LENGTHS) {
      const prefix = `${path}?${encodeURIComponent(name)}=`;
      add('strings', `URL of ${length} characters`, `?${name}`, {
        path: `${prefix}${'x'.repeat(Math.max(1, length - prefix.length))}`,
      });
    }
  }
  for (const param of operation.pathParams) {
    for (const length of [2048, 2049, 8192, 16 * 1024]) {
      add('strings', `id of ${length} characters`, `{${param}}`, { path: withParam(param, 'x'.repeat(length)) });
    }
  }
  addWithoutKey('strings', '1 MiB string', { headers: json, build: () => longStringText(FITTED_BYTES) });

  // Odd content types and encodings, with the body the operation accepts (or a small one where it takes none).
  const markedPath = operation.body ? markerPath(operation, valid) : undefined;
  const marked = markedPath ? withValue(valid, markedPath, MARKER) : (valid ?? { x_unknown_field: MARKER });
  const text = encode(marked);
  const takesBody = operation.body !== undefined;
  const onlyJson = takesBody ? expectStatus(415, 'JSON only') : undefined;
  const textFields = Object.fromEntries(Object.entries(marked as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  const form = multipart(textFields);
  const types: [variant: string, headers: Record<string, string>, body: string | Buffer, check?: (outcome: Outcome) => string[]][] = [
    ['charset=utf-16, UTF-16 bytes', { 'content-type': 'application/json; charset=utf-16' }, utf16(text), keepsMarker(markedPath)],
    [
      'charset=utf-16, UTF-8 bytes',
      { 'content-type': 'application/json; charset=utf-16' },
      text,
      takesBody ? (o) => (o.status >= 200 && o.status < 300 ? ['accepted UTF-8 bytes declared as UTF-16'] : []) : undefined,
    ],
    ['charset=latin1, latin1 bytes', { 'content-type': 'application/json; charset=latin1' }, latin1(text), keepsMarker(markedPath)],
    ['charset=iso-8859-1, latin1 bytes', { 'content-type': 'application/json; charset=iso-8859-1' }, latin1(text), keepsMarker(markedPath)],
    ['charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }, text, keepsMarker(markedPath)],
    ['charset=klingon', { 'content-type': 'application/json; charset=klingon' }, text],
    ['gzip, real', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzip(text), keepsMarker(markedPath)],
    ['gzip, garbage', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, Buffer.from(`1f8b0800000000000003${'deadbeef'.repeat(8)}`, 'hex')],
    ['gzip, not compressed', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, text],
    ['gzip twice', { 'content-type': 'application/json', 'content-encoding': 'gzip, gzip' }, gzip(gzip(text)), keepsMarker(markedPath)],
    ['deflate, gzip bytes', { 'content-type': 'application/json', 'content-encoding': 'deflate' }, gzip(text)],
    ['br, garbage', { 'content-type': 'application/json', 'content-encoding': 'br' }, Buffer.from('not brotli at all')],
    ['identity', { 'content-type': 'application/json', 'content-encoding': 'identity' }, text, keepsMarker(markedPath)],
    ['unknown encoding', { 'content-type': 'application/json', 'content-encoding': 'x-fuzz' }, text],
    ['text/plain', { 'content-type': 'text/plain' }, text, onlyJson],
    ['text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }, text, onlyJson],
    ['form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, formUrlEncoded(textFields), onlyJson],
    ['multipart/form-data', { 'content-type': form.contentType }, form.body, onlyJson],
    ['multipart without boundary', { 'content-type': 'multipart/form-data' }, form.body, onlyJson],
    [
      'json-patch+json',
      { 'content-type': 'application/json-patch+json' },
      encode([{ op: 'replace', path: `/${markedPath?.join('/') ?? 'x'}`, value: MARKER }]),
    ],
    ['problem+json', { 'content-type': 'application/problem+json' }, text],
    ['no content-type, JSON body', {}, text],
    ['empty body, Content-Length 0', { 'content-type': 'application/json', 'content-length': '0' }, ''],
    ['empty body, Content-Length 0, no content-type', { 'content-length': '0' }, ''],
    ['JSON body', json, takesBody ? text : '{"x_unknown_field":1}'],
  ];
  for (const [variant, headers, body, check] of types) {
    add('content types', variant, undefined, { headers, rawBody: body, check }, takesBody ? [alone(undefined, variant)] : [own('content types')]);
  }
  add('content types', 'gzip bomb (100 MiB of spaces)', undefined, {
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    build: gzipBomb,
  });
  addWithoutKey('content types', 'gzip bomb', { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, build: gzipBomb });

  // Where a category has no case of its own for the operation (no such field), any of its cases will do.
  for (const category of CATEGORIES) {
    const ofCategory = cases.filter((c) => c.category === category && c.client === t.admin);
    if (!ofCategory.some((c) => c.groups.includes(own(category)))) for (const c of ofCategory) c.groups.push(own(category));
  }
  return cases;
}

/** The first case of every group, then a seeded sample of the rest, in the order they were made. */
function selectHostile(cases: HostileCase[]): HostileCase[] {
  const order = shuffled([...cases.keys()], hostileRandom);
  const seen = new Set<string>();
  const kept = new Set<number>();
  for (const index of order) {
    const c = cases[index] as HostileCase;
    if (c.groups.every((group) => seen.has(group))) continue;
    kept.add(index);
    for (const group of c.groups) seen.add(group);
  }
  const always = kept.size;
  let light = 0;
  let heavy = 0;
  for (const index of order) {
    if (kept.has(index)) continue;
    const isHeavyCase = isHeavy(cases[index] as HostileCase);
    if (isHeavyCase ? heavy >= HOSTILE_MORE_HEAVY : light >= HOSTILE_MORE_LIGHT) continue;
    kept.add(index);
    if (isHeavyCase) heavy++;
    else light++;
  }
  console.info(`fuzz: ${always} hostile cases always sent, ${light} light and ${heavy} heavy ones more by seeded sample`);
  return cases.filter((_c, index) => kept.has(index));
}

describe('fuzzing every route', () => {
  it('when routes get malformed and mutated requests, then none is a 5xx and every error has the documented body', async () => {
    expect(operations.map((o) => `${o.method} ${o.template}`)).toEqual(expect.arrayContaining(['POST /employers', 'GET /employers/{public_id}']));

    const cursors = {
      own: await realCursor(t.admin, '/employers'),
      otherList: await realCursor(t.admin, '/carriers'),
      otherProvider: await realCursor(otherProviderClient, '/employers'),
    };
    const cases: Case[] = [];
    const templates = new Map<string, { path: string; methods: Set<string> }>();
    for (const operation of operations) {
      const path = await concretePath(operation);
      const entry = templates.get(operation.template) ?? { path, methods: new Set<string>() };
      entry.methods.add(operation.method);
      templates.set(operation.template, entry);
      if (operation.body) cases.push(...bodyCases(operation, path));
      if (operation.pathParams.length > 0) cases.push(...pathCases(operation, path));
      if (operation.method === 'GET') cases.push(...queryCases(operation, path, cursors));
      cases.push(...headerCases(operation, path));
    }
    cases.push(...methodCases(templates));
    const kept = new Set(sample([...cases.keys()], MAX_REQUESTS));
    const selected = cases.filter((_c, index) => kept.has(index));

    const started = Date.now();
    const results = await runMeasured(selected);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const sent = results.filter((r) => r.status !== 0).length;
    const successes = results.filter((r) => r.status >= 200 && r.status < 300).length;
    const { failures, report } = failureReport(results);
    console.info(
      `fuzz: seed ${SEED}, ${sent} requests over ${operations.length} operations in ${seconds} s, ${successes} succeeded, ${failures.length} failed`,
    );

    // The admin key still works, so the requests above were not silently all 401s.
    expect((await t.admin.get(`/employers/${seeds.get('employer')}`)).status).toBe(200);
    expect(successes).toBeGreaterThan(0);
    expect(sent).toBeGreaterThanOrEqual(MIN_REQUESTS);
    for (const operation of operations) {
      expect(
        selected.some((c) => c.route === operation.template && c.method === operation.method),
        `${operation.method} ${operation.template} fuzzed`,
      ).toBe(true);
    }
    expect(failures.length, report).toBe(0);
  }, 300_000);

  it('when every operation gets boundary timestamps, deep nesting, huge arrays, long strings and odd content types, with a key and without, then none is a 5xx or slower than 1 s and every error has the documented body', async () => {
    await seedUntouchedRecords();
    const targets: Target[] = [];
    for (const operation of operations) targets.push(await targetOf(operation));
    const refused = targets
      .filter((target) => target.operation.body && !target.accepted)
      .map((target) => `  ${target.operation.method} ${target.operation.template}: ${target.refusal}`);
    console.info(
      `fuzz: ${targets.filter((target) => target.accepted).length} operations took their synthesized body; these did not, so hostile values in their fields stop at validation:\n${refused.join('\n') || '  none'}`,
    );

    const cases = targets.flatMap(hostileCases);
    const selected = selectHostile(cases);
    const counts = CATEGORIES.map(
      (category) => `${category} ${selected.filter((c) => c.category === category).length}/${cases.filter((c) => c.category === category).length}`,
    );
    console.info(`fuzz: seed ${SEED}, hostile cases sent/made: ${counts.join(', ')}`);
    const started = Date.now();
    const results = await runMeasured(selected);
    console.info(`fuzz: ${results.length} hostile requests in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    for (const operation of operations) {
      for (const category of CATEGORIES) {
        const covered = selected.some((c) => c.route === operation.template && c.method === operation.method && c.category === category);
        expect(covered, `${operation.method} ${operation.template} got ${category}`).toBe(true);
      }
    }
    expect(results.filter((r) => r.status >= 200 && r.status < 300).length).toBeGreaterThan(0);
    const { failures, report } = failureReport(results, (c) => (c as HostileCase).variant);
    expect(failures.length, report).toBe(0);
  }, 600_000);
});
