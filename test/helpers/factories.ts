import type { ApiClient } from './test-app.ts';

/** Realistic records created through the API, with overrides. Each returns the created record. */
export const address = (overrides: Record<string, unknown> = {}) => ({
  line1: '100 Market Street',
  city: 'Springfield',
  state: 'IL',
  zip_code: '62701',
  ...overrides,
});

async function created(client: ApiClient, path: string, body: Record<string, unknown>) {
  const response = await client.post(path, body);
  if (response.status !== 201) {
    throw new Error(`POST ${path} answered ${response.status}: ${response.text}`);
  }
  return response.body;
}

export function createEmployer(client: ApiClient, overrides: Record<string, unknown> = {}) {
  return created(client, '/employers', { legal_name: 'Acme Manufacturing LLC', address: address(), ...overrides });
}

export function createCarrier(client: ApiClient, overrides: Record<string, unknown> = {}) {
  return created(client, '/carriers', { legal_name: 'Blue Shield of Illinois', trade_name: 'Blue Shield', ...overrides });
}

export async function createGroup(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const employer = overrides.employer ?? (await createEmployer(client)).id;
  const carrier = overrides.carrier ?? (await createCarrier(client)).id;
  return created(client, '/groups', { group_number: 'GRP-1001', ...overrides, employer, carrier });
}

export async function createBusinessUnit(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const employer = overrides.employer ?? (await createEmployer(client)).id;
  return created(client, '/business_units', { legal_name: 'Acme East', ...overrides, employer });
}

export async function createMember(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const employer = overrides.employer ?? (await createEmployer(client)).id;
  return created(client, '/members', {
    first_name: 'Dana',
    last_name: 'Rivera',
    dob: '1988-04-12',
    address: address(),
    hire_date: '2024-01-15',
    ...overrides,
    employer,
  });
}

export async function createSubclass(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const employer = overrides.employer ?? (await createEmployer(client)).id;
  return created(client, '/subclasses', { category: 'department', name: 'Engineering', ...overrides, employer });
}
