import type pg from 'pg';

/** How many distinct statement texts get a name (process-wide), and the most parameters a named one may take. */
export const MAX_NAMED_STATEMENTS = 2_000;
export const MAX_NAMED_PARAMETERS = 100;

/** PostgreSQL's "cached plan must not change result type": a prepared `select *` after its table gained a column. */
const CACHED_PLAN_CHANGED = '0A000';

const statementNames = new Map<string, number>();

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * Makes every parameterized statement of a pooled PostgreSQL connection a named prepared statement, so that
 * PostgreSQL parses it once per connection instead of on every call (the enrollment-approvals bench: about a
 * third less PostgreSQL CPU per enrollment). Kysely sends the same text for the same query shape, so the names
 * stay few; texts beyond MAX_NAMED_STATEMENTS, statements with more than MAX_NAMED_PARAMETERS parameters (bulk
 * inserts of varying size) and statements without parameters (begin, commit) go unnamed, as before.
 *
 * A migration that adds a column while this process runs (another process deploying) makes PostgreSQL refuse a
 * prepared `select *` of that table once (SQLSTATE 0A000). The connection then forgets its prepared statements
 * (new names from then on); the statement is sent again at once when no transaction was open, and otherwise
 * the transaction fails as any failed statement does (its request answers 500, nothing written); the next one
 * on that connection prepares anew.
 */
export function prepareStatementsOf(client: pg.PoolClient): void {
  const query = client.query.bind(client) as Query;
  let generation = 0;
  let inTransaction = false;
  (client as unknown as { query: Query }).query = async (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string' && args.length <= 2) inTransaction = transactionStateAfter(text, inTransaction);
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || values.length > MAX_NAMED_PARAMETERS || args.length > 2)
      return query(...args);
    const id = statementIdOf(text);
    if (id === undefined) return query(text, values);
    try {
      return await query({ name: `s${id}_${generation}`, text, values });
    } catch (error) {
      if ((error as { code?: unknown }).code !== CACHED_PLAN_CHANGED) throw error;
      generation += 1;
      if (inTransaction) throw error;
      return query({ name: `s${id}_${generation}`, text, values });
    }
  };
}

/** The process-wide number of a statement text; undefined once MAX_NAMED_STATEMENTS texts have one. */
function statementIdOf(text: string): number | undefined {
  let id = statementNames.get(text);
  if (id === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    id = statementNames.size + 1;
    statementNames.set(text, id);
  }
  return id;
}

/** Whether a transaction is open after `text` ran on a connection where one was (`open`) or was not. */
function transactionStateAfter(text: string, open: boolean): boolean {
  const head = text.trimStart().slice(0, 20).toLowerCase();
  if (head.startsWith('begin') || head.startsWith('start transaction')) return true;
  if (head.startsWith('commit') || head.startsWith('rollback') || head.startsWith('end') || head.startsWith('abort'))
    return head.startsWith('rollback to') ? open : false;
  return open;
}
