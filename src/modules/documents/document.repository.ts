import type { Executor, Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { paginate, type Page, type PageRequest } from '../../db/keyset.ts';
import { findByIdInScope, forUpdate, inScope } from '../../db/scope.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { DocumentRow } from './document.table.ts';

/** A document without its bytes: what reads and lists answer with. */
export type DocumentInfoRow = Omit<DocumentRow, 'content'>;

const INFO_COLUMNS = ['id', 'provider_id', 'employer_id', 'member_id', 'name', 'content_type', 'size', 'created_at'] as const;

// Documents without an employer are provider-wide: inScope leaves them out for employer-scoped keys.
function documents(db: Executor, scope: Scope) {
  return inScope(db.selectFrom('documents').select(INFO_COLUMNS), scope, 'documents', 'employer_id');
}

export const findDocumentById: (db: Executor, scope: Scope, id: string) => Promise<DocumentInfoRow | undefined> = findByIdInScope(documents);

export function listDocuments(
  db: Executor,
  scope: Scope,
  filter: { memberId?: string | undefined; employerId?: string | undefined },
  page: PageRequest,
): Promise<Page<DocumentInfoRow>> {
  let query = documents(db, scope);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.employerId !== undefined) query = query.where('employer_id', '=', filter.employerId);
  return paginate(query, page);
}

/** The stored bytes and their type; the bytes come back as a Buffer (pg) or a Uint8Array (node:sqlite). */
export function findDocumentContent(db: Executor, scope: Scope, id: string): Promise<Pick<DocumentRow, 'name' | 'content_type' | 'content'> | undefined> {
  return inScope(db.selectFrom('documents').select(['name', 'content_type', 'content']), scope, 'documents', 'employer_id')
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertDocument(db: Executor, row: DocumentRow): Promise<void> {
  await db.insertInto('documents').values(row).execute();
}

/**
 * The member a document is about, locked for the rest of the transaction so that a concurrent delete of the
 * member cannot slip in between the check and the insert.
 */
export function lockMemberOfDocument(trx: Transaction<Database>, scope: Scope, memberId: string): Promise<{ id: string; employer_id: string } | undefined> {
  const member = inScope(trx.selectFrom('members').select(['id', 'employer_id']), scope, 'members', 'employer_id').where('id', '=', memberId);
  return forUpdate(trx, member).executeTakeFirst();
}
