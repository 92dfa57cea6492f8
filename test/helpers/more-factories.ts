import type { ApiClient, ApiResponse, TestContext } from './test-app.ts';
import { createEmployer } from './factories.ts';

/** The `field` of every entry of an error body's `input_errors`. */
export function errorFields(response: ApiResponse): string[] {
  const errors = (response.body as { input_errors?: { field: string }[] } | undefined)?.input_errors ?? [];
  return errors.map((error) => error.field);
}

/** The ids of a list page, in the order the API returned them. */
export function idsOf(response: ApiResponse): string[] {
  return (response.body as { results: { id: string }[] }).results.map((record) => record.id);
}

let providerCount = 0;

/** An admin client of a provider of its own, so that its lists hold only what the test creates. */
export function newProviderAdmin(t: TestContext, name = 'provider'): Promise<ApiClient> {
  providerCount += 1;
  return t.client('admin', { provider: `${name}-${providerCount}-${Date.now()}` });
}

/**
 * Creates records one after another with the clock moved a second before each, so that they have distinct
 * created_at values and "newest first" is the reverse of creation order.
 */
export async function createInSequence<T>(t: TestContext, count: number, create: (index: number) => Promise<T>): Promise<T[]> {
  const records: T[] = [];
  for (let index = 0; index < count; index++) {
    t.clock.advance(1000);
    records.push(await create(index));
  }
  return records;
}

/** An employer of the default provider and an employer-scoped key limited to it. */
export async function createEmployerWithKey(t: TestContext) {
  const employer = await createEmployer(t.admin, { legal_name: 'Scoped Employer Inc' });
  return { employer, client: await t.client('employer', { employer: employer.id }) };
}
