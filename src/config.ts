import { parseEncryptionKey } from './shared/crypto.ts';
import { isTimeZone } from './shared/dates.ts';
import { DEFAULT_SFTP_PORTS, parsePortList, type PortRanges } from './shared/outbound-address.ts';

/**
 * The process configuration: read once from the environment, validated, frozen. An invalid value stops the
 * start with a message naming the variable (README.md "Configuration").
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly publicBaseUrl: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly rateLimit: { readonly max: number; readonly windowMs: number };
  readonly shutdownTimeoutMs: number;
  /** BENEFITS_ENCRYPTION_KEY, already checked to be a 32-byte key; see resolveEncryptionKey in start/checked-database.ts. */
  readonly encryptionKey: Buffer | undefined;
  /** When the daily sweep runs: 'HH:MM' in `timeZone` (an IANA zone). */
  readonly sweep: { readonly time: string; readonly timeZone: string };
  /** Days events are kept for GET /events (and webhook retries) before the hourly prune deletes them. */
  readonly eventsRetentionDays: number;
  /** Connections made on a tenant's behalf (webhooks, carrier SFTP): docs/decisions.md "Outbound connections". */
  readonly outbound: {
    /** Development only: loopback addresses (127.0.0.0/8, ::1, localhost) are allowed, and http:// webhooks to them. */
    readonly allowLoopback: boolean;
    /** The ports an EDI profile's SFTP server may listen on. */
    readonly sftpAllowedPorts: PortRanges;
  };
  /** How long a job claim holds before another worker (or this one, restarted) takes the job over. */
  readonly jobLockTimeoutMs: number;
  /** Limits on client connections, so that slow or idle clients cannot hold the process's sockets. */
  readonly connections: {
    /** A request's headers and body must have arrived within this; then 408 and the socket is closed. */
    readonly requestTimeoutMs: number;
    /** A request's headers must have arrived within this. */
    readonly headersTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    readonly keepAliveTimeoutMs: number;
    /** Open connections at most; further ones are closed at once. */
    readonly max: number;
  };
  /** GET /metrics (docs/decisions.md "Metrics, readiness and tracing"). */
  readonly metrics: {
    readonly enabled: boolean;
    /** When set, /metrics answers only `Authorization: Bearer <token>`; open to anyone who reaches it otherwise. */
    readonly token: string | undefined;
  };
  /** OpenTelemetry tracing: on when an OTLP endpoint is configured (observability/tracing.ts). */
  readonly tracing: {
    /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT (to which /v1/traces is added); undefined: off. */
    readonly endpoint: string | undefined;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/benefits.db';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every variable the service reads, with its default; printed by `benefits --help`. */
export const CONFIG_VARIABLES: readonly (readonly [name: string, meaning: string, fallback: string])[] = [
  ['PORT', 'HTTP port', '8080'],
  ['HOST', 'address to listen on', '0.0.0.0'],
  ['DATABASE_URL', 'postgres://... or sqlite:/path/file.db', DEFAULT_DATABASE_URL],
  ['PUBLIC_BASE_URL', 'absolute base of next/previous links', "the request's host"],
  ['LOG_LEVEL', LOG_LEVELS.join('|'), 'info'],
  ['RATE_LIMIT_MAX', 'requests per API key, and per client address without a valid key, per window (0 turns the limit off)', '6000'],
  ['RATE_LIMIT_WINDOW_MS', 'length of the rate-limit window in ms', '60000'],
  ['SHUTDOWN_TIMEOUT_MS', 'how long SIGTERM waits for in-flight requests', '10000'],
  ['SWEEP_TIME', 'time of day the daily sweep runs, HH:MM (24-hour) in SWEEP_TIME_ZONE', '02:00'],
  ['SWEEP_TIME_ZONE', 'IANA time zone of SWEEP_TIME and of the day the sweep applies, e.g. America/New_York', 'UTC'],
  ['EVENTS_RETENTION_DAYS', 'days events are kept for GET /events (at least 30)', '30'],
  [
    'OUTBOUND_ALLOW_LOOPBACK',
    'development only: true lets webhooks and SFTP delivery connect to loopback addresses (webhooks over http://); never private ones',
    'false',
  ],
  ['WEBHOOKS_ALLOW_LOOPBACK', 'the former name of OUTBOUND_ALLOW_LOOPBACK, still read (an alias: both set must agree)', 'false'],
  ['SFTP_ALLOWED_PORTS', 'ports an EDI profile may give its SFTP server, comma-separated, ranges as from-to (e.g. 22,2222,10022-10030)', '22,2222'],
  ['JOB_LOCK_TIMEOUT_MS', 'how long a background job stays claimed by a worker that stopped answering before another takes it over', '30000'],
  ['REQUEST_TIMEOUT_MS', "how long a client may take to send a whole request (headers and body) before 408 and the connection's close", '30000'],
  ['HEADERS_TIMEOUT_MS', "how long a client may take to send a request's headers (at most REQUEST_TIMEOUT_MS)", '10000'],
  ['KEEP_ALIVE_TIMEOUT_MS', "how long an idle keep-alive connection stays open (above your load balancer's idle timeout)", '72000'],
  ['MAX_CONNECTIONS', "open client connections at most (keep it well below the process's open-files limit); more are closed at once", '1000'],
  ['HEAP_SEMI_SPACE_MB', 'serve and sweep: V8 young-generation semi-space limit in MB (0: V8 sizes it, up to 64 on a large machine)', '16'],
  [
    'HEAP_GROWING_PERCENT',
    'serve and sweep: how far V8 lets the old generation grow past what survived its last full collection, in % (0: V8 decides, up to 300)',
    '50',
  ],
  ['METRICS_ENABLED', 'true serves Prometheus metrics at GET /metrics; false answers it 404', 'true'],
  ['METRICS_TOKEN', 'when set, GET /metrics requires "Authorization: Bearer <METRICS_TOKEN>" (at least 16 characters)', 'none: /metrics is open'],
  [
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'base URL of an OTLP/HTTP collector (e.g. http://otel-collector:4318): turns tracing on, spans to <URL>/v1/traces',
    'none: tracing off',
  ],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'full OTLP/HTTP traces URL; takes precedence over OTEL_EXPORTER_OTLP_ENDPOINT', 'none'],
  ['OTEL_SERVICE_NAME', 'the service name on exported spans', 'benefits-enrollment-service'],
  [
    'BENEFITS_ENCRYPTION_KEY',
    '32-byte key for personal data at rest: 64 hex characters or base64',
    'SQLite: encryption.key beside the database; PostgreSQL: required',
  ],
];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!/^(postgres|postgresql):\/\//.test(databaseUrl) && !databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  const publicBaseUrl = env.PUBLIC_BASE_URL?.trim() || undefined;
  if (publicBaseUrl !== undefined && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(publicBaseUrl)) {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute http(s) URL, e.g. https://benefits.example.com');
  }
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return Object.freeze({
    port: integerVariable(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    publicBaseUrl: publicBaseUrl?.replace(/\/+$/, ''),
    logLevel: logLevel as Config['logLevel'],
    rateLimit: Object.freeze({
      max: integerVariable(env, 'RATE_LIMIT_MAX', 6000, 0, 10_000_000),
      windowMs: integerVariable(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    }),
    shutdownTimeoutMs: integerVariable(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    encryptionKey: encryptionKeyVariable(env),
    sweep: Object.freeze(sweepVariables(env)),
    eventsRetentionDays: integerVariable(env, 'EVENTS_RETENTION_DAYS', 30, 30, 3650),
    outbound: Object.freeze(outboundVariables(env)),
    jobLockTimeoutMs: integerVariable(env, 'JOB_LOCK_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    connections: Object.freeze(connectionVariables(env)),
    metrics: Object.freeze(metricsVariables(env)),
    tracing: Object.freeze(tracingVariables(env)),
  });
}

/** The heap settings of the long-running commands (src/heap.ts applies them). */
export interface HeapConfig {
  /** The largest semi-space of V8's young generation, in MB; 0 leaves it to V8. */
  readonly semiSpaceMb: number;
  /** How far the old generation may grow past what survived its last full collection, in %; 0 leaves it to V8. */
  readonly growingPercent: number;
}

export function heapConfig(env: NodeJS.ProcessEnv = process.env): HeapConfig {
  return {
    semiSpaceMb: integerVariable(env, 'HEAP_SEMI_SPACE_MB', 16, 0, 1024),
    growingPercent: integerVariable(env, 'HEAP_GROWING_PERCENT', 50, 0, 1000),
  };
}

function connectionVariables(env: NodeJS.ProcessEnv): Config['connections'] {
  const requestTimeoutMs = integerVariable(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  const headersTimeoutMs = integerVariable(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 1000, requestTimeoutMs);
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integerVariable(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000),
    max: integerVariable(env, 'MAX_CONNECTIONS', 1000, 10, 1_000_000),
  };
}

function metricsVariables(env: NodeJS.ProcessEnv): Config['metrics'] {
  const token = env.METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && (token.length < 16 || !/^[\x21-\x7e]+$/.test(token))) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 printable characters without spaces (e.g. openssl rand -hex 24)');
  }
  return { enabled: booleanVariable(env, 'METRICS_ENABLED', true), token };
}

function tracingVariables(env: NodeJS.ProcessEnv): Config['tracing'] {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(value)) throw new ConfigError(`${name} must be an http(s) URL, e.g. http://otel-collector:4318 (got "${value}")`);
    return { endpoint: name === 'OTEL_EXPORTER_OTLP_ENDPOINT' ? `${value.replace(/\/+$/, '')}/v1/traces` : value };
  }
  return { endpoint: undefined };
}

function outboundVariables(env: NodeJS.ProcessEnv): Config['outbound'] {
  const alias = booleanVariable(env, 'WEBHOOKS_ALLOW_LOOPBACK', false);
  const allowLoopback = booleanVariable(env, 'OUTBOUND_ALLOW_LOOPBACK', alias);
  if (env.WEBHOOKS_ALLOW_LOOPBACK?.trim() && allowLoopback !== alias) {
    throw new ConfigError('OUTBOUND_ALLOW_LOOPBACK and WEBHOOKS_ALLOW_LOOPBACK (its former name) disagree: set OUTBOUND_ALLOW_LOOPBACK only');
  }
  const ports = env.SFTP_ALLOWED_PORTS?.trim();
  let sftpAllowedPorts = DEFAULT_SFTP_PORTS;
  if (ports) {
    try {
      sftpAllowedPorts = Object.freeze(parsePortList(ports));
    } catch (error) {
      throw new ConfigError(`SFTP_ALLOWED_PORTS must be TCP ports or ranges, comma-separated, e.g. 22,2222,10022-10030: ${(error as Error).message}`);
    }
  }
  return { allowLoopback, sftpAllowedPorts };
}

function sweepVariables(env: NodeJS.ProcessEnv): { time: string; timeZone: string } {
  const time = env.SWEEP_TIME?.trim() || '02:00';
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) throw new ConfigError(`SWEEP_TIME must be a time of day HH:MM from 00:00 to 23:59 (got "${time}")`);
  const timeZone = env.SWEEP_TIME_ZONE?.trim() || 'UTC';
  if (!isTimeZone(timeZone)) throw new ConfigError(`SWEEP_TIME_ZONE must be an IANA time zone such as UTC or America/Chicago (got "${timeZone}")`);
  return { time, timeZone };
}

function encryptionKeyVariable(env: NodeJS.ProcessEnv): Buffer | undefined {
  const raw = env.BENEFITS_ENCRYPTION_KEY?.trim();
  if (!raw) return undefined;
  try {
    return parseEncryptionKey(raw);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function booleanVariable(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${env[name]?.trim() ?? ''}")`);
}

function integerVariable(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}
