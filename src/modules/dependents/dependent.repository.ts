import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { findEnrollmentIdsNamingDependent, removeDependentFromEnrollments } from '../coverage/coverage-links.repository.ts';
import type { EnrollmentRow } from '../enrollments/enrollment.table.ts';
import type { DependentRow } from './dependent.table.ts';
import { CURRENT_SPOUSE_RELATIONSHIPS } from './spouse-rules.ts';

function dependents(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('dependents').selectAll(), scope, 'dependents', 'employer_id');
}

export const findDependentById: (db: Executor, scope: Scope, id: string) => Promise<DependentRow | undefined> = findByIdInScope(dependents);

export function lockDependentById(trx: Transaction<Database>, scope: Scope, id: string): Promise<DependentRow | undefined> {
  return forUpdate(trx, dependents(trx, scope).where('id', '=', id)).executeTakeFirst();
}

/** Dependents of the provider by id (no order; whose member they are is the caller's to check). */
export function findDependentsByIds(db: Executor, providerId: string, ids: readonly string[]): Promise<DependentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('dependents').selectAll().where('provider_id', '=', providerId).where('id', 'in', ids).execute();
}

export interface DependentListFilter {
  memberId?: string | undefined;
  memberPayrollProviderExternalId?: string | undefined;
}

export function listDependents(db: Executor, scope: Scope, filter: DependentListFilter, page: PageRequest): Promise<Page<DependentRow>> {
  let query = dependents(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  const payrollId = filter.memberPayrollProviderExternalId;
  if (payrollId !== undefined) {
    // The members of this provider with that payroll id (the members_provider_payroll_id index), then theirs.
    query = query.where('member_id', 'in', (members) =>
      members
        .selectFrom('members')
        .select('members.id')
        .where('members.provider_id', '=', scope.providerId)
        .where('members.payroll_provider_external_id', '=', payrollId),
    );
  }
  return paginate(query, page);
}

export async function insertDependent(db: Executor, row: DependentRow): Promise<void> {
  await db.insertInto('dependents').values(row).execute();
}

export async function updateDependent(db: Executor, row: DependentRow): Promise<void> {
  const { id, provider_id, created_at: _createdAt, ...changes } = row;
  await db.updateTable('dependents').set(changes).where('id', '=', id).where('provider_id', '=', provider_id).execute();
}

/**
 * Locks the enrollments that name the dependent, as covered or as waiving, and returns them with their
 * status. Taken after the member and the dependent, so that an approval cannot slip in between the check
 * and the delete.
 */
export async function lockEnrollmentsNamingDependent(
  trx: Transaction<Database>,
  dependentId: string,
): Promise<
  Pick<EnrollmentRow, 'id' | 'provider_id' | 'employer_id' | 'member_id' | 'status' | 'category' | 'open_enrollment_window_id' | 'rules_override_reason'>[]
> {
  const ids = await findEnrollmentIdsNamingDependent(trx, dependentId);
  if (ids.length === 0) return [];
  const columns = ['id', 'provider_id', 'employer_id', 'member_id', 'status', 'category', 'open_enrollment_window_id', 'rules_override_reason'] as const;
  return forUpdate(trx, trx.selectFrom('enrollments').select(columns).where('id', 'in', ids).orderBy('id')).execute();
}

/** Removes the dependent from the given (unsent) enrollments, then the dependent itself. */
export async function deleteDependentAndCoverage(trx: Executor, dependentId: string, unsentEnrollmentIds: readonly string[]): Promise<void> {
  await removeDependentFromEnrollments(trx, dependentId, unsentEnrollmentIds);
  await trx.deleteFrom('dependents').where('id', '=', dependentId).execute();
}

/**
 * The member's other dependents that may be a current spouse or partner (spouse-like, no relationship_end_date),
 * oldest first; the caller holds the member's lock, so that two requests cannot each add one.
 */
export function findOpenSpouseLikeDependentsOfMember(db: Executor, memberId: string, exceptId: string | null): Promise<DependentRow[]> {
  let query = db
    .selectFrom('dependents')
    .selectAll()
    .where('member_id', '=', memberId)
    .where('member_relationship', 'in', CURRENT_SPOUSE_RELATIONSHIPS)
    .where('relationship_end_date', 'is', null);
  if (exceptId !== null) query = query.where('id', '!=', exceptId);
  return query.orderBy('created_at').orderBy('id').execute();
}
