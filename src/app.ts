import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/schema.ts';
import { registerAuthentication } from './http/auth.ts';
import { registerErrorHandler } from './http/errors.ts';
import { registerHealthRoutes, standardReadinessChecks, type ReadinessCheck } from './http/health.ts';
import { countRequests, logCallers, registerMetricsRoute, traceRequests } from './http/observability.ts';
import { registerFirstHooks, refuseUnreadableBodies, registerRateLimit, wakeJobsAfterWrites } from './http/hooks.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { installJsonParser } from './http/json-body.ts';
import { registerOpenApi } from './http/openapi.ts';
import { Paginator } from './http/pagination.ts';
import { acceptEmptyObjectBodies, refuseUndeclaredQueryParameters } from './http/routing.ts';
import { serverOptions, type LogStream } from './http/server-options.ts';
import { installValidators } from './http/validators.ts';
import type { Wakeable } from './jobs/job-wake.ts';
import { registerApiKeyRoutes } from './modules/api-keys/api-key.routes.ts';
import { registerBeneficiaryRoutes } from './modules/beneficiaries/beneficiary.routes.ts';
import { registerBenefitChangeRoutes } from './modules/benefit-changes/benefit-change.routes.ts';
import { registerBusinessUnitRoutes } from './modules/business-units/business-unit.routes.ts';
import { registerCarrierRoutes } from './modules/carriers/carrier.routes.ts';
import { registerCobraEventRoutes } from './modules/cobra-events/cobra-event.routes.ts';
import { registerCoverageRoutes } from './modules/coverage/coverage.routes.ts';
import { registerDependentRoutes } from './modules/dependents/dependent.routes.ts';
import { registerDocumentRoutes } from './modules/documents/document.routes.ts';
import { registerEdiRoutes } from './modules/edi/edi.routes.ts';
import { registerEmployerRoutes } from './modules/employers/employer.routes.ts';
import { registerPayScheduleRoutes } from './modules/payroll/pay-schedule.routes.ts';
import { registerPayrollDeductionRoutes } from './modules/payroll/payroll-deduction.routes.ts';
import { registerEnrollmentRoutes } from './modules/enrollments/enrollment.routes.ts';
import { registerEventRoutes } from './modules/events/event.routes.ts';
import { registerGroupRoutes } from './modules/groups/group.routes.ts';
import { registerMemberIdCardRoutes } from './modules/member-id-cards/member-id-card.routes.ts';
import { registerMemberRoutes } from './modules/members/member.routes.ts';
import { registerNotificationRoutes } from './modules/notifications/notification.routes.ts';
import { registerAlertRoutes } from './modules/alerts/alert.routes.ts';
import { registerReconciliationRoutes } from './modules/reconciliation/reconciliation.routes.ts';
import { registerCarrierFileRoutes } from './modules/carrier-files/carrier-file.routes.ts';
import { registerCensusImportRoutes } from './modules/census-imports/census-import.routes.ts';
import { registerPremiumBillRoutes } from './modules/premium-bills/premium-bill.routes.ts';
import { registerOpenEnrollmentWindowRoutes } from './modules/open-enrollment/open-enrollment-window.routes.ts';
import { registerPayRateRoutes } from './modules/pay-rates/pay-rate.routes.ts';
import { registerPlanConfigurationRoutes } from './modules/plan-configurations/plan-configuration.routes.ts';
import { registerPlanRoutes } from './modules/plans/plan.routes.ts';
import { registerSubclassRoutes } from './modules/subclasses/subclass.routes.ts';
import { registerWebhookEndpointRoutes } from './modules/webhooks/webhook-endpoint.routes.ts';
import { buildServices, type Services } from './services.ts';
import { Metrics } from './observability/metrics.ts';
import { SERVICE_VERSION } from './observability/version.ts';
import type { Clock } from './shared/clock.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus metrics (its own registry); the server's job handlers and sweep report to it too. */
    metrics: Metrics;
  }
}

// Re-exported for the callers of the app (tests, the bench): the compositions live in services.ts and background.ts.
export { buildChangeCommit, buildDailySweep, buildEventLog } from './background.ts';
export { BODY_LIMIT_BYTES, type LogStream } from './http/server-options.ts';
export { buildJobHandlers, buildServices, sftpPolicyOf, type Services } from './services.ts';

export interface AppDependencies {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  /** 32-byte key for personal data at rest (SSNs); what the services are built with when not given. */
  encryptionKey: Buffer;
  /** The process's services (the server's, shared with its job handlers and schedulers); built here when absent. */
  services?: Services;
  /** Where log lines go (stdout when absent); tests pass a stream to read them. */
  logStream?: LogStream;
  version?: string;
  /** The job worker, woken after a write request that enqueued jobs (it polls anyway; absent in tests). */
  worker?: Wakeable;
  /** The process's metrics (the server's, with process metrics and the pool's state); a plain set is made when absent. */
  metrics?: Metrics;
  /** Checks /readyz runs besides the standard ones (http/health.ts); one with a standard check's name replaces it. */
  readinessChecks?: readonly ReadinessCheck[];
}

export type App = FastifyInstance;

/** The HTTP app: Fastify's plumbing (src/http/), then every module's routes over the services. */
export async function buildApp(deps: AppDependencies): Promise<App> {
  const { config, db, clock, logStream, worker, version = SERVICE_VERSION } = deps;
  const services = deps.services ?? buildServices({ config, db, clock, encryptionKey: deps.encryptionKey });
  const app = Fastify(serverOptions(config, logStream)).withTypeProvider<TypeBoxTypeProvider>();
  const metrics = deps.metrics ?? new Metrics({ db, clock, version });
  app.decorate('metrics', metrics);

  app.server.maxConnections = config.connections.max;
  installValidators(app);
  installJsonParser(app);
  registerErrorHandler(app);
  registerFirstHooks(app);
  countRequests(app, metrics);
  if (config.tracing.endpoint !== undefined) traceRequests(app, version);
  refuseUndeclaredQueryParameters(app);
  acceptEmptyObjectBodies(app);
  await registerOpenApi(app, version);

  const { keyChanges } = services;
  if (keyChanges) {
    await keyChanges.start(app.log);
    app.addHook('onClose', async () => keyChanges.close());
  }
  registerAuthentication(app, services.apiKeys);
  logCallers(app);
  await registerRateLimit(app, config.rateLimit);
  refuseUnreadableBodies(app);
  registerIdempotency(app, db, clock, services.encrypter);
  wakeJobsAfterWrites(app, worker);

  registerHealthRoutes(app, db, version, readinessChecks(standardReadinessChecks(db, services.encrypter), deps.readinessChecks ?? []));
  registerMetricsRoute(app, metrics, config.metrics);

  registerRoutes(app, services, new Paginator(await loadSecret(db, 'cursor_secret'), config.publicBaseUrl));
  return app;
}

/** Every module's routes, each given exactly the services it calls. */
function registerRoutes(app: FastifyInstance, services: Services, pages: Paginator): void {
  registerApiKeyRoutes(app, { apiKeys: services.apiKeys, pages });
  registerEmployerRoutes(app, { employers: services.employers, pages });
  registerCarrierRoutes(app, { carriers: services.carriers, pages });
  registerGroupRoutes(app, { groups: services.groups, pages });
  registerReconciliationRoutes(app, { reconciliation: services.reconciliation });
  registerCarrierFileRoutes(app, { carrierFiles: services.carrierFiles, resolutions: services.carrierFileResolutions });
  registerPremiumBillRoutes(app, { premiumBills: services.premiumBills, pages });
  registerBusinessUnitRoutes(app, { businessUnits: services.businessUnits, pages });
  registerSubclassRoutes(app, { subclasses: services.subclasses, pages });
  registerNotificationRoutes(app, { notifications: services.notifications, pages });
  registerAlertRoutes(app, { alerts: services.alerts, pages });
  registerEventRoutes(app, { events: services.events, pages });
  registerMemberRoutes(app, { members: services.members, pages });
  registerCensusImportRoutes(app, { censusImports: services.censusImports, pages });
  registerPlanRoutes(app, { plans: services.plans, pages });
  registerPlanConfigurationRoutes(app, { planConfigurations: services.planConfigurations, pages });
  registerDependentRoutes(app, { dependents: services.dependents, pages });
  registerBeneficiaryRoutes(app, { beneficiaries: services.beneficiaries, pages });
  registerPayRateRoutes(app, { payRates: services.payRates, pages });
  registerPayScheduleRoutes(app, { paySchedules: services.paySchedules, pages });
  registerPayrollDeductionRoutes(app, { deductions: services.payrollDeductions, runs: services.payrollRuns, pages });
  registerDocumentRoutes(app, { documents: services.documents, pages });
  registerMemberIdCardRoutes(app, { memberIdCards: services.memberIdCards, pages });
  registerBenefitChangeRoutes(app, { benefitChanges: services.benefitChanges, pages });
  registerCobraEventRoutes(app, { cobraEvents: services.cobraEvents, pages });
  registerEnrollmentRoutes(app, { enrollments: services.enrollments, pages });
  registerCoverageRoutes(app, { coverage: services.coverage });
  registerOpenEnrollmentWindowRoutes(app, { windows: services.windows, pages });
  registerWebhookEndpointRoutes(app, { webhooks: services.webhooks, pages });
  registerEdiRoutes(app, { profiles: services.ediProfiles, files: services.ediFiles, acknowledgements: services.ediAcknowledgements, pages });
}

/** The standard checks, each replaced by a given one of its name, then the other given ones. */
function readinessChecks(standard: readonly ReadinessCheck[], given: readonly ReadinessCheck[]): ReadinessCheck[] {
  const names = new Set(given.map((check) => check.name));
  return [...standard.filter((check) => !names.has(check.name)), ...given];
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
