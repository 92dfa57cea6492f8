import { randomBytes, randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/schema.ts';
import { registerAuthentication } from './http/auth.ts';
import { registerErrorHandler, sendError } from './http/errors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { installJsonParser, refuseUnreadableBody } from './http/json-body.ts';
import { installValidators } from './http/validators.ts';
import { assertValidHost, installUnknownRoutes, refuseUndeclaredQueryParameters } from './http/routing.ts';
import { API_VERSION, registerOpenApi } from './http/openapi.ts';
import { Paginator } from './http/pagination.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { KeyChangeNotices } from './modules/api-keys/key-change-notices.ts';
import { registerApiKeyRoutes } from './modules/api-keys/api-key.routes.ts';
import { registerBusinessUnitRoutes } from './modules/business-units/business-unit.routes.ts';
import { BusinessUnitService } from './modules/business-units/business-unit.service.ts';
import { registerCarrierRoutes } from './modules/carriers/carrier.routes.ts';
import { CarrierService } from './modules/carriers/carrier.service.ts';
import { registerEmployerRoutes } from './modules/employers/employer.routes.ts';
import { EmployerService } from './modules/employers/employer.service.ts';
import { registerGroupRoutes } from './modules/groups/group.routes.ts';
import { GroupService } from './modules/groups/group.service.ts';
import { registerSubclassRoutes } from './modules/subclasses/subclass.routes.ts';
import { SubclassService } from './modules/subclasses/subclass.service.ts';
import { registerMemberRoutes } from './modules/members/member.routes.ts';
import { MemberService } from './modules/members/member.service.ts';
import { registerNotificationRoutes } from './modules/notifications/notification.routes.ts';
import { NotificationService, Notifier } from './modules/notifications/notification.service.ts';
import { Encrypter } from './shared/crypto.ts';
import { SsnDigester } from './shared/ssn.ts';
import { registerPlanRoutes } from './modules/plans/plan.routes.ts';
import { PlanService } from './modules/plans/plan.service.ts';
import { registerPlanConfigurationRoutes } from './modules/plan-configurations/plan-configuration.routes.ts';
import { PlanConfigurationService } from './modules/plan-configurations/plan-configuration.service.ts';
import { registerDependentRoutes } from './modules/dependents/dependent.routes.ts';
import { DependentService } from './modules/dependents/dependent.service.ts';
import { registerBeneficiaryRoutes } from './modules/beneficiaries/beneficiary.routes.ts';
import { BeneficiaryService } from './modules/beneficiaries/beneficiary.service.ts';
import { registerPayRateRoutes } from './modules/pay-rates/pay-rate.routes.ts';
import { PayRateService } from './modules/pay-rates/pay-rate.service.ts';
import { registerDocumentRoutes } from './modules/documents/document.routes.ts';
import { DocumentService } from './modules/documents/document.service.ts';
import { registerMemberIdCardRoutes } from './modules/member-id-cards/member-id-card.routes.ts';
import { MemberIdCardService } from './modules/member-id-cards/member-id-card.service.ts';
import { registerBenefitChangeRoutes } from './modules/benefit-changes/benefit-change.routes.ts';
import { BenefitChangeService } from './modules/benefit-changes/benefit-change.service.ts';
import { registerEnrollmentRoutes } from './modules/enrollments/enrollment.routes.ts';
import { registerCoverageRoutes } from './modules/coverage/coverage.routes.ts';
import { MemberCoverageService } from './modules/coverage/member-coverage.service.ts';
import { EnrollmentService } from './modules/enrollments/enrollment.service.ts';
import { ChangeCommit } from './modules/change-commit/change-commit.ts';
import { registerCobraEventRoutes } from './modules/cobra-events/cobra-event.routes.ts';
import { CobraEventService } from './modules/cobra-events/cobra-event.service.ts';
import { EdiAcknowledgements } from './modules/edi/edi-acknowledgement.service.ts';
import { ediJobHandlers } from './modules/edi/edi-delivery.job.ts';
import type { SftpConnectionPolicy, SftpOptions } from './modules/edi/sftp-transport.ts';
import { EdiFileService } from './modules/edi/edi-file.service.ts';
import { EdiProfileService } from './modules/edi/edi-profile.service.ts';
import { registerEdiRoutes } from './modules/edi/edi.routes.ts';
import { webhookJobHandlers } from './modules/webhooks/webhook-delivery.job.ts';
import { registerWebhookEndpointRoutes } from './modules/webhooks/webhook-endpoint.routes.ts';
import { WebhookEndpointService } from './modules/webhooks/webhook-endpoint.service.ts';
import type { WebhookSender } from './modules/webhooks/webhook-sender.ts';
import { registerEventRoutes } from './modules/events/event.routes.ts';
import { EventService } from './modules/events/event.service.ts';
import { jobHandlers } from './jobs/handlers.ts';
import { jobsEnqueuedSoFar, type Wakeable } from './jobs/job-wake.ts';
import type { JobHandler } from './jobs/job-worker.ts';
import type { CarrierAdapter } from './modules/carrier-connections/carrier-adapter.ts';
import { carrierJobHandlers } from './modules/carrier-connections/carrier-sync.job.ts';
import { openEnrollmentJobHandlers } from './modules/open-enrollment/passive-rollover.job.ts';
import { registerOpenEnrollmentWindowRoutes } from './modules/open-enrollment/open-enrollment-window.routes.ts';
import { OpenEnrollmentWindowService } from './modules/open-enrollment/open-enrollment-window.service.ts';
import { AppError } from './shared/errors.ts';
import { isWellFormedId, newId } from './shared/ids.ts';
import type { Clock } from './shared/clock.ts';
import { buildEventLog, buildOpenEnrollment, buildTerminations, type BackgroundDependencies } from './background.ts';

// The background compositions live in background.ts (the daily sweep loads only that); re-exported for callers of the app.
export { buildDailySweep, buildEventLog } from './background.ts';

export interface LogStream {
  write(line: string): void;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDependencies {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  /** 32-byte key for personal data at rest (SSNs). */
  encryptionKey: Buffer;
  /** Where log lines go (stdout when absent); tests pass a stream to read them. */
  logStream?: LogStream;
  version?: string;
  /** The job worker, for services to wake right after committing a job (it polls anyway; absent in tests). */
  jobs?: { wake(): void };
}

export type App = FastifyInstance;

/** The composition root: wires HTTP plumbing, then every module with exactly the services it uses. */
export async function buildApp({ config, db, clock, encryptionKey, logStream, jobs, version = '0.1.0' }: AppDependencies): Promise<App> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Request bodies are never logged; these paths guard against a header or field slipping into a line.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.ssn', '*.key'], censor: '[redacted]' },
      ...(logStream ? { stream: logStream } : {}),
    },
    bodyLimit: BODY_LIMIT_BYTES,
    // Slow clients (a byte every few seconds) get a 408 and lose the socket instead of holding it forever.
    requestTimeout: config.connections.requestTimeoutMs,
    keepAliveTimeout: config.connections.keepAliveTimeoutMs,
    // A client that stops reading an answer: its socket is closed after this long without progress.
    connectionTimeout: Math.max(2 * config.connections.requestTimeoutMs, 120_000),
    // Node checks the request and header timeouts on this interval (30 s by default, too coarse for them).
    http: { headersTimeout: config.connections.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      // randomUUID draws from a cached entropy pool: far cheaper per request than newId's randomBytes.
      return typeof given === 'string' && given.length <= 64 && isWellFormedId(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: (_error, request, reply) => {
      void reply.header('x-request-id', request.id).header('api-version', API_VERSION);
      void sendError(request, reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0] ?? '/'}.`));
    },
    clientErrorHandler: (error, socket) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const requestId = newId('request');
      const timedOut = code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const message = timedOut ? 'The request did not arrive in time.' : 'The request could not be parsed as HTTP (headers too large or malformed).';
      const body = JSON.stringify({ type: 'invalid_request', message, request_id: requestId });
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nAPI-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.maxConnections = config.connections.max;
  installValidators(app);
  installJsonParser(app);
  registerErrorHandler(app);
  const refuseUnknownRoute = installUnknownRoutes(app);
  refuseUndeclaredQueryParameters(app);

  // A request refused before its body has all arrived (no key, unknown path, a body it may not send) is
  // answered and its connection closed, rather than kept alive to read and discard megabytes nobody asked for
  // (and, for a client trickling them, to answer a second time with the request timeout's 408).
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.complete) void reply.header('connection', 'close');
    return payload;
  });

  // The first hook: what needs no key and no body is answered here, before either is looked at.
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id).header('api-version', API_VERSION);
    assertValidHost(request);
    refuseUnknownRoute(request);
    const requested = request.headers['api-version'];
    if (requested !== undefined && requested !== API_VERSION) {
      throw new AppError('invalid_request', `Unknown API-Version "${String(requested)}". This server speaks ${API_VERSION}.`);
    }
  });

  await registerOpenApi(app, version, { rateLimited: config.rateLimit.max > 0 });

  const onSqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // On PostgreSQL, verified keys are cached while a connection of its own hears every change to api_keys.
  const keyChanges = onSqlite ? undefined : new KeyChangeNotices(config.databaseUrl, app.log);
  if (keyChanges) {
    await keyChanges.start();
    app.addHook('onClose', async () => keyChanges.close());
  }
  const apiKeys = new ApiKeyService(db, clock, onSqlite ? { cacheVerifiedKeys: true } : { keyChanges });
  registerAuthentication(app, apiKeys);
  if (config.rateLimit.max > 0) {
    // Between authentication's two steps: requests with a valid key count against the key, all others
    // (no key, an unknown or revoked one) against the client's address, before they are refused.
    await app.register(rateLimit, {
      global: true,
      hook: 'onRequest',
      max: config.rateLimit.max,
      timeWindow: config.rateLimit.windowMs,
      keyGenerator: (request) => request.auth?.apiKeyId ?? `address:${request.ip}`,
      errorResponseBuilder: (request, context) =>
        new AppError(
          'throttled',
          `Too many requests ${request.auth ? 'for this API key' : 'without a valid API key from this address'}; retry in ${Math.ceil(context.ttl / 1000)} seconds.`,
        ),
    });
  }
  // After authentication's refusal (preParsing, registered above): a caller without a key learns that first.
  app.addHook('preParsing', async (request) => {
    refuseUnreadableBody(request);
  });
  const encrypter = new Encrypter(encryptionKey);
  registerIdempotency(app, db, clock, encrypter);
  wakeJobsAfterWrites(app, jobs);

  app.get('/healthz', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(db);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  const pages = new Paginator(await loadSecret(db, 'cursor_secret'), config.publicBaseUrl);
  // Every change below records its events here, in its own transaction.
  const events = buildEventLog({ clock });
  registerApiKeyRoutes(app, { apiKeys, pages });
  registerEmployerRoutes(app, { employers: new EmployerService(db, clock, events), pages });
  registerCarrierRoutes(app, { carriers: new CarrierService(db, clock, events), pages });
  registerGroupRoutes(app, { groups: new GroupService(db, clock, events), pages });
  registerBusinessUnitRoutes(app, { businessUnits: new BusinessUnitService(db, clock, events), pages });
  registerSubclassRoutes(app, { subclasses: new SubclassService(db, clock, events), pages });

  const notifier = new Notifier(clock, events);
  registerNotificationRoutes(app, { notifications: new NotificationService(db), pages });
  registerEventRoutes(app, { events: new EventService(db), pages });
  registerMemberRoutes(app, {
    members: new MemberService(db, clock, encrypter, new SsnDigester(encryptionKey), notifier, events, buildTerminations(db, clock, events), jobs),
    pages,
  });
  registerPlanRoutes(app, { plans: new PlanService(db, clock, events), pages });
  registerPlanConfigurationRoutes(app, { planConfigurations: new PlanConfigurationService(db, clock, events), pages });
  registerDependentRoutes(app, { dependents: new DependentService(db, clock, events, encrypter), pages });
  registerBeneficiaryRoutes(app, { beneficiaries: new BeneficiaryService(db, clock, events), pages });
  registerPayRateRoutes(app, { payRates: new PayRateService(db, clock, events), pages });
  registerDocumentRoutes(app, { documents: new DocumentService(db, clock, events), pages });
  registerMemberIdCardRoutes(app, { memberIdCards: new MemberIdCardService(db, clock, events), pages });
  const benefitChanges = new BenefitChangeService(db, clock, events);
  registerBenefitChangeRoutes(app, { benefitChanges, pages });
  const cobraEvents = new CobraEventService(db, clock);
  registerCobraEventRoutes(app, { cobraEvents, pages });
  const enrollments = new EnrollmentService({
    db,
    clock,
    commit: new ChangeCommit({ clock, events, notifier }),
    benefitChanges,
    qualifyingEvents: cobraEvents,
    jobs,
  });
  registerEnrollmentRoutes(app, { enrollments, pages });
  registerCoverageRoutes(app, { coverage: new MemberCoverageService(db, clock) });
  registerOpenEnrollmentWindowRoutes(app, { windows: new OpenEnrollmentWindowService(db, clock, notifier, events, enrollments), pages });
  registerWebhookEndpointRoutes(app, {
    webhooks: new WebhookEndpointService(db, clock, encrypter, events, jobs, { allowLoopback: config.outbound.allowLoopback }),
    pages,
  });
  const ediFiles = new EdiFileService(db, clock, encrypter, encryptionKey, events, jobs);
  registerEdiRoutes(app, {
    profiles: new EdiProfileService(db, clock, encrypter, events, sftpPolicyOf(config)),
    files: ediFiles,
    acknowledgements: new EdiAcknowledgements(db, clock, events, ediFiles),
    pages,
  });

  return app;
}

/** Where carrier SFTP may connect, from the configuration (docs/decisions.md "Outbound connections"). */
export function sftpPolicyOf(config: Config): SftpConnectionPolicy {
  return { allowLoopback: config.outbound.allowLoopback, allowedPorts: config.outbound.sftpAllowedPorts };
}

/** What webhook delivery jobs need: the key the signing secrets are encrypted with, and the HTTP sender. */
export interface WebhookJobSettings {
  encryptionKey: Buffer;
  sender: WebhookSender;
}

/**
 * Every durable job's handler, for the server's worker (and tests that run jobs). Webhook deliveries are
 * handled when `webhooks` is given, EDI file uploads when `encryptionKey` is (the server always gives both),
 * connecting where `sftp.policy` allows (production's policy when absent: public addresses, ports 22 and 2222).
 */
export function buildJobHandlers(
  deps: BackgroundDependencies & { adapter: CarrierAdapter; webhooks?: WebhookJobSettings; encryptionKey?: Buffer; sftp?: SftpOptions },
): Record<string, JobHandler> {
  const { db, clock, jobs, webhooks, encryptionKey, sftp } = deps;
  const events = buildEventLog(deps);
  const edi = encryptionKey ? { key: encryptionKey, encrypter: new Encrypter(encryptionKey) } : undefined;
  return jobHandlers([
    carrierJobHandlers({ db, clock, events, adapter: deps.adapter }),
    openEnrollmentJobHandlers(buildOpenEnrollment({ ...deps, events }).windows),
    webhooks ? webhookJobHandlers({ db, clock, jobs, events, encrypter: new Encrypter(webhooks.encryptionKey), sender: webhooks.sender }) : {},
    edi
      ? ediJobHandlers({
          db,
          clock,
          events,
          encrypter: edi.encrypter,
          files: new EdiFileService(db, clock, edi.encrypter, edi.key, events, jobs),
          ...(sftp ? { sftp } : {}),
        })
      : {},
  ]);
}

/**
 * The HTTP side of the one wake policy (jobs/job-wake.ts): a write request that enqueued jobs (its own, or
 * webhook deliveries of its events) wakes the worker once it has answered, its transaction committed, so that
 * they run at once instead of at the next poll. Only such requests wake it: a claim per write would cost the
 * busiest write paths a transaction each for nothing.
 */
function wakeJobsAfterWrites(app: FastifyInstance, jobs: Wakeable | undefined): void {
  if (!jobs) return;
  // Compared with the count when the request began: jobs enqueued by this request, or by one that answered
  // meanwhile, wake the worker after this answer (so one committed after another's wake is not left waiting).
  const atStart = new WeakMap<object, number>();
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') atStart.set(request, jobsEnqueuedSoFar());
  });
  app.addHook('onResponse', async (request) => {
    const before = atStart.get(request);
    if (before !== undefined && jobsEnqueuedSoFar() > before) jobs.wake();
  });
}

/** A random secret kept in the database so that every process of the deployment shares it. */
async function loadSecret(db: Kysely<Database>, key: string): Promise<Buffer> {
  await db
    .insertInto('settings')
    .values({ key, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}
