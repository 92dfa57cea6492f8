/**
 * The OpenAPI document as generators and linters want it, made from what @fastify/swagger derives from the
 * route schemas: a stable operationId per operation, every titled schema (records, bodies, list pages, the
 * error body) named once under components.schemas and referenced, and every status, request header and
 * response header the service's shared layers can send documented on each operation. Pure: document in,
 * document out.
 */

import { OPERATION_REFERENCE, WEBHOOK_EXAMPLES, type Example } from './openapi-examples.ts';
import { EMPTY_BODY_TITLE, OPTIONAL_BODY_KEYWORD } from './schemas.ts';

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  description?: string;
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
};

/**
 * What the document depends on: the interface version only. Never one server's configuration (a server with
 * RATE_LIMIT_MAX=0 sends no rate-limit headers, yet its document, and the client generated from it, describe
 * them as every server may send them): docs/decisions.md, "The OpenAPI document is the API's, not a server's".
 */
export interface DocumentOptions {
  apiVersion: string;
}

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' };

/** Operations whose derived name would read badly: their operationId, by `METHOD path`. */
const OPERATION_IDS: Record<string, string> = {
  'POST /plan_configurations/{public_id}/contribution_strategy': 'setPlanConfigurationContributionStrategy',
  'POST /webhook_endpoints/{public_id}/rotate_secret': 'rotateWebhookEndpointSecret',
  'POST /webhook_endpoints/{public_id}/deliveries/{delivery_id}/retry': 'retryWebhookDelivery',
  'GET /webhook_endpoints/{public_id}/deliveries': 'listWebhookDeliveries',
  'GET /enrollments/{public_id}/benefit_changes': 'listEnrollmentBenefitChanges',
  'GET /members/{public_id}/coverage': 'getMemberCoverage',
  'GET /pay_schedules/{public_id}/pay_dates': 'listPayScheduleDates',
  'GET /documents/{public_id}/content': 'getDocumentContent',
  'GET /open_enrollment_windows/{public_id}/change_report': 'getOpenEnrollmentWindowChangeReport',
  'GET /open_enrollment_windows/{public_id}/incomplete_members_report': 'getOpenEnrollmentWindowIncompleteMembersReport',
  'GET /groups/{public_id}/edi_profile': 'getGroupEdiProfile',
  'PUT /groups/{public_id}/edi_profile': 'replaceGroupEdiProfile',
  'DELETE /groups/{public_id}/edi_profile': 'deleteGroupEdiProfile',
  'GET /edi_files/{public_id}/content': 'getEdiFileContent',
  'POST /edi_files/{public_id}/acknowledgements': 'acknowledgeEdiFile',
  'POST /groups/{public_id}/premium_bills': 'createGroupPremiumBill',
  'GET /groups/{public_id}/premium_bills': 'listGroupPremiumBills',
  'GET /groups/{public_id}/premium_bills/{bill_id}': 'getGroupPremiumBill',
};

/** `open_enrollment_windows` -> `OpenEnrollmentWindow`. */
function singularName(segment: string): string {
  const singular = segment.endsWith('ies') ? `${segment.slice(0, -3)}y` : segment.endsWith('sses') ? segment.slice(0, -2) : segment.replace(/s$/, '');
  return camel(singular, true);
}

function camel(snake: string, upperFirst: boolean): string {
  const joined = snake.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
  return upperFirst ? joined.charAt(0).toUpperCase() + joined.slice(1) : joined;
}

/**
 * listCarriers, createCarrier, getCarrier, updateCarrier, deleteCarrier; an action on a record is the action
 * and the record (approveEnrollment, saveAndSubmitEnrollment); the rest are named in OPERATION_IDS.
 */
export function operationIdOf(method: string, path: string): string {
  const named = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
  if (named) return named;
  const segments = path.split('/').filter(Boolean);
  const [collection = '', id, action] = segments;
  const record = singularName(collection);
  if (id === undefined) return method === 'get' ? `list${camel(collection, true)}` : `create${record}`;
  if (action === undefined) return { get: 'get', patch: 'update', put: 'replace', delete: 'delete', post: 'post' }[method] + record;
  return `${camel(action, false)}${record}`;
}

const WHEN_RATE_LIMITED = '; sent when rate limiting is on (RATE_LIMIT_MAX above 0, the default)';
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
const ref = (kind: 'headers' | 'parameters' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The headers the shared layers send, under components.headers. */
function sharedHeaders(options: DocumentOptions): Json {
  return {
    XRequestId: header('This request, as logs and error bodies name it'),
    ApiVersion: header('The interface version the server speaks', { type: 'string', enum: [options.apiVersion] }),
    XRateLimitLimit: header(`Requests allowed per window for this API key (or address, without a key)${WHEN_RATE_LIMITED}`, { type: 'integer' }),
    XRateLimitRemaining: header(`Requests left in the current window${WHEN_RATE_LIMITED}`, { type: 'integer' }),
    XRateLimitReset: header(`Seconds until the window resets${WHEN_RATE_LIMITED}`, { type: 'integer' }),
    RetryAfter: header('Seconds to wait before retrying', { type: 'integer' }),
    AcceptEncoding: header('identity: request bodies are not decoded'),
    IdempotentReplayed: header('true on a POST answer kept for an Idempotency-Key and sent again', { type: 'string', enum: ['true'] }),
  };
}

/** The header refs of every response: the request id, the version, and the rate limit (sent when it is on). */
function commonHeaderRefs(): Json {
  return {
    'X-Request-Id': ref('headers', 'XRequestId'),
    'API-Version': ref('headers', 'ApiVersion'),
    'X-RateLimit-Limit': ref('headers', 'XRateLimitLimit'),
    'X-RateLimit-Remaining': ref('headers', 'XRateLimitRemaining'),
    'X-RateLimit-Reset': ref('headers', 'XRateLimitReset'),
  };
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid request: a field, a query parameter, a header (API-Version, Idempotency-Key) or a body where none is taken',
  '401': 'No valid API key',
  '403': "The API key's role may not do this",
  '404': "No such record (or another tenant's)",
  '409': 'The record is not in a state that allows this, or the Idempotency-Key was used for another request or is still running',
  '413': 'The request body is larger than 1 MiB',
  '415': 'The request body is not UTF-8 JSON without a content coding',
  '429': 'Too many requests; retry after Retry-After seconds',
  '500': 'An error on the service side; quote the request id',
};

/** One error response per status, under components.responses: the error body and the headers it comes with. */
function sharedResponses(): Json {
  return Object.fromEntries(
    Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        headers: {
          ...commonHeaderRefs(),
          'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
          ...(status === '429' ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}),
          ...(status === '415' ? { 'Accept-Encoding': ref('headers', 'AcceptEncoding') } : {}),
        },
        content: { 'application/json': { schema: ERROR_REF } },
      },
    ]),
  );
}

/** The statuses every operation of this shape can answer, besides what its route declares. */
function sharedStatuses(method: string, path: string): string[] {
  const statuses = ['400', '401', '403', '429', '500'];
  if (path.includes('{')) statuses.push('404');
  if (method === 'post') statuses.push('409');
  if (method !== 'get') statuses.push('413', '415');
  return statuses;
}

function isErrorResponse(response: Json): boolean {
  const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
  return schema?.title === 'ErrorBody' || schema?.$ref === ERROR_REF.$ref;
}

/** The description and examples of openapi-examples.ts, on the operation's JSON bodies (request and 2xx). */
function addReference(method: string, path: string, operation: Operation): void {
  const reference = OPERATION_REFERENCE[`${method.toUpperCase()} ${path}`];
  if (!reference) return;
  operation.description = reference.description;
  const jsonOf = (holder: Json | undefined) => (holder?.content as Record<string, Json> | undefined)?.['application/json'];
  const requestBody = jsonOf(operation.requestBody);
  if (reference.request && requestBody) requestBody.examples = reference.request;
  for (const [status, examples] of Object.entries(reference.responses ?? {})) {
    const body = jsonOf(operation.responses[status]);
    if (body) body.examples = examples;
  }
}

function finishOperation(method: string, path: string, operation: Operation, errorBodies: Json[]): void {
  operation.operationId = operationIdOf(method, path);
  addReference(method, path, operation);
  const parameters = (operation.parameters ?? []).filter(
    (parameter) => parameter.in !== 'header' || !['api-version', 'idempotency-key'].includes(String(parameter.name).toLowerCase()),
  );
  parameters.push(ref('parameters', 'ApiVersion'));
  if (method === 'post') parameters.push(ref('parameters', 'IdempotencyKey'));
  operation.parameters = parameters;
  // An action that takes no fields (EmptyBodySchema) may be sent without a body: its body is optional.
  const body = (operation.requestBody?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined;
  // So may an action whose fields are all optional (OptionalBodySchema); the marker itself is the server's, not the document's.
  if (body?.title === EMPTY_BODY_TITLE || body?.[OPTIONAL_BODY_KEYWORD] === true) operation.requestBody = { ...operation.requestBody, required: false };
  if (body) delete body[OPTIONAL_BODY_KEYWORD];
  for (const status of sharedStatuses(method, path)) operation.responses[status] ??= ref('responses', `Error${status}`);
  for (const [status, response] of Object.entries(operation.responses)) {
    if (isErrorResponse(response) && ERROR_DESCRIPTIONS[status] !== undefined) {
      errorBodies.push(((response.content as Json)['application/json'] as Json).schema as Json);
      operation.responses[status] = ref('responses', `Error${status}`);
      continue;
    }
    if (typeof response.$ref === 'string') continue;
    const headers: Json = { ...commonHeaderRefs(), ...((response.headers as Json | undefined) ?? {}) };
    if (method === 'post') headers['Idempotent-Replayed'] = ref('headers', 'IdempotentReplayed');
    if (path === '/documents/{public_id}/content' && status === '200') {
      headers['Content-Disposition'] = header("attachment, with the document's file name");
      headers['X-Content-Type-Options'] = header('nosniff', { type: 'string', enum: ['nosniff'] });
    }
    if (path === '/edi_files/{public_id}/content' && status === '200') {
      headers['Content-Disposition'] = header("attachment, with the file's name (file_name)");
      headers['X-Content-Type-Options'] = header('nosniff', { type: 'string', enum: ['nosniff'] });
    }
    if (path.endsWith('/incomplete_members_report') && status === '200')
      headers['Content-Disposition'] = header('attachment; filename="incomplete-members-<window>.csv" when format=csv');
    if (path === '/payroll_deductions' && status === '200')
      headers['Content-Disposition'] = header('attachment; filename="payroll-deductions-<employer>-<pay_date>.csv" when format=csv');
    response.headers = headers;
    if (response.description === undefined || response.description === 'Default Response') response.description = 'Success';
  }
}

/**
 * Replaces every schema with a `title` by a $ref to components.schemas[title] (recursively, inside the named
 * schemas too). Two different schemas with one title are a programming error.
 */
function nameSchemas(document: Json, alsoNamed: readonly Json[]): void {
  const named = new Map<string, { schema: Json; text: string }>();
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const object = node as Json;
    const copy: Json = {};
    for (const [key, value] of Object.entries(object)) copy[key] = key === 'examples' || key === 'example' ? value : visit(value);
    addDiscriminatorMapping(object, copy);
    const title = copy.title;
    if (typeof title !== 'string' || copy.type !== 'object') return copy;
    const { title: _title, ...schema } = copy;
    const text = JSON.stringify(schema);
    const seen = named.get(title);
    if (seen && seen.text !== text) throw new Error(`OpenAPI: two different schemas are titled ${title}`);
    named.set(title, { schema: { title, ...schema }, text });
    return { $ref: `#/components/schemas/${title}` };
  };
  document.paths = visit(document.paths);
  // Schemas taken out of the operations (the error body of the shared error responses) are named too.
  visit(alsoNamed);
  const components = (document.components ??= {}) as Json;
  const schemas = { ...((components.schemas as Json | undefined) ?? {}) };
  for (const [title, { schema }] of [...named].sort(([a], [b]) => a.localeCompare(b))) schemas[title] = schema;
  components.schemas = schemas;
}

/**
 * A DiscriminatedUnion (schemas.ts) whose branches became $refs: OpenAPI would take the schema names for the
 * discriminator's values unless a mapping says which value names which branch (ajv refuses a mapping in the
 * route schemas, so it is added here).
 */
function addDiscriminatorMapping(original: Json, copy: Json): void {
  const discriminator = original.discriminator as Json | undefined;
  const branches = original.oneOf as Json[] | undefined;
  const named = copy.oneOf as Json[] | undefined;
  if (!discriminator || !branches || !named || typeof discriminator.propertyName !== 'string') return;
  const field = discriminator.propertyName;
  const mapping: Json = {};
  let mapped = 0;
  branches.forEach((branch, index) => {
    // The generator writes a branch's constant as a one-value enum.
    const property = (branch.properties as Json | undefined)?.[field] as Json | undefined;
    const values = property?.const !== undefined ? [property.const] : ((property?.enum as unknown[] | undefined) ?? []);
    const ref = named[index]?.$ref;
    if (typeof ref !== 'string' || values.length === 0) return;
    mapped += 1;
    for (const value of values) mapping[String(value)] = ref;
  });
  if (mapped === branches.length) copy.discriminator = { ...discriminator, mapping };
}

export function finishOpenApiDocument<T extends object>(source: T, options: DocumentOptions): T {
  const document = structuredClone(source) as unknown as Json;
  document.servers = [{ url: '/', description: 'This server (PUBLIC_BASE_URL when set behind a proxy)' }];
  const info = document.info as Json;
  info.license = { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const seen = new Map<string, string>();
  // The error body as the routes declare it: named once (nameSchemas), the shared error responses refer to it.
  const errorBodies: Json[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      finishOperation(method, path, operation, errorBodies);
      const other = seen.get(operation.operationId!);
      if (other) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} and ${other} share the operationId ${operation.operationId}`);
      seen.set(operation.operationId!, `${method.toUpperCase()} ${path}`);
    }
  }
  const components = (document.components ??= {}) as Json;
  components.headers = sharedHeaders(options);
  components.responses = sharedResponses();
  components.parameters = {
    ApiVersion: {
      name: 'API-Version',
      in: 'header',
      required: false,
      description: 'Pin the interface version; another value is a 400',
      schema: { type: 'string', enum: [options.apiVersion] },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes retries safe for 24 hours: a repeat with the same key and body gets the first response (with Idempotent-Replayed: true)',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    },
  };
  nameSchemas(document, errorBodies);
  document.webhooks = webhooks();
  return document as unknown as T;
}

const WEBHOOK_HEADERS: [name: string, description: string, schema: Json][] = [
  ['webhook-id', 'The event id: the same on every attempt and retry (the Standard Webhooks message id); deduplicate on it', { type: 'string' }],
  ['webhook-delivery', 'This delivery (one per event and endpoint), as GET /webhook_endpoints/{id}/deliveries lists it', { type: 'string' }],
  [
    'webhook-timestamp',
    'When this attempt was signed, in Unix seconds; refuse it more than 5 minutes from your clock',
    { type: 'string', pattern: '^[0-9]+$' },
  ],
  [
    'webhook-signature',
    '`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` under the endpoint secret; during a secret rotation two entries, space-separated',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  ],
];

/**
 * The OpenAPI 3.1 webhooks section: the one request the service sends to every registered endpoint, an event
 * of the event log signed as Standard Webhooks has it (docs/webhooks.md, modules/webhooks/webhook-sender.ts).
 */
function webhooks(): Json {
  const examples: Record<string, Example> = WEBHOOK_EXAMPLES;
  return {
    event: {
      post: {
        operationId: 'receiveEvent',
        summary: 'An event, delivered to a webhook endpoint',
        description:
          'One POST per event and endpoint registered for its type (POST /webhook_endpoints), with the event exactly as GET /events shows it. ' +
          'Signed per the Standard Webhooks specification: verify webhook-signature over the bytes received before parsing. `data` carries ids and ' +
          'statuses only, never personal data. Answer 2xx within 10 seconds; 410 Gone disables the endpoint at once; anything else is a failed ' +
          'attempt, tried again 11 more times over about 52 hours. See docs/webhooks.md.',
        tags: ['Webhooks'],
        security: [],
        parameters: WEBHOOK_HEADERS.map(([name, description, schema]) => ({ name, in: 'header', required: true, description, schema })),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' }, examples } },
        },
        responses: {
          '200': { description: 'Received; any 2xx status will do' },
          '410': { description: 'Gone: the endpoint is disabled at once and never sent anything again' },
        },
      },
    },
  };
}
