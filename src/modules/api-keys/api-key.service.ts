import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Executor } from '../../db/database.ts';
import type { Page, PageRequest } from '../../db/keyset.ts';
import { mapPage, paginate } from '../../db/keyset.ts';
import { AppError, NotFound, ValidationFailed, inputError } from '../../shared/errors.ts';
import { newId, randomBase62 } from '../../shared/ids.ts';
import type { Clock } from '../../shared/clock.ts';
import type { AuthContext } from '../../shared/tenancy.ts';
import { ChangeCommit } from '../change-commit/change-commit.ts';
import { EventLog } from '../events/event-log.ts';
import { Notifier } from '../notifications/notification.service.ts';
import * as repository from './api-key.repository.ts';
import type { KeyChangeNotices } from './key-change-notices.ts';
import { VerifiedKeyCache } from './verified-key-cache.ts';
import type { ApiKeyRole, ApiKeyRow } from './api-key.table.ts';

const KEY_PATTERN = /^bk_(live|test)_([0-9A-Za-z]{32,128})$/;
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 40;

export interface ApiKeyResponse {
  id: string;
  object: 'api_key';
  role: ApiKeyRole;
  employer: string | null;
  name: string | null;
  redacted_key: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeyResponse {
  /** The plain key: returned once, at creation, and never stored. */
  key: string;
}

export interface NewApiKey {
  role: ApiKeyRole;
  employer?: string | null | undefined;
  name?: string | null | undefined;
}

export function toApiKeyResponse(row: ApiKeyRow): ApiKeyResponse {
  return {
    id: row.id,
    object: 'api_key',
    role: row.role,
    employer: row.employer_id,
    name: row.name,
    redacted_key: row.redacted,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** A ChangeCommit for keys made outside the composition: with no subscriber, since a key records no event anyway. */
function commitWithoutEvents(clock: Clock): ChangeCommit {
  const events = new EventLog(clock);
  return new ChangeCommit({ clock, events, notifier: new Notifier(clock) });
}

/** The employer a key is limited to, as its role needs it. */
function checkRoleAndEmployer(input: NewApiKey): void {
  const employerId = input.employer ?? null;
  if (input.role === 'employer' && employerId === null) {
    throw new ValidationFailed([inputError(['employer'], 'Employer keys need the employer they are limited to.')]);
  }
  if (input.role === 'admin' && employerId !== null) {
    throw new ValidationFailed([inputError(['employer'], 'Admin keys cover the whole provider; leave employer out.')]);
  }
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class ApiKeyService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;
  readonly #verified: VerifiedKeyCache | undefined;

  /**
   * Verified callers are kept in memory only where another process's change to the keys is seen at once (see
   * VerifiedKeyCache): `cacheVerifiedKeys` on SQLite (its data_version), `keyChanges` on PostgreSQL (the
   * api_keys trigger's notices, KeyChangeNotices). Without either, every request reads its key. `changes`: the
   * composition's ChangeCommit; absent (the command line, tests: no request, so no Idempotency-Key to mark), one
   * of its own, which is the same for a key, since a key records no event.
   */
  constructor(db: Kysely<Database>, clock: Clock, options: { changes?: ChangeCommit; cacheVerifiedKeys?: boolean; keyChanges?: KeyChangeNotices } = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = options.changes ?? commitWithoutEvents(clock);
    const { keyChanges } = options;
    if (keyChanges) this.#verified = new VerifiedKeyCache(async () => keyChanges.version(), { recheckAfterMs: 0 });
    else if (options.cacheVerifiedKeys) this.#verified = new VerifiedKeyCache(() => repository.readSqliteDataVersion(db));
  }

  /**
   * Resolves a bearer token to its caller, or undefined for an unknown, malformed or revoked key. The row is
   * found by the key's lookup prefix and the hash compared in constant time.
   */
  async authenticate(token: string): Promise<AuthContext | undefined> {
    const match = KEY_PATTERN.exec(token);
    if (!match) return undefined;
    const keyHash = hashKey(token);
    const cached = await this.#verified?.get(keyHash);
    if (cached) return cached;
    const row = await repository.findApiKeyByLookup(this.#db, match[2]!.slice(0, LOOKUP_LENGTH));
    if (!row || row.revoked_at !== null) return undefined;
    const expected = Buffer.from(row.key_hash, 'hex');
    const given = Buffer.from(keyHash, 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const auth: AuthContext = { apiKeyId: row.id, providerId: row.provider_id, role: row.role, employerId: row.employer_id };
    this.#verified?.set(keyHash, auth);
    return auth;
  }

  /** Creates a key for a provider; the employer (when given) must be the provider's. */
  async createKey(providerId: string, input: NewApiKey): Promise<CreatedApiKey> {
    return this.#db.transaction().execute((trx) => this.#insertKey(trx, providerId, input));
  }

  async #insertKey(trx: Executor, providerId: string, input: NewApiKey): Promise<CreatedApiKey> {
    const employerId = input.employer ?? null;
    checkRoleAndEmployer(input);
    if (employerId !== null) {
      const employer = await trx.selectFrom('employers').select('id').where('provider_id', '=', providerId).where('id', '=', employerId).executeTakeFirst();
      if (!employer) throw new ValidationFailed([inputError(['employer'], 'No such employer.')]);
    }
    const secret = randomBase62(SECRET_LENGTH);
    const key = `bk_live_${secret}`;
    const row: ApiKeyRow = {
      id: newId('api_key'),
      provider_id: providerId,
      role: input.role,
      employer_id: employerId,
      name: input.name ?? null,
      lookup: secret.slice(0, LOOKUP_LENGTH),
      key_hash: hashKey(key),
      redacted: `bk_live_${secret.slice(0, 4)}...${secret.slice(-4)}`,
      created_at: this.#clock.now().toISOString(),
      revoked_at: null,
    };
    await repository.insertApiKey(trx, row);
    // A new key records no event: its commit marks the request's Idempotency-Key.
    await this.#changes.commit(trx, {});
    return { ...toApiKeyResponse(row), key };
  }

  /**
   * A key for the provider named `providerName` (the CLI's `api-keys create`). An unknown name is refused unless
   * `createProvider`: a mistyped name would otherwise make a new, empty tenant.
   */
  async createKeyForProvider(providerName: string, input: NewApiKey, createProvider = true): Promise<CreatedApiKey & { provider: string }> {
    // Before the provider is looked up (or made): a key that could never be made makes no provider.
    checkRoleAndEmployer(input);
    const provider = createProvider ? await this.ensureProvider(providerName) : await repository.findProviderByName(this.#db, providerName);
    if (!provider) {
      const known = (await repository.listProvidersWithKeyCounts(this.#db)).map((row) => `"${row.name}"`);
      throw new AppError(
        'not_found',
        `There is no provider named "${providerName}" (${known.length > 0 ? `providers: ${known.join(', ')}` : 'none yet'}); add --new-provider to create it.`,
      );
    }
    return { ...(await this.createKey(provider.id, input)), provider: provider.id };
  }

  async listProviders(): Promise<{ id: string; name: string; created_at: string; active_keys: number }[]> {
    const rows = await repository.listProvidersWithKeyCounts(this.#db);
    return rows.map((row) => ({ id: row.id, name: row.name, created_at: row.created_at, active_keys: Number(row.active_keys) }));
  }

  async ensureProvider(name: string): Promise<{ id: string; name: string }> {
    const existing = await repository.findProviderByName(this.#db, name);
    if (existing) return existing;
    const row = { id: newId('provider'), name, created_at: this.#clock.now().toISOString() };
    try {
      await repository.insertProvider(this.#db, row);
      return row;
    } catch (error) {
      const raced = await repository.findProviderByName(this.#db, name);
      if (raced) return raced;
      throw error;
    }
  }

  /**
   * On an empty database: creates a provider and its first admin key, and returns the plain key so that the
   * caller can print it once. Returns undefined when any provider exists. The `settings` row makes this
   * happen once even when several processes start together.
   */
  async bootstrap(providerName = 'default'): Promise<CreatedApiKey | undefined> {
    if ((await repository.countProviders(this.#db)) > 0) return undefined;
    return this.#db.transaction().execute(async (trx) => {
      const now = this.#clock.now().toISOString();
      const claimed = await trx
        .insertInto('settings')
        .values({ key: 'bootstrap_key_created', value: now })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return undefined;
      const provider = { id: newId('provider'), name: providerName, created_at: now };
      await repository.insertProvider(trx, provider);
      return this.#insertKey(trx, provider.id, { role: 'admin', name: 'first admin key' });
    });
  }

  async listKeys(providerId: string, page: PageRequest): Promise<Page<ApiKeyResponse>> {
    const rows = await paginate(this.#db.selectFrom('api_keys').selectAll().where('provider_id', '=', providerId), page);
    return mapPage(rows, toApiKeyResponse);
  }

  async listAllKeys(): Promise<(ApiKeyResponse & { provider_name: string })[]> {
    const rows = await repository.listAllApiKeys(this.#db);
    return rows.map((row) => ({ ...toApiKeyResponse(row), provider_name: row.provider_name }));
  }

  /** Revokes a key of the provider; a revoked key is refused from the next request on. */
  async revokeKey(providerId: string | null, id: string): Promise<ApiKeyResponse> {
    const row = providerId === null ? await repository.findApiKeyAnywhere(this.#db, id) : await repository.findApiKeyById(this.#db, providerId, id);
    if (!row) throw new NotFound('API key');
    if (row.revoked_at !== null) throw new AppError('invalid_state', 'This API key is already revoked.');
    const revokedAt = this.#clock.now().toISOString();
    await repository.revokeApiKey(this.#db, id, revokedAt);
    this.#verified?.clear();
    return toApiKeyResponse({ ...row, revoked_at: revokedAt });
  }
}
