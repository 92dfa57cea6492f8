import pg from 'pg';

/** The channel the api_keys trigger notifies on (migration 2026-11-27T0001). */
const CHANNEL = 'benefits_api_keys';
const RECONNECT_AFTER_MS = 1000;
/** How the listening connection names itself in pg_stat_activity. */
export const APPLICATION_NAME = 'benefits-key-notices';

export interface Logger {
  warn(details: object, message: string): void;
}

/**
 * PostgreSQL's answer to SQLite's data_version for the verified-key cache: a connection of its own that
 * LISTENs on the channel the api_keys trigger notifies on, and a version that moves on every notice. While the
 * connection is not listening (before it is up, after it drops, until it is back), every read of the version
 * gives a new one, so that nothing is served from the cache: a revoke is never missed, only the cache's saving.
 */
export class KeyChangeNotices {
  readonly #connectionString: string;
  /** Given by `start`: the process's services are built before its logger (the HTTP app's) exists. */
  #log: Logger | undefined;
  #client: pg.Client | undefined;
  #listening = false;
  #version = 0;
  /** The schema this server's tables live in; notices about another schema's api_keys are not ours. */
  #schema: string | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
  }

  /** The version the cache compares: unchanged only while listening and no key changed. */
  version(): number {
    if (!this.#listening) this.#version += 1;
    return this.#version;
  }

  /** Connects and listens; on failure it tries again every RECONNECT_AFTER_MS until closed, telling `log`. Never throws. */
  async start(log: Logger): Promise<void> {
    this.#log = log;
    await this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.#connectionString, connectionTimeoutMillis: 5000, application_name: APPLICATION_NAME });
    this.#client = client;
    client.on('notification', (notice) => {
      // Notices are database-wide. Since migration 2026-11-29T0001 each names the schema whose keys changed;
      // one without a name (an older trigger) is taken as ours.
      if (notice.payload && this.#schema !== undefined && notice.payload !== this.#schema) return;
      this.#version += 1;
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string | null }>('select current_schema() as schema');
      this.#schema = rows[0]?.schema ?? undefined;
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.#client !== client || this.#closed) return;
      // Whatever was cached before listening began is forgotten once: a change may have gone unheard.
      this.#version += 1;
      this.#listening = true;
    } catch (error) {
      this.#lost(client, error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #lost(client: pg.Client, error?: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    this.#version += 1;
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#log?.warn(
      { error: error instanceof Error ? error.message : undefined },
      'API key change notices: not listening; verified keys are read from the database until it is back',
    );
    this.#retry = setTimeout(() => void this.#connect(), RECONNECT_AFTER_MS);
    this.#retry.unref();
  }
}
