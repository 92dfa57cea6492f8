import { parseArgs } from 'node:util';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { API_KEY_ROLES, type ApiKeyRole } from './modules/api-keys/api-key.table.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { buildDailySweep } from './background.ts';
import { localDateAndTime } from './modules/daily-sweep/sweep-rules.ts';
import { FIRST_DATE, LAST_DATE, parseDate } from './shared/dates.ts';
import { AppError } from './shared/errors.ts';
import { systemClock } from './shared/clock.ts';

/** The width of --help's variable column: the longest name and two spaces. */
const VARIABLE_COLUMN = Math.max(...CONFIG_VARIABLES.map(([name]) => name.length)) + 2;

type Output = (text: string) => void;

const HELP: Record<string, string> = {
  main: `Usage: benefits <command> [options]

Commands:
  serve                 start the API server (migrates first; prints a first admin key on an empty database)
  migrate               apply pending database migrations and exit
  api-keys create       create an API key (and its provider, when new)
  api-keys list         list API keys of every provider
  api-keys revoke ID    revoke an API key
  sweep [--date DAY]    apply the daily date rules for one day (default: today in SWEEP_TIME_ZONE) and exit
  openapi               print the OpenAPI document (JSON) and exit; needs no database

Run "benefits <command> --help" for a command's options.

Environment:
${CONFIG_VARIABLES.map(([name, meaning, fallback]) => `  ${name.padEnd(VARIABLE_COLUMN)}${meaning} (default: ${fallback})`).join('\n')}
`,
  serve: `Usage: benefits serve

Starts the HTTP API on PORT (default 8080) against DATABASE_URL (default sqlite:./data/benefits.db).
Applies pending migrations first. On an empty database it creates a provider and an admin API key and
prints the key once. Stops gracefully on SIGTERM or SIGINT.
`,
  migrate: `Usage: benefits migrate

Applies every pending migration to DATABASE_URL and prints the names applied.
`,
  sweep: `Usage: benefits sweep [--date YYYY-MM-DD]

Applies every date-driven rule for one day against DATABASE_URL, then exits: newly_eligible when a waiting
period ends, dependent_age_out 30 days before a covered child ages out, open_enrollment_reminder 7 days and
1 day before a window's end_date, closing windows past their end_date, and ending the coverage of members
past their termination_date. The day defaults to today in SWEEP_TIME_ZONE. Running it again for a day (or
beside the server's own daily run, at SWEEP_TIME) creates nothing new. Carrier hand-offs it records are sent
by a running server's worker.
`,
  openapi: `Usage: benefits openapi

Prints the OpenAPI 3.1 document the server serves at /openapi.json, without a database or a server: for
client generators and linters (npm run lint runs redocly on it). It is the same whatever the configuration
(the rate limit headers are documented as sent when RATE_LIMIT_MAX is above 0).
`,
  'api-keys': `Usage: benefits api-keys <create|list|revoke> [options]

  create --provider NAME --role admin|employer|read_only [--employer ID] [--name TEXT]
         Creates the provider NAME if it does not exist, then a key for it; prints the key once.
         --employer is required for employer keys and optional for read_only keys.
  list   Lists every key (never the key itself): id, provider, role, employer, created, revoked.
  revoke ID
         Revokes the key; requests with it are refused from then on.
`,
};

/** Runs the `benefits` command; returns the exit code. */
export async function main(argv: string[], out: Output = console.log, err: Output = console.error): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        out(HELP.main!);
        return command === undefined ? 1 : 0;
      case 'serve':
        if (wantsHelp(rest)) return printHelp(out, 'serve');
        return await serve();
      case 'migrate':
        if (wantsHelp(rest)) return printHelp(out, 'migrate');
        return await migrate(out);
      case 'api-keys':
        return await apiKeys(rest, out, err);
      case 'sweep':
        if (wantsHelp(rest)) return printHelp(out, 'sweep');
        return await sweep(rest, out, err);
      case 'openapi':
        if (wantsHelp(rest)) return printHelp(out, 'openapi');
        return await openapi(out);
      default:
        err(`Unknown command "${command}".\n\n${HELP.main}`);
        return 1;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof AppError) {
      err(
        `benefits: ${error.message}${error instanceof AppError && error.inputErrors ? ` (${error.inputErrors.map((e) => `${e.field}: ${e.message}`).join('; ')})` : ''}`,
      );
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      err(`benefits: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

function printHelp(out: Output, topic: string): number {
  out(HELP[topic]!);
  return 0;
}

// The HTTP app (Fastify, the schemas, every route) is loaded only by the commands that serve or describe it: the
// others, `sweep` above all, run without it (src/background.ts).
async function serve(): Promise<number> {
  const config = loadConfig();
  const { closeOnSignals, startServer } = await import('./server.ts');
  const server = await startServer(config);
  closeOnSignals(server, config.shutdownTimeoutMs);
  // Keeps running; the signal handlers end the process.
  return new Promise<number>(() => undefined);
}

async function migrate(out: Output): Promise<number> {
  const database = openDatabase(loadConfig().databaseUrl);
  try {
    const applied = await migrateToLatest(database.db);
    out(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
    return 0;
  } finally {
    await database.close();
  }
}

async function sweep(args: string[], out: Output, err: Output): Promise<number> {
  const { values } = parseArgs({ args, options: { date: { type: 'string' } }, strict: true });
  const config = loadConfig();
  const day = values.date ?? localDateAndTime(systemClock.now(), config.sweep.timeZone).date;
  if (parseDate(day) === undefined) {
    err(`benefits: --date must be a calendar date YYYY-MM-DD from ${FIRST_DATE} to ${LAST_DATE} (got "${day}")`);
    return 1;
  }
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    const summary = await buildDailySweep({ db: database.db, clock: systemClock }).run(day);
    out(
      `Sweep of ${day}: ${Object.entries(summary)
        .filter(([key]) => key !== 'day')
        .map(([key, count]) => `${key} ${String(count)}`)
        .join(', ')}.`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

/**
 * The document of an app built on an empty in-memory database: the routes and their schemas are all it reads.
 * It serves no request, so its encryption key encrypts nothing.
 */
async function openapi(out: Output): Promise<number> {
  const config = { ...loadConfig(), databaseUrl: 'sqlite::memory:', logLevel: 'silent' as const };
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    const { buildApp } = await import('./app.ts');
    const app = await buildApp({ config, db: database.db, clock: systemClock, encryptionKey: Buffer.alloc(32) });
    await app.ready();
    out(JSON.stringify(app.swagger(), null, 2));
    await app.close();
    return 0;
  } finally {
    await database.close();
  }
}

async function apiKeys(args: string[], out: Output, err: Output): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h' || wantsHelp(rest)) return printHelp(out, 'api-keys');
  const database = openDatabase(loadConfig().databaseUrl);
  try {
    await migrateToLatest(database.db);
    const service = new ApiKeyService(database.db, systemClock);
    switch (action) {
      case 'create': {
        const { values } = parseArgs({
          args: rest,
          options: { provider: { type: 'string' }, role: { type: 'string' }, employer: { type: 'string' }, name: { type: 'string' } },
          strict: true,
        });
        if (!values.provider || !values.role) {
          err('benefits api-keys create needs --provider NAME and --role admin|employer|read_only');
          return 1;
        }
        if (!(API_KEY_ROLES as readonly string[]).includes(values.role)) {
          err(`--role must be one of ${API_KEY_ROLES.join(', ')}`);
          return 1;
        }
        const created = await service.createKeyForProvider(values.provider, {
          role: values.role as ApiKeyRole,
          employer: values.employer ?? null,
          name: values.name ?? null,
        });
        out(`Created ${created.role} key ${created.id} for provider "${values.provider}" (${created.provider}).`);
        out(`API key (shown once; store it now): ${created.key}`);
        return 0;
      }
      case 'list': {
        parseArgs({ args: rest, options: {}, strict: true });
        const keys = await service.listAllKeys();
        if (keys.length === 0) out('No API keys.');
        for (const key of keys) {
          out(
            [
              key.id,
              key.provider_name,
              key.role,
              key.employer ?? '-',
              key.redacted_key,
              key.created_at,
              key.revoked_at ? `revoked ${key.revoked_at}` : 'active',
            ].join('\t'),
          );
        }
        return 0;
      }
      case 'revoke': {
        const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true, strict: true });
        if (positionals.length !== 1) {
          err('benefits api-keys revoke needs exactly one key id (see "benefits api-keys list")');
          return 1;
        }
        const revoked = await service.revokeKey(null, positionals[0]!);
        out(`Revoked ${revoked.id} at ${revoked.revoked_at ?? ''}.`);
        return 0;
      }
      default:
        err(`Unknown api-keys action "${action}".\n\n${HELP['api-keys']}`);
        return 1;
    }
  } finally {
    await database.close();
  }
}
