import type { CarrierLedgerTable } from '../modules/carrier-ledger/carrier-ledger.table.ts';
import type { CarrierFileResolutionTable, CarrierFileTable } from '../modules/carrier-files/carrier-file.table.ts';
import type { CensusResultTable, CensusImportTable } from '../modules/census-imports/census-import.table.ts';
import type { PremiumBillTable } from '../modules/premium-bills/premium-bill.table.ts';
import type { AlertTable } from '../modules/alerts/alert.table.ts';
import type { ApiKeyTable, IdempotencyKeyTable, ProviderTable, SettingTable } from '../modules/api-keys/api-key.table.ts';
import type { JobTable } from '../jobs/job.table.ts';
import type { BenefitChangeTable } from '../modules/benefit-changes/benefit-change.table.ts';
import type { BeneficiaryTable } from '../modules/beneficiaries/beneficiary.table.ts';
import type { CobraEventLossTable, CobraEventTable } from '../modules/cobra-events/cobra-event.table.ts';
import type { CoverageTerminationItemTable, CoverageTerminationTable } from '../modules/coverage/coverage.table.ts';
import type { BusinessUnitTable } from '../modules/business-units/business-unit.table.ts';
import type { CarrierTable } from '../modules/carriers/carrier.table.ts';
import type { DependentTable } from '../modules/dependents/dependent.table.ts';
import type { DocumentTable } from '../modules/documents/document.table.ts';
import type { EmployerTable } from '../modules/employers/employer.table.ts';
import type {
  CoverageWaiverTable,
  EnrolledDependentTable,
  BeneficiaryDesignationTable,
  EnrolledPlanTable,
  EnrollmentTable,
} from '../modules/enrollments/enrollment.table.ts';
import type { GroupTable } from '../modules/groups/group.table.ts';
import type { MemberIdCardTable } from '../modules/member-id-cards/member-id-card.table.ts';
import type { MemberEmploymentEventTable, MemberSubclassTable, MemberTable } from '../modules/members/member.table.ts';
import type { NotificationTable } from '../modules/notifications/notification.table.ts';
import type { PayRateTable } from '../modules/pay-rates/pay-rate.table.ts';
import type { PlanConfigurationTable } from '../modules/plan-configurations/plan-configuration.table.ts';
import type { PlanTable } from '../modules/plans/plan.table.ts';
import type { SubclassTable } from '../modules/subclasses/subclass.table.ts';
import type { OpenEnrollmentWindowPlanTable, OpenEnrollmentWindowTable } from '../modules/open-enrollment/open-enrollment-window.table.ts';
import type { SweepOccurrenceTable, SweepRunTable } from '../modules/daily-sweep/sweep.table.ts';
import type { EventTable } from '../modules/events/event.table.ts';
import type { EncryptionKeyFingerprintTable } from '../start/encryption-key-check.ts';
import type {
  EdiControlNumberTable,
  EdiFileChangeTable,
  EdiFileChunkTable,
  EdiFilePersonTable,
  EdiFileTable,
  EdiPickupSeenFileTable,
  EdiLeftOutTable,
  EdiProfileTable,
  EdiSentDemographicsTable,
  EdiUnmatchedAcknowledgementTable,
} from '../modules/edi/edi.table.ts';
import type { PayrollRunLineTable, PayrollRunTable, PayScheduleTable } from '../modules/payroll/payroll.table.ts';
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from '../modules/webhooks/webhook.table.ts';

/** Every table, as Kysely sees it. Each module owns the row type of its tables. */
export interface Database {
  settings: SettingTable;
  encryption_key_fingerprints: EncryptionKeyFingerprintTable;
  providers: ProviderTable;
  api_keys: ApiKeyTable;
  idempotency_keys: IdempotencyKeyTable;
  employers: EmployerTable;
  carriers: CarrierTable;
  carrier_groups: GroupTable;
  business_units: BusinessUnitTable;
  subclasses: SubclassTable;
  members: MemberTable;
  member_subclasses: MemberSubclassTable;
  member_employment_events: MemberEmploymentEventTable;
  dependents: DependentTable;
  beneficiaries: BeneficiaryTable;
  pay_rates: PayRateTable;
  documents: DocumentTable;
  plans: PlanTable;
  plan_configurations: PlanConfigurationTable;
  member_id_cards: MemberIdCardTable;
  enrollments: EnrollmentTable;
  enrolled_plans: EnrolledPlanTable;
  enrolled_dependents: EnrolledDependentTable;
  beneficiary_designations: BeneficiaryDesignationTable;
  coverage_waivers: CoverageWaiverTable;
  notifications: NotificationTable;
  benefit_changes: BenefitChangeTable;
  jobs: JobTable;
  open_enrollment_windows: OpenEnrollmentWindowTable;
  open_enrollment_window_plans: OpenEnrollmentWindowPlanTable;
  sweep_runs: SweepRunTable;
  sweep_occurrences: SweepOccurrenceTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  cobra_events: CobraEventTable;
  cobra_event_losses: CobraEventLossTable;
  coverage_terminations: CoverageTerminationTable;
  coverage_termination_items: CoverageTerminationItemTable;
  edi_profiles: EdiProfileTable;
  edi_control_numbers: EdiControlNumberTable;
  edi_files: EdiFileTable;
  edi_file_chunks: EdiFileChunkTable;
  edi_file_changes: EdiFileChangeTable;
  edi_file_people: EdiFilePersonTable;
  edi_sent_demographics: EdiSentDemographicsTable;
  edi_unmatched_acknowledgements: EdiUnmatchedAcknowledgementTable;
  edi_pickup_seen_files: EdiPickupSeenFileTable;
  edi_left_out: EdiLeftOutTable;
  carrier_ledger: CarrierLedgerTable;
  carrier_files: CarrierFileTable;
  carrier_file_resolutions: CarrierFileResolutionTable;
  census_imports: CensusImportTable;
  census_import_rows: CensusResultTable;
  premium_bills: PremiumBillTable;
  alerts: AlertTable;
  pay_schedules: PayScheduleTable;
  payroll_runs: PayrollRunTable;
  payroll_run_lines: PayrollRunLineTable;
}
