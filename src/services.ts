/**
 * The composition root: every service of the process, built once, each with exactly the collaborators it uses
 * (STYLE habit 1). The server shares one set between its routes (`buildApp`), its job handlers
 * (`buildJobHandlers`), its daily sweep and its EDI scheduler; tests build one per test app. No Fastify and no
 * route here: the HTTP app (`app.ts`) only registers routes over these. The core that work without a request
 * needs is built by `background.ts`, so that `benefits sweep` loads that alone.
 */
import { SqliteAdapter } from 'kysely';
import { buildBackgroundServices, type BackgroundDependencies, type BackgroundServices } from './background.ts';
import type { Config } from './config.ts';
import { jobHandlers } from './jobs/handlers.ts';
import type { JobHandler } from './jobs/job-worker.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { KeyChangeNotices } from './modules/api-keys/key-change-notices.ts';
import { BeneficiaryService } from './modules/beneficiaries/beneficiary.service.ts';
import { BusinessUnitService } from './modules/business-units/business-unit.service.ts';
import type { CarrierAdapter } from './modules/carrier-connections/carrier-adapter.ts';
import { carrierJobHandlers } from './modules/carrier-connections/carrier-sync.job.ts';
import { CarrierService } from './modules/carriers/carrier.service.ts';
import { MemberCoverageService } from './modules/coverage/member-coverage.service.ts';
import { DependentService } from './modules/dependents/dependent.service.ts';
import { DocumentService } from './modules/documents/document.service.ts';
import { EdiAcknowledgements } from './modules/edi/edi-acknowledgement.service.ts';
import { ediJobHandlers } from './modules/edi/edi-delivery.job.ts';
import { EdiFileService } from './modules/edi/edi-file.service.ts';
import { EdiProfileService } from './modules/edi/edi-profile.service.ts';
import type { SftpConnectionPolicy, SftpOptions } from './modules/edi/sftp-transport.ts';
import { EmployerService } from './modules/employers/employer.service.ts';
import { PayScheduleService } from './modules/payroll/pay-schedule.service.ts';
import { PayrollDeductionService } from './modules/payroll/payroll-deduction.service.ts';
import { PayrollRunService } from './modules/payroll/payroll-run.service.ts';
import { EventService } from './modules/events/event.service.ts';
import { GroupService } from './modules/groups/group.service.ts';
import { MemberIdCardService } from './modules/member-id-cards/member-id-card.service.ts';
import { MemberService } from './modules/members/member.service.ts';
import { NotificationService } from './modules/notifications/notification.service.ts';
import { AlertService } from './modules/alerts/alert.service.ts';
import { ReconciliationService } from './modules/reconciliation/reconciliation.service.ts';
import { PremiumBillService } from './modules/premium-bills/premium-bill.service.ts';
import { CarrierFileService } from './modules/carrier-files/carrier-file.service.ts';
import { CarrierFileResolutions } from './modules/carrier-files/carrier-file-resolution.service.ts';
import { CoverageChangeRecorder } from './modules/coverage/coverage-change-recorder.ts';
import { CensusApply } from './modules/census-imports/census-apply.ts';
import { CensusCheck } from './modules/census-imports/census-check.ts';
import { censusImportJobHandlers } from './modules/census-imports/census-import.job.ts';
import { CensusImportService } from './modules/census-imports/census-import.service.ts';
import { openEnrollmentJobHandlers } from './modules/open-enrollment/passive-rollover.job.ts';
import { PayRateService } from './modules/pay-rates/pay-rate.service.ts';
import { PlanConfigurationService } from './modules/plan-configurations/plan-configuration.service.ts';
import { PlanService } from './modules/plans/plan.service.ts';
import { SubclassService } from './modules/subclasses/subclass.service.ts';
import type { DeliveryObserver } from './observability/delivery-observer.ts';
import { webhookJobHandlers } from './modules/webhooks/webhook-delivery.job.ts';
import { WebhookEndpointService } from './modules/webhooks/webhook-endpoint.service.ts';
import type { WebhookSender } from './modules/webhooks/webhook-sender.ts';
import { Encrypter } from './shared/crypto.ts';
import { SsnDigester } from './shared/ssn.ts';

export interface ServiceDependencies extends BackgroundDependencies {
  config: Config;
  /** 32-byte key for personal data at rest (SSNs, SFTP and webhook secrets, stored 834s). */
  encryptionKey: Buffer;
}

export interface Services extends BackgroundServices {
  encrypter: Encrypter;
  apiKeys: ApiKeyService;
  /** On PostgreSQL, what keeps verified API keys cacheable; started and closed with the HTTP app (`buildApp`). */
  keyChanges: KeyChangeNotices | undefined;
  employers: EmployerService;
  carriers: CarrierService;
  groups: GroupService;
  businessUnits: BusinessUnitService;
  subclasses: SubclassService;
  notifications: NotificationService;
  alerts: AlertService;
  reconciliation: ReconciliationService;
  carrierFiles: CarrierFileService;
  premiumBills: PremiumBillService;
  carrierFileResolutions: CarrierFileResolutions;
  censusImports: CensusImportService;
  /** The dry run of census imports (its job's work). */
  censusCheck: CensusCheck;
  events: EventService;
  members: MemberService;
  plans: PlanService;
  planConfigurations: PlanConfigurationService;
  dependents: DependentService;
  beneficiaries: BeneficiaryService;
  payRates: PayRateService;
  paySchedules: PayScheduleService;
  payrollDeductions: PayrollDeductionService;
  payrollRuns: PayrollRunService;
  documents: DocumentService;
  memberIdCards: MemberIdCardService;
  coverage: MemberCoverageService;
  webhooks: WebhookEndpointService;
  ediProfiles: EdiProfileService;
  ediFiles: EdiFileService;
  ediAcknowledgements: EdiAcknowledgements;
}

/** Every service, once. */
export function buildServices(deps: ServiceDependencies): Services {
  const { config, encryptionKey } = deps;
  const background = buildBackgroundServices(deps);
  const { db, clock, changes } = background;
  const encrypter = new Encrypter(encryptionKey);
  // Verified keys are cached where another process's change is seen at once: SQLite's data_version, PostgreSQL's notices.
  const onSqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const keyChanges = onSqlite ? undefined : new KeyChangeNotices(config.databaseUrl);
  const ediFiles = new EdiFileService({ db, clock, encrypter, encryptionKey, changes });
  const members = new MemberService({
    db,
    clock,
    encrypter,
    ssnDigester: new SsnDigester(encryptionKey),
    changes,
    terminations: background.terminations,
    reinstatement: background.enrollments,
    eligibility: background.eligibility,
  });
  const dependents = new DependentService({ db, clock, changes, encrypter, relationshipEnds: background.relationshipEnds });
  // A resend tells the carrier again through the one recorder of coverage changes.
  const censusCheck = new CensusCheck({ db, clock, encrypter, ssnDigester: new SsnDigester(encryptionKey) });
  // A census import applies its rows through the same member and dependent writes as the API's.
  const censusApply = new CensusApply({
    db,
    clock,
    encrypter,
    people: {
      createMemberIn: members.createMemberIn.bind(members),
      updateMemberIn: members.updateMemberIn.bind(members),
      createDependentIn: dependents.createDependentIn.bind(dependents),
      updateDependentIn: dependents.updateDependentIn.bind(dependents),
    },
  });
  const retelling = new CoverageChangeRecorder({ benefitChanges: background.benefitChanges, qualifyingEvents: background.cobraEvents, commit: changes });
  return {
    ...background,
    encrypter,
    apiKeys: new ApiKeyService(db, clock, keyChanges ? { changes, keyChanges } : { changes, cacheVerifiedKeys: true }),
    keyChanges,
    employers: new EmployerService(db, clock, changes),
    carriers: new CarrierService(db, clock, changes),
    groups: new GroupService(db, clock, changes),
    businessUnits: new BusinessUnitService(db, clock, changes),
    subclasses: new SubclassService(db, clock, changes),
    notifications: new NotificationService(db),
    alerts: new AlertService(db),
    reconciliation: new ReconciliationService(db, clock),
    carrierFiles: new CarrierFileService({ db, clock, ssnDigester: new SsnDigester(encryptionKey), changes }),
    premiumBills: new PremiumBillService({ db, clock, ssnDigester: new SsnDigester(encryptionKey) }),
    carrierFileResolutions: new CarrierFileResolutions({
      db,
      clock,
      changes,
      retelling,
      people: { updateMemberIn: members.updateMemberIn.bind(members), updateDependentIn: dependents.updateDependentIn.bind(dependents) },
    }),
    censusImports: new CensusImportService({ db, clock, encrypter, check: censusCheck, apply: censusApply }),
    censusCheck,
    events: new EventService(db),
    members,
    plans: new PlanService(db, clock, changes),
    planConfigurations: new PlanConfigurationService(db, clock, changes),
    dependents,
    beneficiaries: new BeneficiaryService(db, clock, changes),
    payRates: new PayRateService(db, clock, changes),
    paySchedules: new PayScheduleService(db, clock),
    payrollDeductions: new PayrollDeductionService(db),
    payrollRuns: new PayrollRunService(db, clock),
    documents: new DocumentService(db, clock, changes),
    memberIdCards: new MemberIdCardService(db, clock, changes),
    coverage: new MemberCoverageService(db, clock),
    webhooks: new WebhookEndpointService({ db, clock, encrypter, changes, allowLoopback: config.outbound.allowLoopback }),
    ediProfiles: new EdiProfileService({ db, clock, encrypter, changes, sftpPolicy: sftpPolicyOf(config) }),
    ediFiles,
    ediAcknowledgements: new EdiAcknowledgements({ db, clock, changes, files: ediFiles }),
  };
}

/** Where carrier SFTP may connect, from the configuration (docs/decisions.md "Outbound connections"). */
export function sftpPolicyOf(config: Config): SftpConnectionPolicy {
  return { allowLoopback: config.outbound.allowLoopback, allowedPorts: config.outbound.sftpAllowedPorts };
}

/** What the job handlers need besides the services; each optional kind is handled only when its setting is given. */
export interface JobSettings {
  /** Hands benefit changes of `api` groups to the carrier. */
  adapter: CarrierAdapter;
  /** Webhook deliveries: the HTTP sender. */
  webhooks?: WebhookSender;
  /** EDI file uploads: where SFTP may connect (production's policy by default: public addresses, ports 22 and 2222) and its timeouts. */
  edi?: SftpOptions;
  /** Told of every webhook and EDI delivery attempt (metrics and logs: observability/delivery-observer.ts); none when absent. */
  observer?: DeliveryObserver;
}

/** Every durable job's handler over `services`, for a worker (the server's, and tests that run jobs). */
export function buildJobHandlers(services: Services, settings: JobSettings): Record<string, JobHandler> {
  const { db, clock, changes, encrypter } = services;
  return jobHandlers([
    carrierJobHandlers({ db, clock, changes, adapter: settings.adapter }),
    openEnrollmentJobHandlers(services.windows),
    censusImportJobHandlers(services.censusCheck),
    settings.webhooks ? webhookJobHandlers({ db, clock, changes, encrypter, sender: settings.webhooks, observer: settings.observer }) : {},
    settings.edi ? ediJobHandlers({ db, clock, changes, encrypter, files: services.ediFiles, sftp: settings.edi, observer: settings.observer }) : {},
  ]);
}
