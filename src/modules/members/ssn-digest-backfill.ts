import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import type { SsnDigester } from '../../shared/ssn.ts';

/** Members read, digested and written per transaction. */
const BACKFILL_BATCH_SIZE = 500;
/** Member ids named in the startup log line about shared SSNs (the count is always whole). */
const LOGGED_DUPLICATES = 100;

export interface SsnDigestBackfill {
  /** Members given their SSN's digest now. */
  filled: number;
  /** Members left without one: an earlier member of their employer (by id, i.e. by creation) has the same SSN. */
  duplicates: string[];
  /** Members whose stored SSN does not decrypt with the service key (left as they are). */
  unreadable: string[];
}

/**
 * Gives members stored before SSNs had digests (migration 2026-11-30T0003, which has no key to compute them)
 * their `ssn_digest`, at startup, `BACKFILL_BATCH_SIZE` at a time in id order. Idempotent: only members with an
 * SSN and no digest are read, and a write applies only while the digest is still missing. Where two members of
 * one employer share an SSN, the earlier keeps the digest and the later stays without one (so the unique index
 * never stops the service from starting): returned and logged by id, never with the number or its digest
 * (docs/decisions.md "SSNs"). A concurrent writer's digest (another process starting, a request) that makes a
 * batch fail on the unique index sends the batch round again, where the check sees it.
 */
export async function backfillSsnDigests(
  db: Kysely<Database>,
  encrypter: Encrypter,
  digester: SsnDigester,
  log?: { warn(data: object, message: string): void; info(data: object, message: string): void },
): Promise<SsnDigestBackfill> {
  const result: SsnDigestBackfill = { filled: 0, duplicates: [], unreadable: [] };
  let after = '';
  let retries = 0;
  for (;;) {
    const rows = await db
      .selectFrom('members')
      .select(['id', 'employer_id', 'ssn_encrypted'])
      .where('ssn_encrypted', 'is not', null)
      .where('ssn_digest', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_BATCH_SIZE)
      .execute();
    if (rows.length === 0) break;
    const batch: SsnDigestBackfill = { filled: 0, duplicates: [], unreadable: [] };
    try {
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          let digest: string;
          try {
            digest = digester.digest(encrypter.decrypt(row.ssn_encrypted!));
          } catch {
            batch.unreadable.push(row.id);
            continue;
          }
          const taken = await trx
            .selectFrom('members')
            .select('id')
            .where('employer_id', '=', row.employer_id)
            .where('ssn_digest', '=', digest)
            .executeTakeFirst();
          if (taken) {
            batch.duplicates.push(row.id);
            continue;
          }
          const updated = await trx
            .updateTable('members')
            .set({ ssn_digest: digest })
            .where('id', '=', row.id)
            .where('ssn_digest', 'is', null)
            .where('ssn_encrypted', '=', row.ssn_encrypted)
            .executeTakeFirst();
          batch.filled += Number(updated.numUpdatedRows);
        }
      });
    } catch (error) {
      if (!isUniqueViolation(error) || retries >= 3) throw error;
      retries += 1;
      continue;
    }
    retries = 0;
    after = rows.at(-1)!.id;
    result.filled += batch.filled;
    result.duplicates.push(...batch.duplicates);
    result.unreadable.push(...batch.unreadable);
  }
  if (result.filled > 0) log?.info({ members: result.filled }, 'SSN digests stored for existing members');
  if (result.duplicates.length > 0) {
    log?.warn(
      { count: result.duplicates.length, members: result.duplicates.slice(0, LOGGED_DUPLICATES) },
      'members share an SSN with an earlier member of their employer: correct their ssn (PATCH /members/{id}); until then they are not held to distinct SSNs',
    );
  }
  if (result.unreadable.length > 0) {
    log?.warn(
      { count: result.unreadable.length, members: result.unreadable.slice(0, LOGGED_DUPLICATES) },
      'stored SSNs that do not decrypt with the service key',
    );
  }
  return result;
}
