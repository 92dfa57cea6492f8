import { CompiledQuery, PostgresAdapter } from 'kysely';
import type { Executor } from './database.ts';

/** A value, no value, or a list of values (an `in (...)` list: its length is part of the shape). */
type Argument = string | null | readonly string[];

interface Template {
  sql: string;
  /** Per bound parameter: the argument it takes (and the element, for a list), or the constant it always has. */
  parameters: ({ argument: number; element?: number } | { constant: unknown })[];
}

/**
 * A query Kysely builds and compiles once per shape; later calls only bind their values. For the reads every
 * request makes (a record by id): compiling the same SELECT each time cost about a tenth of a cached GET.
 * Each argument must reach the query as bound values, unchanged (or not at all). A null argument (no employer in the
 * scope) may change the query's shape, so which arguments are null is part of the shape, as is the database, and
 * so is the length of a list (`in (?, ?)` is another text than `in (?)`). An empty list is refused: Kysely would
 * write `in ()`, which neither database accepts; callers answer an empty list without a query.
 * A query that locks (forUpdate) declares `trx: Transaction<Database>` as its first parameter, and then only
 * runs in a transaction.
 */
export function cachedQuery<Args extends readonly Argument[], Row, Db extends Executor = Executor>(
  build: (db: Db, ...args: Args) => { compile(): CompiledQuery<Row> },
  options: { rememberable?: boolean } = {},
): (db: Db, ...args: Args) => Promise<Row[]> {
  const templates = new Map<string, Template>();
  return async (db, ...args) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    // A long list (a page's worth of ids) is rare and would keep a long text per length: built as usual.
    if (args.some((argument) => Array.isArray(argument) && argument.length > MAX_CACHED_LIST))
      return (await db.executeQuery(build(db, ...args).compile())).rows;
    const shape = `${postgres ? 'p' : 's'}${args.map((argument) => (argument === null ? '0' : typeof argument === 'string' ? '1' : `[${argument.length}]`)).join('')}`;
    let template = templates.get(shape);
    if (!template) {
      if (args.some((argument) => Array.isArray(argument) && argument.length === 0)) throw new Error('cachedQuery: an empty list has no query');
      if (templates.size >= MAX_SHAPES) templates.clear();
      template = compileTemplate(db, build, args);
      templates.set(shape, template);
    }
    const parameters = template.parameters.map((parameter) => {
      if (!('argument' in parameter)) return parameter.constant;
      const argument = args[parameter.argument];
      return parameter.element === undefined ? argument : (argument as readonly string[])[parameter.element];
    });
    const memo = options.rememberable ? rememberedReads.get(db) : undefined;
    if (!memo) return (await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters))).rows;
    const key = `${template.sql}\u0000${JSON.stringify(parameters)}`;
    let rows = memo.get(key) as Row[] | undefined;
    if (!rows) {
      rows = (await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters))).rows;
      memo.set(key, rows);
    }
    // Copies: a caller that changes a row it was given must not change what the next caller is given.
    return rows.map((row) => ({ ...row }));
  };
}

/** Transactions that remember their reads of reference data (rememberReads): answers by statement and values. */
const rememberedReads = new WeakMap<Executor, Map<string, unknown[]>>();

/**
 * From now on, `trx` answers each `rememberable` query (reference data that a transaction changing members
 * reads again for every member: plans, plan configurations, groups' connection methods, webhook endpoints)
 * from its first answer with the same values. Only for a transaction that writes none of that data (a sweep
 * batch): it then sees it as of its first read, as a snapshot would. About a fifth of a sweep's statements.
 */
export function rememberReads(trx: Executor): void {
  if (!rememberedReads.has(trx)) rememberedReads.set(trx, new Map());
}

/** Shapes kept per query: one per list length in use, and a query's lists are short (a member's plans). */
const MAX_SHAPES = 200;

/** Longest list a cached shape takes; a longer one is built and compiled for the call. */
const MAX_CACHED_LIST = 32;

function compileTemplate<Args extends readonly Argument[], Row, Db extends Executor>(
  db: Db,
  build: (db: Db, ...args: Args) => { compile(): CompiledQuery<Row> },
  args: Args,
): Template {
  // Stand-ins no real value can equal: wherever one comes back as a whole parameter, that argument is bound.
  // An argument may go unused (the employer of a scope, on provider-wide records), but never be transformed
  // (a LIKE pattern) or written into the SQL text: its value would then be frozen into the template.
  const marker = (index: number, element?: number) => `\u0000cached-query-argument-${index}${element === undefined ? '' : `-${element}`}\u0000`;
  const stand: Argument[] = args.map((argument, index) =>
    argument === null ? null : typeof argument === 'string' ? marker(index) : argument.map((_value, element) => marker(index, element)),
  );
  const places = new Map<string, { argument: number; element?: number }>();
  stand.forEach((argument, index) => {
    if (typeof argument === 'string') places.set(argument, { argument: index });
    else if (argument !== null) argument.forEach((value, element) => places.set(value, { argument: index, element }));
  });
  const compiled = build(db, ...(stand as unknown as Args)).compile();
  const hidesMarker = (text: string) => [...places.keys()].some((placed) => text.includes(placed));
  const parameters = compiled.parameters.map((value) => {
    const place = typeof value === 'string' ? places.get(value) : undefined;
    if (place) return place;
    if ((typeof value === 'string' && hidesMarker(value)) || (typeof value === 'object' && value !== null && hidesMarker(JSON.stringify(value)))) {
      throw new Error('cachedQuery: every argument must be bound as it is, not transformed');
    }
    return { constant: value };
  });
  if (hidesMarker(compiled.sql)) throw new Error('cachedQuery: every argument must be bound as it is, not written into the SQL');
  return { sql: compiled.sql, parameters };
}
