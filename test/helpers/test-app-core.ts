import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp, buildServices, sftpPolicyOf, type App, type Services } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { ApiKeyService } from '../../src/modules/api-keys/api-key.service.ts';
import type { ApiKeyRole } from '../../src/modules/api-keys/api-key.table.ts';
import type { SftpOptions } from '../../src/modules/edi/sftp-transport.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import type { TestDatabase } from './database-core.ts';

export const TEST_ENCRYPTION_KEY = randomBytes(32);

/**
 * The development switch of the outbound address policy, for tests whose webhook receiver or SFTP server runs
 * in the test process: loopback allowed (never private addresses), and SFTP on any unprivileged port, since the
 * test server listens where the system puts it. createTestApp leaves both as deployed unless a test passes this.
 */
export const DEVELOPMENT_OUTBOUND_ENV: Readonly<Record<string, string>> = { OUTBOUND_ALLOW_LOOPBACK: 'true', SFTP_ALLOWED_PORTS: '22,2222,1024-65535' };

/** The same switch for what the test builds itself (job handlers, the EDI scheduler). */
export const DEVELOPMENT_SFTP: SftpOptions = { policy: sftpPolicyOf(loadConfig({ ...DEVELOPMENT_OUTBOUND_ENV })) };

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is, without JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A client bound to one API key (or none), speaking real HTTP to the test server. */
export class ApiClient {
  readonly baseUrl: string;
  readonly key: string | undefined;
  constructor(baseUrl: string, key: string | undefined) {
    this.baseUrl = baseUrl;
    this.key = key;
  }
  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    const response = await fetch(url, { method, headers: { ...headers, ...options.headers }, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: leave the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }
}

/** The body of a response that must have `status` (200 by default); otherwise throws with what came back. */
export async function ok(response: Promise<{ status: number; body: any; text: string }>, status = 200) {
  const answered = await response;
  if (answered.status !== status) throw new Error(`expected ${status}, got ${answered.status}: ${answered.text}`);
  return answered.body;
}

export interface TestContext {
  app: App;
  /** The services the app serves (job handlers, schedulers and services a test calls directly share them, as in the server). */
  services: Services;
  database: TestDatabase;
  clock: FixedClock;
  baseUrl: string;
  providerId: string;
  /** Admin client of the default provider. */
  admin: ApiClient;
  /** A client without any key. */
  anonymous: ApiClient;
  /** Every log line the server wrote, parsed. */
  logs: string[];
  /** A client with a new key of the given role (of the default provider unless `provider` names another). */
  client(role: ApiKeyRole, options?: { employer?: string; provider?: string }): Promise<ApiClient>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  now?: string;
}

/**
 * A real server on an ephemeral port over `database` (fresh and migrated), which its close destroys. Without
 * vitest (the simulation and the bench import it under plain Node); tests use createTestApp (test-app.ts).
 */
export async function createTestAppOn(database: TestDatabase, options: TestAppOptions = {}): Promise<TestContext> {
  const clock = new FixedClock(options.now ?? '2026-03-02T15:00:00.000Z');
  const config: Config = loadConfig({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info', ...options.env });
  const logs: string[] = [];
  const services = buildServices({ config, db: database.db, clock, encryptionKey: TEST_ENCRYPTION_KEY });
  const app = await buildApp({
    config,
    db: database.db,
    clock,
    encryptionKey: TEST_ENCRYPTION_KEY,
    services,
    logStream: { write: (line) => void logs.push(line) },
  });
  const answered = recordAnswers(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const keys = new ApiKeyService(database.db, clock);
  const adminKey = await keys.createKeyForProvider('test-provider', { role: 'admin' });

  return {
    app,
    services,
    database,
    clock,
    baseUrl,
    providerId: adminKey.provider,
    admin: new ApiClient(baseUrl, adminKey.key),
    anonymous: new ApiClient(baseUrl, undefined),
    logs,
    client: async (role, clientOptions = {}) => {
      const created = await keys.createKeyForProvider(clientOptions.provider ?? 'test-provider', {
        role,
        employer: clientOptions.employer ?? null,
      });
      return new ApiClient(baseUrl, created.key);
    },
    close: async () => {
      const undocumented = undocumentedAnswers(app.swagger() as unknown as OpenApiDocument, answered);
      await app.close();
      await database.destroy();
      // Every status and header a route answered in this file's tests is one its OpenAPI operation lists.
      if (undocumented.length > 0) throw new Error(`Answers the OpenAPI document does not list:\n${undocumented.join('\n')}`);
    },
  };
}

type OpenApiResponse = { $ref?: string; headers?: Record<string, unknown> };
type OpenApiDocument = {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
  components?: { responses?: Record<string, OpenApiResponse> };
};

/** What each route answered: `METHOD /path/{param} status header,header` once per distinct answer. */
function recordAnswers(app: App): Set<string> {
  const answers = new Set<string>();
  app.addHook('onResponse', async (request, reply) => {
    const url = request.routeOptions.url;
    if (url === undefined) return;
    const headers = Object.keys(reply.getHeaders())
      .map((name) => name.toLowerCase())
      .sort()
      .join(',');
    answers.add(`${request.method} ${url.replace(/:(\w+)/g, '{$1}')} ${reply.statusCode} ${headers}`);
  });
  return answers;
}

/** Headers of HTTP itself that an OpenAPI document does not list. */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'connection', 'keep-alive', 'date', 'transfer-encoding']);

export function undocumentedAnswers(document: OpenApiDocument, answers: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const answer of answers) {
    const [method = '', path = '', status = '', headerList = ''] = answer.split(' ');
    const operation = document.paths[path]?.[method.toLowerCase()];
    if (!operation) continue; // not documented on purpose (/healthz, /openapi.json, /docs, HEAD)
    const listed = operation.responses[status];
    const response = listed?.$ref ? document.components?.responses?.[listed.$ref.replace('#/components/responses/', '')] : listed;
    if (!response) {
      problems.push(`${method} ${path} answered ${status}`);
      continue;
    }
    const documented = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
    for (const name of headerList.split(',').filter(Boolean)) {
      if (!TRANSPORT_HEADERS.has(name) && !documented.has(name)) problems.push(`${method} ${path} ${status} sent the header ${name}`);
    }
  }
  return problems;
}
