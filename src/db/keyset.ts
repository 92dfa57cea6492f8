import { sql, type SelectQueryBuilder } from 'kysely';

/**
 * Keyset pagination on (created_at, id), newest first (docs/decisions.md "Pagination"). The cost of a page depends on
 * the page size, never on how deep the page is: each query seeks the index to the cursor and reads page_size + 1
 * rows.
 */
export interface Position {
  readonly created_at: string;
  readonly id: string;
}

export interface PageRequest {
  readonly pageSize: number;
  /** Rows older than this (the `next` direction). */
  readonly after?: Position;
  /** Rows newer than this (the `previous` direction). */
  readonly before?: Position;
}

export interface Page<T> {
  readonly results: T[];
  readonly hasNext: boolean;
  readonly hasPrevious: boolean;
}

export async function paginate<DB, TB extends keyof DB, O extends Position>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  table?: string,
): Promise<Page<O>> {
  const createdAt = sql.ref(table ? `${table}.created_at` : 'created_at');
  const id = sql.ref(table ? `${table}.id` : 'id');
  const limit = page.pageSize + 1;

  if (page.before) {
    const rows = await query
      .where(sql<boolean>`(${createdAt}, ${id}) > (${page.before.created_at}, ${page.before.id})`)
      .orderBy(createdAt, 'asc')
      .orderBy(id, 'asc')
      .limit(limit)
      .execute();
    const hasPrevious = rows.length > page.pageSize;
    return { results: rows.slice(0, page.pageSize).reverse(), hasNext: true, hasPrevious };
  }

  let ordered = query;
  if (page.after) {
    ordered = ordered.where(sql<boolean>`(${createdAt}, ${id}) < (${page.after.created_at}, ${page.after.id})`);
  }
  const rows = await ordered.orderBy(createdAt, 'desc').orderBy(id, 'desc').limit(limit).execute();
  return { results: rows.slice(0, page.pageSize), hasNext: rows.length > page.pageSize, hasPrevious: page.after !== undefined };
}

/** Applies a row mapper to every result of a page. */
export function mapPage<T, U>(page: Page<T>, map: (row: T) => U): Page<U> {
  return { ...page, results: page.results.map(map) };
}
