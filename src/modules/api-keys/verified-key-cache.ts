import type { AuthContext } from '../../shared/tenancy.ts';

const MAX_ENTRIES = 10_000;

/**
 * Callers already verified, by key hash, so that a request need not look its key up again. Sound only where
 * every change to the keys can be noticed at once: on SQLite, `PRAGMA data_version` changes whenever another
 * connection (another process, such as `benefits api-keys revoke`) commits, and this process's own revokes
 * clear the cache directly. The version is read before a key is looked up, so a revoke committed in between
 * still clears the entry on the next request.
 */
export class VerifiedKeyCache {
  readonly #entries = new Map<string, AuthContext>();
  readonly #readVersion: () => Promise<number>;
  #version: number | undefined;

  constructor(readVersion: () => Promise<number>) {
    this.#readVersion = readVersion;
  }

  /** The cached caller for a key hash; empties the cache first when the database changed underneath. */
  async get(keyHash: string): Promise<AuthContext | undefined> {
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
