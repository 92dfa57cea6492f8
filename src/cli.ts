import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, InvalidArgumentError } from 'commander';
import { CONFIG_VARIABLES, ConfigError, loadConfig, type Config } from './config.ts';
import { describeDatabase, openDatabase, type DatabaseHandle } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { API_KEY_ROLES, type ApiKeyRole } from './modules/api-keys/api-key.table.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { buildDailySweep } from './background.ts';
import { localDateAndTime } from './modules/daily-sweep/sweep-rules.ts';
import { FIRST_DATE, LAST_DATE, parseDate } from './shared/dates.ts';
import { AppError } from './shared/errors.ts';
import { systemClock } from './shared/clock.ts';
import { asStartError, openStartDatabase, probeDatabase } from './start/start-errors.ts';
import { formatTable } from './start/table.ts';

type Output = (text: string) => void;

/**
 * Exit codes: 0 done, 1 refused or failed (a bad value, a start check), 2 a command line that is not understood;
 * the census commands also 3, done with rows skipped (commands/census-import.ts CENSUS_EXIT).
 */
const USAGE_ERROR = 2;

// Commander's errors about the command line itself (the rest, help and --version, exit as commander says).
const USAGE_ERRORS = new Set([
  'commander.unknownOption',
  'commander.unknownCommand',
  'commander.excessArguments',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.invalidArgument',
  'commander.conflictingOption',
]);

/** The package's version, from package.json one folder up (from src/ and from dist/ alike). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Runs the `benefits` command; returns the exit code. */
export async function main(argv: string[], out: Output = console.log, err: Output = console.error): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(out, err, (code) => (exitCode = code));
  if (argv.length === 0) {
    out(program.helpInformation().trimEnd());
    return 1;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return USAGE_ERRORS.has(error.code) ? USAGE_ERROR : error.exitCode;
    if (error instanceof ConfigError || error instanceof AppError) {
      err(
        `benefits: ${error.message}${error instanceof AppError && error.inputErrors ? ` (${error.inputErrors.map((e) => `${e.field}: ${e.message}`).join('; ')})` : ''}`,
      );
      return 1;
    }
    throw error;
  }
}

/** The width of the main help's first column: the longest variable name. */
const TERM_COLUMN = Math.max(...CONFIG_VARIABLES.map(([name]) => name.length));

/** The environment variables as a help section, in the columns of the commands above them. */
class BenefitsHelp extends Help {
  override padWidth(cmd: Command, helper: Help): number {
    const own = super.padWidth(cmd, helper);
    return cmd.parent ? own : Math.max(own, ...CONFIG_VARIABLES.map(([name]) => name.length));
  }

  /** A command's options spelled out (`sweep [--date <day>]`) where they fit the column, else `[options]`. */
  override subcommandTerm(cmd: Command): string {
    const options = cmd.options.filter((option) => !option.hidden && option.long !== '--help').map((option) => `[${option.flags}]`);
    const args = cmd.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
    const spelled = [cmd.name(), ...options, ...args].join(' ');
    return spelled.length <= TERM_COLUMN ? spelled : super.subcommandTerm(cmd);
  }

  override formatHelp(cmd: Command, helper: Help): string {
    const text = super.formatHelp(cmd, helper);
    if (cmd.parent) return text;
    const termWidth = helper.padWidth(cmd, helper);
    const items = CONFIG_VARIABLES.map(([name, meaning, fallback]) => helper.formatItem(name, termWidth, `${meaning} (default: ${fallback})`, helper));
    return `${text}\n${helper.formatItemList('Environment:', items, helper).join('\n')}\n`;
  }
}

function buildProgram(out: Output, err: Output, setExitCode: (code: number) => void): Command {
  const program = new Command('benefits');
  const configure = (command: Command): Command =>
    command.exitOverride().configureOutput({
      writeOut: (text) => out(text.trimEnd()),
      writeErr: (text) => err(text.trimEnd()),
      // One line: the problem, and where the usage is.
      outputError: (text, write) =>
        write(
          `benefits: ${text
            .replace(/^error: /, '')
            .replace(/\s*\n\s*/g, ' ')
            .trim()} (see "${helpCommandOf(command)}")\n`,
        ),
    });
  program
    .description('Self-hostable benefits enrollment service.')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'print this help and exit')
    .helpCommand('help [command]', 'print the help of a command')
    .addHelpText('after', '\nRun "benefits <command> --help" for a command\'s options.')
    .showSuggestionAfterError(true);
  program.createHelp = () => Object.assign(new BenefitsHelp(), program.configureHelp());
  configure(program);

  const command = (parent: Command, nameAndArgs: string, description: string): Command => {
    const created = parent.command(nameAndArgs).description(description).helpOption('-h, --help', 'print this help and exit');
    return configure(created);
  };

  // A command of commands, run alone, prints its usage (exit 0), as `benefits api-keys` always did.
  const groupCommand = (parent: Command, name: string, description: string): Command => {
    const group = command(parent, name, description);
    return group.action(() => out(group.helpInformation().trimEnd()));
  };

  command(program, 'serve', 'start the API server (migrates first; prints a first admin key on an empty database)')
    .option('--port <number>', 'HTTP port (default: PORT, else 8080)', parsePort)
    .option('--host <address>', 'address to listen on (default: HOST, else 0.0.0.0)')
    .addHelpText(
      'after',
      `
Starts the HTTP API against DATABASE_URL (default sqlite:./data/benefits.db). Applies pending migrations first.
Checks before it serves: the database answers, BENEFITS_ENCRYPTION_KEY is the key the database was encrypted
with (the first start records its fingerprint), the port is free. Then, on an empty database, it creates the
provider "default" and an admin API key, and prints the key once. Stops gracefully on SIGTERM or SIGINT.`,
    )
    .action(async (options: { port?: number; host?: string }) => {
      const config = loadConfig();
      await serve({ ...config, port: options.port ?? config.port, host: options.host ?? config.host });
    });

  command(program, 'migrate', 'apply pending database migrations and exit')
    .addHelpText('after', '\nApplies every pending migration to DATABASE_URL and prints the names applied.')
    .action(async () => {
      await withDatabase(loadConfig(), async (database) => {
        const applied = await migrateToLatest(database.db);
        out(applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
      });
    });

  const apiKeys = groupCommand(program, 'api-keys', 'create, list and revoke API keys').addHelpText(
    'after',
    '\nThe first start of the server creates the provider "default"; "benefits providers list" lists them all.',
  );
  command(apiKeys, 'create', 'create an API key for a provider; prints the key once')
    .option('--provider <name>', 'the provider (tenant) the key belongs to, e.g. default')
    .option('--role <role>', `the key's role: ${API_KEY_ROLES.join('|')}`)
    .option('--employer <id>', 'the employer an employer key is limited to (optional for read_only keys)')
    .option('--name <text>', 'a name for the key, to recognise it later')
    .option('--new-provider', 'create the provider when no provider has that name (without it, an unknown name is refused)')
    .action(async (options: { provider?: string; role?: string; employer?: string; name?: string; newProvider?: boolean }) => {
      if (!options.provider || !options.role) {
        err('benefits api-keys create needs --provider NAME and --role admin|employer|read_only');
        return setExitCode(1);
      }
      if (!(API_KEY_ROLES as readonly string[]).includes(options.role)) {
        err(`--role must be one of ${API_KEY_ROLES.join(', ')}`);
        return setExitCode(1);
      }
      const { provider, role } = options;
      await withMigratedDatabase(loadConfig(), async (database) => {
        const created = await new ApiKeyService(database.db, systemClock).createKeyForProvider(
          provider,
          { role: role as ApiKeyRole, employer: options.employer ?? null, name: options.name ?? null },
          options.newProvider === true,
        );
        out(`Created ${created.role} key ${created.id} for provider "${provider}" (${created.provider}).`);
        out(`API key (shown once; store it now): ${created.key}`);
      });
    });
  command(apiKeys, 'list', 'list the API keys of every provider (never the keys themselves)').action(async () => {
    await withMigratedDatabase(loadConfig(), async (database) => {
      const keys = await new ApiKeyService(database.db, systemClock).listAllKeys();
      if (keys.length === 0) return out('No API keys.');
      const rows = keys.map((key) => [
        key.id,
        key.provider_name,
        key.role,
        key.employer ?? '-',
        key.redacted_key,
        key.created_at,
        key.revoked_at ? `revoked ${key.revoked_at}` : 'active',
      ]);
      out(formatTable(['ID', 'PROVIDER', 'ROLE', 'EMPLOYER', 'KEY', 'CREATED', 'STATUS'], rows));
    });
  });
  command(apiKeys, 'revoke <id>', 'revoke an API key; requests with it are refused from then on').action(async (id: string) => {
    await withMigratedDatabase(loadConfig(), async (database) => {
      const revoked = await new ApiKeyService(database.db, systemClock).revokeKey(null, id);
      out(`Revoked ${revoked.id} at ${revoked.revoked_at ?? ''}.`);
    });
  });

  const providers = groupCommand(program, 'providers', 'list the providers (tenants)');
  command(providers, 'list', 'list every provider with its count of active keys').action(async () => {
    await withMigratedDatabase(loadConfig(), async (database) => {
      const rows = await new ApiKeyService(database.db, systemClock).listProviders();
      if (rows.length === 0) return out('No providers yet: the first "benefits serve" creates "default".');
      out(
        formatTable(
          ['ID', 'NAME', 'CREATED', 'ACTIVE KEYS'],
          rows.map((row) => [row.id, row.name, row.created_at, String(row.active_keys)]),
        ),
      );
    });
  });

  command(program, 'sweep', 'apply the daily date rules for one day (default: today in SWEEP_TIME_ZONE) and exit')
    .option('--date <day>', 'the day, YYYY-MM-DD')
    .addHelpText(
      'after',
      `
Applies every date-driven rule for one day against DATABASE_URL, then exits: newly_eligible when a waiting
period ends, dependent_age_out 30 days before a covered child ages out, open_enrollment_reminder 7 days and
1 day before a window's end_date, closing windows past their end_date, and ending the coverage of members
past their termination_date. The day defaults to today in SWEEP_TIME_ZONE. Running it again for a day (or
beside the server's own daily run, at SWEEP_TIME) creates nothing new. Carrier hand-offs it records are sent
by a running server's worker.`,
    )
    .action(async (options: { date?: string }) => {
      const config = loadConfig();
      const day = options.date ?? localDateAndTime(systemClock.now(), config.sweep.timeZone).date;
      if (parseDate(day) === undefined) {
        err(`benefits: --date must be a calendar date YYYY-MM-DD from ${FIRST_DATE} to ${LAST_DATE} (got "${day}")`);
        return setExitCode(1);
      }
      await withMigratedDatabase(config, async (database) => {
        const summary = await buildDailySweep({ db: database.db, clock: systemClock }).run(day);
        out(
          `Sweep of ${day}: ${Object.entries(summary)
            .filter(([key]) => key !== 'day')
            .map(([key, count]) => `${key} ${String(count)}`)
            .join(', ')}.`,
        );
      });
    });

  const census = groupCommand(program, 'census', "import an employer's roster (CSV): a dry run, then the apply");
  command(census, 'import <file>', "check a CSV roster against an employer's members (a dry run) and print the diff; --apply applies it")
    .requiredOption('--employer <id>', 'the employer whose roster the file is')
    .option('--provider <name>', "the provider (tenant) the employer must belong to (default: the employer's own)")
    .option('--apply', 'apply the diff once checked (error rows skipped), as POST /census_imports/{id}/apply')
    .option('--confirm-terminations', "with --apply: confirm terminations above the import's max termination share")
    .option(
      '--max-termination-share <share>',
      'above this share (0 to 1) of employed members terminated, the apply needs --confirm-terminations (default: 0.1)',
      parseShare,
    )
    .option('--show <count>', 'how many errors, warnings and rows not applied to list', parseCount, 20)
    .addHelpText(
      'after',
      `
Reads FILE (CSV with a header row, UTF-8, at most 48 MiB; the columns of docs/decisions.md "Census imports")
and makes the same dry run as POST /census_imports against DATABASE_URL, checked here to the end: nothing is
written to members. Progress goes to stderr (a bar on a terminal, else a line per tenth). Then it prints the
import's id and its diff: rows that create, update or change nothing, rows in error (line, column, message),
warnings, and the employed members missing from the file (listed, never terminated). Without --apply it says
how to apply the reviewed dry run ("benefits census apply ID"); with --apply it applies it at once and prints
what was applied. Changes reach carriers and webhooks through a running server's worker, as for the API.

Exit codes: 0 every row checked (and applied); 1 refused or failed, nothing applied (not a census file, no such
employer, the check failed, terminations to confirm, records changed since the dry run); 2 a command line not
understood; 3 done, but rows were skipped (rows in error, or rows the apply could not apply).`,
    )
    .action(
      async (
        file: string,
        options: { employer: string; provider?: string; apply?: boolean; confirmTerminations?: boolean; maxTerminationShare?: number; show: number },
      ) => {
        const { censusImportCommand } = await import('./commands/census-import.ts');
        const code = await censusImportCommand(
          loadConfig(),
          {
            file,
            employer: options.employer,
            provider: options.provider,
            apply: options.apply === true,
            confirmTerminations: options.confirmTerminations === true,
            maxTerminationShare: options.maxTerminationShare,
            show: options.show,
          },
          { out, progress: process.stderr },
        );
        setExitCode(code);
      },
    );
  command(census, 'apply <id>', 'apply a census import checked before (its id from "census import"), as POST /census_imports/{id}/apply')
    .option('--provider <name>', "the provider (tenant) the import must belong to (default: the import's own)")
    .option('--confirm-terminations', "confirm terminations above the import's max termination share")
    .option('--show <count>', 'how many rows not applied to list', parseCount, 20)
    .addHelpText(
      'after',
      `
Applies exactly the reviewed diff of a census import (error rows skipped), one batch per transaction; again
after a crash, it goes on where it stopped; an applied import is left as it is. Exit codes as "census import".`,
    )
    .action(async (id: string, options: { provider?: string; confirmTerminations?: boolean; show: number }) => {
      const { censusApplyCommand } = await import('./commands/census-import.ts');
      const code = await censusApplyCommand(
        loadConfig(),
        { id, provider: options.provider, confirmTerminations: options.confirmTerminations === true, show: options.show },
        { out, progress: process.stderr },
      );
      setExitCode(code);
    });

  command(program, 'openapi', 'print the OpenAPI document (JSON) and exit; needs no database')
    .addHelpText(
      'after',
      `
Prints the OpenAPI 3.1 document the server serves at /openapi.json, without a database or a server: for
client generators and linters (npm run lint runs redocly on it). It is the same whatever the configuration
(the rate limit headers are documented as sent when RATE_LIMIT_MAX is above 0).`,
    )
    .action(async () => openapi(out));

  command(program, 'demo', 'load a small sandbox (provider "demo": an employer, plans, members, an open enrollment) and print a key to try it')
    .addHelpText(
      'after',
      `
Loads, through the same services as the API, into DATABASE_URL: the provider "demo" with an employer, a carrier
and its group, medical, dental and vision plans, five members (some with a spouse and children) and an active
open enrollment window; then prints what it made and an admin key of "demo". Runs the start checks of serve
(database, BENEFITS_ENCRYPTION_KEY). Run twice, it refuses: the sandbox is there already.`,
    )
    .action(async () => {
      const config = loadConfig();
      const { loadDemo } = await import('./demo/demo.ts');
      await loadDemo(config, out);
    });

  return program;
}

function helpCommandOf(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  return `${names.join(' ')} --help`;
}

function parseShare(value: string): number {
  const share = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || share > 1) throw new InvalidArgumentError('it must be a number from 0 to 1, e.g. 0.1');
  return share;
}

function parseCount(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new InvalidArgumentError('it must be a whole number from 0 to 999999');
  return Number(value);
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('it must be a whole number from 0 to 65535');
  return Number(value);
}

// The HTTP app (Fastify, the schemas, every route) is loaded only by the commands that serve or describe it: the
// others, `sweep` above all, run without it (src/background.ts).
async function serve(config: Config): Promise<never> {
  const { closeOnSignals, startServer } = await import('./server.ts');
  const server = await startServer(config);
  closeOnSignals(server, config.shutdownTimeoutMs);
  // Ready once a SIGTERM would shut it down gracefully (a supervisor may send one as soon as it reads this).
  server.app.log.info({ database: server.database.description }, 'benefits service ready');
  // Keeps running; the signal handlers end the process.
  return new Promise<never>(() => undefined);
}

/** Opens DATABASE_URL for a command, with the start's one-line messages when it cannot (start/start-errors.ts). */
async function withDatabase(config: Config, work: (database: DatabaseHandle) => Promise<void>): Promise<void> {
  const description = describeDatabase(config.databaseUrl);
  const database = openStartDatabase(config.databaseUrl);
  try {
    await probeDatabase(database);
    await work(database);
  } catch (error) {
    throw asStartError(error, description);
  } finally {
    await database.close();
  }
}

function withMigratedDatabase(config: Config, work: (database: DatabaseHandle) => Promise<void>): Promise<void> {
  return withDatabase(config, async (database) => {
    await migrateToLatest(database.db);
    await work(database);
  });
}

/**
 * The document of an app built on an empty in-memory database: the routes and their schemas are all it reads.
 * It serves no request, so its encryption key encrypts nothing.
 */
async function openapi(out: Output): Promise<void> {
  const config = { ...loadConfig(), databaseUrl: 'sqlite::memory:', logLevel: 'silent' as const };
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    const { buildApp } = await import('./app.ts');
    const app = await buildApp({ config, db: database.db, clock: systemClock, encryptionKey: Buffer.alloc(32) });
    await app.ready();
    out(JSON.stringify(app.swagger(), null, 2));
    await app.close();
  } finally {
    await database.close();
  }
}
