import type { AuthContext } from '../../shared/tenancy.ts';

const MAX_ENTRIES = 10_000;

/**
 * Callers already verified, by key hash, so that a request need not look its key up again. Sound only where
 * every change to the keys can be noticed at once: on SQLite, `PRAGMA data_version` changes whenever another
 * connection (another process, such as `benefits api-keys revoke`) commits, and this process's own revokes
 * clear the cache directly. The version is read before a key is looked up, so a revoke committed in between
 * still clears the entry on the next request.
 *
 * Under load the version is read at most once per `recheckAfterMs` (1 ms by default): reading it cost about a
 * fifth of a cached GET's CPU, and a revoke by another process is then honoured by every request that arrives
 * more than a millisecond after it committed.
 */
export class VerifiedKeyCache {
  readonly #entries = new Map<string, AuthContext>();
  readonly #readVersion: () => Promise<number>;
  readonly #recheckAfterMs: number;
  readonly #now: () => number;
  #version: number | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(readVersion: () => Promise<number>, options: { recheckAfterMs?: number; now?: () => number } = {}) {
    this.#readVersion = readVersion;
    this.#recheckAfterMs = options.recheckAfterMs ?? 1;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The cached caller for a key hash; empties the cache first when the database changed underneath. */
  async get(keyHash: string): Promise<AuthContext | undefined> {
    const now = this.#now();
    if (now - this.#checkedAt < this.#recheckAfterMs) return this.#entries.get(keyHash);
    this.#checkedAt = now;
    const version = await this.#readVersion();
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
      return undefined;
    }
    return this.#entries.get(keyHash);
  }

  set(keyHash: string, auth: AuthContext): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(keyHash, auth);
  }

  clear(): void {
    this.#entries.clear();
  }
}
