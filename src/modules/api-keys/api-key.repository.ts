import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { ApiKeyRow, NewApiKeyRow, ProviderRow } from './api-key.table.ts';

export function findProviderByName(db: Executor, name: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('providers').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function insertProvider(db: Executor, row: ProviderRow): Promise<void> {
  await db.insertInto('providers').values(row).execute();
}

export async function countProviders(db: Executor): Promise<number> {
  const { count } = await db
    .selectFrom('providers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function insertApiKey(db: Executor, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export function findApiKeyByLookup(db: Executor, lookup: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('lookup', '=', lookup).executeTakeFirst();
}

export function findApiKeyById(db: Executor, providerId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('provider_id', '=', providerId).where('id', '=', id).executeTakeFirst();
}

export function listAllApiKeys(db: Executor): Promise<(ApiKeyRow & { provider_name: string })[]> {
  return db
    .selectFrom('api_keys')
    .innerJoin('providers', 'providers.id', 'api_keys.provider_id')
    .selectAll('api_keys')
    .select('providers.name as provider_name')
    .orderBy('api_keys.created_at')
    .orderBy('api_keys.id')
    .execute();
}

/** Every provider with its count of keys not revoked, oldest first (the CLI's `providers list`). */
export function listProvidersWithKeyCounts(db: Executor): Promise<(ProviderRow & { active_keys: number })[]> {
  return db
    .selectFrom('providers')
    .leftJoin('api_keys', (join) => join.onRef('api_keys.provider_id', '=', 'providers.id').on('api_keys.revoked_at', 'is', null))
    .select(['providers.id', 'providers.name', 'providers.created_at'])
    .select((eb) => eb.fn.count<number>('api_keys.id').as('active_keys'))
    .groupBy(['providers.id', 'providers.name', 'providers.created_at'])
    .orderBy('providers.created_at')
    .orderBy('providers.id')
    .execute();
}

export function findApiKeyAnywhere(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function revokeApiKey(db: Executor, id: string, revokedAt: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** SQLite's counter of commits made by other connections to the database file. */
export async function readSqliteDataVersion(db: Executor): Promise<number> {
  const { rows } = await sql<{ data_version: number }>`PRAGMA data_version`.execute(db);
  return Number(rows[0]?.data_version ?? 0);
}
