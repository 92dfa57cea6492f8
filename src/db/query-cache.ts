import { CompiledQuery, PostgresAdapter } from 'kysely';
import type { Executor } from './database.ts';

type Argument = string | null;

interface Template {
  sql: string;
  /** Per bound parameter: the index of the argument it takes, or the constant it always has. */
  parameters: ({ argument: number } | { constant: unknown })[];
}

/**
 * A query Kysely builds and compiles once per shape; later calls only bind their values. For the reads every
 * request makes (a record by id): compiling the same SELECT each time cost about a tenth of a cached GET.
 * Each argument must reach the query as bound values, unchanged (or not at all). A null argument (no employer in the
 * scope) may change the query's shape, so which arguments are null is part of the shape, as is the database.
 */
export function cachedQuery<Args extends readonly Argument[], Row>(
  build: (db: Executor, ...args: Args) => { compile(): CompiledQuery<Row> },
): (db: Executor, ...args: Args) => Promise<Row[]> {
  const templates = new Map<string, Template>();
  return async (db, ...args) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    const shape = `${postgres ? 'p' : 's'}${args.map((argument) => (argument === null ? '0' : '1')).join('')}`;
    let template = templates.get(shape);
    if (!template) {
      template = compileTemplate(db, build, args);
      templates.set(shape, template);
    }
    const parameters = template.parameters.map((parameter) => ('argument' in parameter ? args[parameter.argument] : parameter.constant));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}

function compileTemplate<Args extends readonly Argument[], Row>(
  db: Executor,
  build: (db: Executor, ...args: Args) => { compile(): CompiledQuery<Row> },
  args: Args,
): Template {
  // Stand-ins no real value can equal: wherever one comes back as a whole parameter, that argument is bound.
  // An argument may go unused (the employer of a scope, on provider-wide records), but never be transformed
  // (a LIKE pattern) or written into the SQL text: its value would then be frozen into the template.
  const markers = args.map((argument, index) => (argument === null ? null : `\u0000cached-query-argument-${index}\u0000`));
  const compiled = build(db, ...(markers as unknown as Args)).compile();
  const hidesMarker = (text: string) => markers.some((marker) => marker !== null && text.includes(marker));
  const parameters = compiled.parameters.map((value) => {
    const argument = typeof value === 'string' ? markers.indexOf(value) : -1;
    if (argument >= 0) return { argument };
    if ((typeof value === 'string' && hidesMarker(value)) || (typeof value === 'object' && value !== null && hidesMarker(JSON.stringify(value)))) {
      throw new Error('cachedQuery: every argument must be bound as it is, not transformed');
    }
    return { constant: value };
  });
  if (hidesMarker(compiled.sql)) throw new Error('cachedQuery: every argument must be bound as it is, not written into the SQL');
  return { sql: compiled.sql, parameters };
}
