import { PostgresAdapter, sql, type DatabaseIntrospector, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import * as foundation from './migrations/2026-11-22T0001-foundation.ts';
import * as peoplePlansNotifications from './migrations/2026-11-22T0002-people-plans-notifications.ts';
import * as enrollmentEngine from './migrations/2026-11-22T0003-enrollment-engine.ts';
import * as openEnrollment from './migrations/2026-11-22T0004-open-enrollment.ts';
import * as eventsWebhooks from './migrations/2026-11-22T0005-events-webhooks.ts';
import * as idempotencyKeyOwner from './migrations/2026-11-22T0006-idempotency-key-owner.ts';
import * as planRenewals from './migrations/2026-11-23T0001-plan-renewals.ts';
import * as benefitChangeCoverageDates from './migrations/2026-11-23T0002-benefit-change-coverage-dates.ts';
import * as cobraEvents from './migrations/2026-11-23T0003-cobra-events.ts';
import * as coverageTerminations from './migrations/2026-11-24T0001-coverage-terminations.ts';
import * as disabilityCertification from './migrations/2026-11-24T0002-dependent-disability-certification.ts';
import * as lifeEventRules from './migrations/2026-11-25T0001-life-event-rules.ts';
import * as eligibilityByEmployment from './migrations/2026-11-25T0002-eligibility-by-employment.ts';
import * as acaChildRating from './migrations/2026-11-25T0003-aca-child-rating.ts';
import * as beneficiaryDesignations from './migrations/2026-11-25T0004-beneficiary-designations.ts';
import * as planVolumeRules from './migrations/2026-11-25T0005-plan-volume-rules.ts';
import * as planVolumeRating from './migrations/2026-11-26T0001-plan-volume-rating.ts';
import * as apiKeyChangeNotices from './migrations/2026-11-27T0001-api-key-change-notices.ts';
import * as edi from './migrations/2026-11-28T0001-edi.ts';
import * as dependentSsn from './migrations/2026-11-28T0002-dependent-ssn.ts';
import * as apiKeyNoticeSchema from './migrations/2026-11-29T0001-api-key-notice-schema.ts';
import * as ediAcknowledgements from './migrations/2026-11-30T0001-edi-acknowledgements.ts';
import * as ediDeliveryState from './migrations/2026-11-30T0002-edi-delivery-state.ts';
import * as ssnRulesLeftOut from './migrations/2026-11-30T0003-ssn-rules-left-out.ts';
import * as carrierLedgerAlerts from './migrations/2026-12-01T0001-carrier-ledger-alerts.ts';
import * as ediSentNamesUnmapped from './migrations/2026-12-01T0002-edi-sent-names-unmapped.ts';
import * as ediFileReturns from './migrations/2026-12-01T0003-edi-file-returns.ts';
import * as dependentRelationshipEnd from './migrations/2026-12-02T0001-dependent-relationship-end.ts';
import * as medicareEntitledDependent from './migrations/2026-12-02T0003-medicare-entitled-dependent.ts';
import * as employmentHistory from './migrations/2026-12-04T0001-employment-history.ts';
import * as rehires from './migrations/2026-12-04T0002-rehires.ts';
import * as eligibilityLoss from './migrations/2026-12-04T0201-eligibility-loss.ts';
import * as cobraCoveragePeriods from './migrations/2026-12-04T0301-cobra-coverage-periods.ts';
import * as carrierFiles from './migrations/2026-12-04T0401-carrier-files.ts';
import * as carrierFileResolutions from './migrations/2026-12-05T0101-carrier-file-resolutions.ts';
import * as cobraEventWithdrawals from './migrations/2026-12-05T0301-cobra-event-withdrawals.ts';
import * as planYearIndexes from './migrations/2026-12-06T0001-plan-year-indexes.ts';
import * as externalIdLookups from './migrations/2026-12-06T0101-external-id-lookups.ts';
import * as encryptionKeyFingerprint from './migrations/2026-12-06T0201-encryption-key-fingerprint.ts';
import * as censusImports from './migrations/2026-12-07T0101-census-imports.ts';
import * as payroll from './migrations/2026-12-07T0201-payroll.ts';
import * as premiumBills from './migrations/2026-12-07T0301-premium-bills.ts';
import * as relationshipEndIndex from './migrations/2026-12-07T0401-relationship-end-index.ts';
import * as premiumBillPayroll from './migrations/2026-12-07T0501-premium-bill-payroll.ts';

/** Every migration, in order. Listed by hand so the same list works from `src/` and from `dist/`. */
const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T0001-foundation': foundation,
  '2026-11-22T0002-people-plans-notifications': peoplePlansNotifications,
  '2026-11-22T0003-enrollment-engine': enrollmentEngine,
  '2026-11-22T0004-open-enrollment': openEnrollment,
  '2026-11-22T0005-events-webhooks': eventsWebhooks,
  '2026-11-22T0006-idempotency-key-owner': idempotencyKeyOwner,
  '2026-11-23T0001-plan-renewals': planRenewals,
  '2026-11-23T0002-benefit-change-coverage-dates': benefitChangeCoverageDates,
  '2026-11-23T0003-cobra-events': cobraEvents,
  '2026-11-24T0001-coverage-terminations': coverageTerminations,
  '2026-11-24T0002-dependent-disability-certification': disabilityCertification,
  '2026-11-25T0001-life-event-rules': lifeEventRules,
  '2026-11-25T0002-eligibility-by-employment': eligibilityByEmployment,
  '2026-11-25T0003-aca-child-rating': acaChildRating,
  '2026-11-25T0004-beneficiary-designations': beneficiaryDesignations,
  '2026-11-25T0005-plan-volume-rules': planVolumeRules,
  '2026-11-26T0001-plan-volume-rating': planVolumeRating,
  '2026-11-27T0001-api-key-change-notices': apiKeyChangeNotices,
  '2026-11-28T0001-edi': edi,
  '2026-11-28T0002-dependent-ssn': dependentSsn,
  '2026-11-29T0001-api-key-notice-schema': apiKeyNoticeSchema,
  '2026-11-30T0001-edi-acknowledgements': ediAcknowledgements,
  '2026-11-30T0002-edi-delivery-state': ediDeliveryState,
  '2026-11-30T0003-ssn-rules-left-out': ssnRulesLeftOut,
  '2026-12-01T0001-carrier-ledger-alerts': carrierLedgerAlerts,
  '2026-12-01T0002-edi-sent-names-unmapped': ediSentNamesUnmapped,
  '2026-12-01T0003-edi-file-returns': ediFileReturns,
  '2026-12-02T0001-dependent-relationship-end': dependentRelationshipEnd,
  '2026-12-02T0003-medicare-entitled-dependent': medicareEntitledDependent,
  '2026-12-04T0001-employment-history': employmentHistory,
  '2026-12-04T0002-rehires': rehires,
  '2026-12-04T0201-eligibility-loss': eligibilityLoss,
  '2026-12-04T0301-cobra-coverage-periods': cobraCoveragePeriods,
  '2026-12-04T0401-carrier-files': carrierFiles,
  '2026-12-05T0101-carrier-file-resolutions': carrierFileResolutions,
  '2026-12-05T0301-cobra-event-withdrawals': cobraEventWithdrawals,
  '2026-12-06T0001-plan-year-indexes': planYearIndexes,
  '2026-12-06T0101-external-id-lookups': externalIdLookups,
  '2026-12-06T0201-encryption-key-fingerprint': encryptionKeyFingerprint,
  '2026-12-07T0101-census-imports': censusImports,
  '2026-12-07T0201-payroll': payroll,
  '2026-12-07T0301-premium-bills': premiumBills,
  '2026-12-07T0401-relationship-end-index': relationshipEndIndex,
  '2026-12-07T0501-premium-bill-payroll': premiumBillPayroll,
};

/**
 * The database as the migrator sees it on PostgreSQL: its introspection (which the migrator asks whether its
 * bookkeeping tables exist) reads `schema` only. Kysely's own reads the columns of every schema of the database,
 * and fails when another schema is dropped while it reads ("schema ... does not exist"): parallel test runs
 * sharing one database did exactly that. Everything else is the database itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type may be migrated
function inOneSchema(db: Kysely<any>, schema: string): Kysely<any> {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => (await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)).rows,
    getTables: async () =>
      (
        await sql<{ name: string }>`select c.relname as name from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          where n.nspname = ${schema} and c.relkind in ('r', 'p')`.execute(db)
      ).rows.map((row) => ({ name: row.name, schema, isView: false, isForeign: false, columns: [] })),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely keeps its state in private fields: its methods run on the database itself, not on this proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Applies every pending migration; returns the names applied now. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type may be migrated
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one: name the
  // schema this connection works in, so another application's (or test run's) tables are never mistaken for ours.
  const migrationTableSchema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: migrationTableSchema ? inOneSchema(db, migrationTableSchema) : db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${result.error instanceof Error ? result.error.message : JSON.stringify(result.error)}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The migrations this build knows that the database has not applied (for /readyz): empty when the schema is
 * current. Reads Kysely's bookkeeping table in the connection's own schema, as migrateToLatest writes it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type may be checked
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const applied = new Set((await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name));
  return Object.keys(MIGRATIONS).filter((name) => !applied.has(name));
}
