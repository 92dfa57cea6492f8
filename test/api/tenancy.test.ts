import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, createTestApp, type TestContext } from '../helpers/test-app.ts';
import { address, createBusinessUnit, createCarrier, createEmployer, createGroup, createSubclass } from '../helpers/factories.ts';
import { errorFields, idsOf } from '../helpers/more-factories.ts';

/**
 * Who sees and changes what, over every route of employers, carriers, groups, business units, subclasses and
 * API keys. Provider A is the default provider of the test app (employers E1 and E2); provider B is another.
 */

type Resource = 'employers' | 'carriers' | 'groups' | 'business_units' | 'subclasses' | 'api_keys';
type AnyRecord = { id: string } & Record<string, unknown>;

interface World {
  /** Admin of provider B. */
  adminB: ApiClient;
  /** An employer key of A's employer E1. */
  employerKeyE1: ApiClient;
  /** A read-only key of A, for the whole provider. */
  readOnly: ApiClient;
  /** A read-only key of A, limited to E1. */
  readOnlyE1: ApiClient;
  e1: AnyRecord;
  e2: AnyRecord;
  carrier: AnyRecord;
  /** A's records per resource: one of E1 and one of E2 (for carriers and API keys, two of the provider). */
  records: Record<Resource, { e1: AnyRecord; e2: AnyRecord }>;
  /** One record of B per resource, so that B's lists are never trivially empty. */
  recordsOfB: Record<Resource, AnyRecord>;
}

let t: TestContext;
const w = {} as World;

async function createApiKey(client: ApiClient, body: Record<string, unknown> = { role: 'read_only' }): Promise<AnyRecord> {
  const response = await client.post('/api_keys', body);
  if (response.status !== 201) throw new Error(`POST /api_keys answered ${response.status}: ${response.text}`);
  return response.body;
}

beforeAll(async () => {
  t = await createTestApp();
  const a = t.admin;
  w.adminB = await t.client('admin', { provider: 'tenancy-provider-b' });
  w.e1 = await createEmployer(a, { legal_name: 'E1 Foods Inc' });
  w.e2 = await createEmployer(a, { legal_name: 'E2 Logistics Inc' });
  w.carrier = await createCarrier(a);
  w.employerKeyE1 = await t.client('employer', { employer: w.e1.id });
  w.readOnly = await t.client('read_only');
  w.readOnlyE1 = await t.client('read_only', { employer: w.e1.id });
  const ofEmployer = async (create: (employer: string) => Promise<AnyRecord>) => ({ e1: await create(w.e1.id), e2: await create(w.e2.id) });
  w.records = {
    employers: { e1: w.e1, e2: w.e2 },
    carriers: { e1: w.carrier, e2: await createCarrier(a, { legal_name: 'Second Carrier' }) },
    groups: await ofEmployer((employer) => createGroup(a, { employer, carrier: w.carrier.id })),
    business_units: await ofEmployer((employer) => createBusinessUnit(a, { employer })),
    subclasses: await ofEmployer((employer) => createSubclass(a, { employer })),
    api_keys: { e1: await createApiKey(a, { role: 'employer', employer: w.e1.id }), e2: await createApiKey(a, { role: 'employer', employer: w.e2.id }) },
  };
  const b = w.adminB;
  const employerOfB = await createEmployer(b);
  w.recordsOfB = {
    employers: employerOfB,
    carriers: await createCarrier(b),
    groups: await createGroup(b, { employer: employerOfB.id }),
    business_units: await createBusinessUnit(b, { employer: employerOfB.id }),
    subclasses: await createSubclass(b, { employer: employerOfB.id }),
    api_keys: await createApiKey(b),
  };
});
afterAll(async () => {
  await t.close();
});

/** A valid create body per resource, for an employer where the resource belongs to one. */
const CREATE_BODY: Record<Resource, (employer: string) => Record<string, unknown>> = {
  employers: () => ({ legal_name: 'New Employer LLC', address: address() }),
  carriers: () => ({ legal_name: 'New Carrier Co' }),
  groups: (employer) => ({ group_number: 'G-NEW', carrier: w.carrier.id, employer }),
  business_units: (employer) => ({ employer, legal_name: 'New Unit' }),
  subclasses: (employer) => ({ employer, category: 'location', name: 'New Site' }),
  api_keys: () => ({ role: 'read_only' }),
};

/** A valid PATCH body per resource that has PATCH. */
const PATCH_BODY: Partial<Record<Resource, Record<string, unknown>>> = {
  employers: { trade_name: 'Renamed' },
  carriers: { trade_name: 'Renamed' },
  groups: { group_number: 'G-RENAMED' },
  business_units: { trade_name: 'Renamed' },
  subclasses: { name: 'Renamed' },
};

const PATCHABLE = Object.keys(PATCH_BODY) as Resource[];
/** Resources with GET /x/{id}. */
const READABLE: Resource[] = ['employers', 'carriers', 'groups', 'business_units', 'subclasses'];
/** Resources confined to one employer: an employer key sees only its own. */
const EMPLOYER_BOUND: Resource[] = ['employers', 'groups', 'business_units', 'subclasses'];
/** Resources whose create names an employer. */
const OF_AN_EMPLOYER: Resource[] = ['groups', 'business_units', 'subclasses'];
const ALL: Resource[] = ['employers', 'carriers', 'groups', 'business_units', 'subclasses', 'api_keys'];

interface Route {
  /** As the API documents it, e.g. `PATCH /groups/{id}`. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  resource: Resource;
  /** The path, built once the world exists. */
  path: () => string;
  body?: () => unknown;
}

/** Every route of these six resources, addressing records of A's employer E1. */
const ROUTES: Route[] = ALL.flatMap((resource): Route[] => {
  const base = `/${resource}`;
  const id = () => w.records[resource].e1.id;
  const routes: Route[] = [
    { name: `POST ${base}`, method: 'POST', resource, path: () => base, body: () => CREATE_BODY[resource](w.e1.id) },
    { name: `GET ${base}`, method: 'GET', resource, path: () => base },
  ];
  if (READABLE.includes(resource)) routes.push({ name: `GET ${base}/{id}`, method: 'GET', resource, path: () => `${base}/${id()}` });
  const patch = PATCH_BODY[resource];
  if (patch) routes.push({ name: `PATCH ${base}/{id}`, method: 'PATCH', resource, path: () => `${base}/${id()}`, body: () => patch });
  if (resource === 'api_keys') routes.push({ name: `DELETE ${base}/{id}`, method: 'DELETE', resource, path: () => `${base}/${id()}` });
  return routes;
});
const ROUTE_TABLE = ROUTES.map((route) => [route.name, route] as const);
const WRITE_ROUTES = ROUTE_TABLE.filter(([, route]) => route.method !== 'GET');
const READ_ROUTES = ROUTE_TABLE.filter(([, route]) => route.method === 'GET' && route.resource !== 'api_keys');

function send(client: ApiClient, route: Route) {
  return client.request(route.method, route.path(), { body: route.body?.() });
}

describe('every route', () => {
  it('when the table is built, then it covers every route of these six resources', () => {
    expect(ROUTE_TABLE.map(([name]) => name).sort()).toEqual(
      [
        'DELETE /api_keys/{id}',
        'GET /api_keys',
        'POST /api_keys',
        ...['employers', 'carriers', 'groups', 'business_units', 'subclasses'].flatMap((r) => [
          `GET /${r}`,
          `POST /${r}`,
          `GET /${r}/{id}`,
          `PATCH /${r}/{id}`,
        ]),
      ].sort(),
    );
  });

  it.each(ROUTE_TABLE)('when %s is called without a key, then 401 authentication_error', async (_name, route) => {
    const response = await send(t.anonymous, route);
    expect(response.status).toBe(401);
    expect(response.body.type).toBe('authentication_error');
  });
});

describe('unsupported methods', () => {
  it.each([
    ['DELETE', '/employers/er_any'],
    ['DELETE', '/carriers/carr_any'],
    ['DELETE', '/groups/grp_any'],
    ['DELETE', '/business_units/bu_any'],
    ['DELETE', '/subclasses/sub_any'],
    ['PUT', '/groups/grp_any'],
    ['POST', '/subclasses/sub_any'],
    ['GET', '/api_keys/key_any'],
    ['PATCH', '/api_keys/key_any'],
    ['DELETE', '/carriers'],
  ])('when %s %s is called, then 405 method_not_allowed, even without a key', async (method, path) => {
    const response = await t.anonymous.request(method, path);
    expect(response.status).toBe(405);
    expect(response.body.type).toBe('method_not_allowed');
  });
});

describe('between providers', () => {
  it.each(READABLE)("when B's admin reads A's %s record by id, then 404 (A's admin reads it)", async (resource) => {
    const record = w.records[resource].e1;
    expect((await t.admin.get(`/${resource}/${record.id}`)).status).toBe(200);
    const response = await w.adminB.get(`/${resource}/${record.id}`);
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
  });

  it.each(PATCHABLE)("when B's admin patches A's %s record, then 404 and the record is unchanged", async (resource) => {
    const record = w.records[resource].e2;
    const before = (await t.admin.get(`/${resource}/${record.id}`)).body;
    const response = await w.adminB.patch(`/${resource}/${record.id}`, PATCH_BODY[resource]);
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
    expect((await t.admin.get(`/${resource}/${record.id}`)).body).toEqual(before);
  });

  it("when B's admin revokes A's API key, then 404 and the key stays active", async () => {
    const key = w.records.api_keys.e2;
    const response = await w.adminB.delete(`/api_keys/${key.id}`);
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
    const listed = (await t.admin.get('/api_keys?page_size=100')).body.results.find((k: AnyRecord) => k.id === key.id);
    expect(listed.revoked_at).toBeNull();
  });

  it.each(ALL)("when B's admin lists %s, then A's records are absent and B's own are there", async (resource) => {
    const response = await w.adminB.get(`/${resource}?page_size=100`);
    expect(response.status).toBe(200);
    const ids = idsOf(response);
    expect(ids).toContain(w.recordsOfB[resource].id);
    expect(ids).not.toContain(w.records[resource].e1.id);
    expect(ids).not.toContain(w.records[resource].e2.id);
  });

  it.each(OF_AN_EMPLOYER)("when B's admin lists %s with ?employer= of A's employer, then the list is empty", async (resource) => {
    const response = await w.adminB.get(`/${resource}?employer=${w.e1.id}`);
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
  });

  it.each([
    ['groups', 'carrier', () => ({ group_number: 'G-1', carrier: w.carrier.id, employer: w.recordsOfB.employers.id })],
    ['groups', 'employer', () => ({ group_number: 'G-1', carrier: w.recordsOfB.carriers.id, employer: w.e1.id })],
    ['business_units', 'employer', () => ({ employer: w.e1.id, legal_name: 'Trespass' })],
    ['subclasses', 'employer', () => ({ employer: w.e1.id, category: 'department', name: 'Trespass' })],
    ['api_keys', 'employer', () => ({ role: 'employer', employer: w.e1.id })],
  ] as const)("when B's admin creates %s naming A's %s, then 400 with that field in input_errors", async (resource, field, body) => {
    const response = await w.adminB.post(`/${resource}`, body());
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual([field]);
  });

  it("when B's admin patches its group to A's carrier, then 400 naming carrier", async () => {
    const response = await w.adminB.patch(`/groups/${w.recordsOfB.groups.id}`, { carrier: w.carrier.id });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['carrier']);
  });
});

describe('employer-scoped keys', () => {
  const SCOPED_READERS = [
    ['an employer key of E1', () => w.employerKeyE1],
    ['a read-only key limited to E1', () => w.readOnlyE1],
  ] as const;
  const readerTable = SCOPED_READERS.flatMap(([who, client]) => EMPLOYER_BOUND.map((resource) => [who, resource, client] as const));

  it.each(readerTable)("when %s reads E2's %s record by id, then 404 (its own E1 record reads 200)", async (_who, resource, client) => {
    expect((await client().get(`/${resource}/${w.records[resource].e1.id}`)).status).toBe(200);
    const response = await client().get(`/${resource}/${w.records[resource].e2.id}`);
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
  });

  it.each(EMPLOYER_BOUND)("when an employer key of E1 patches E2's %s record, then 404 and the record is unchanged", async (resource) => {
    const record = w.records[resource].e2;
    const response = await w.employerKeyE1.patch(`/${resource}/${record.id}`, PATCH_BODY[resource]);
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
    expect((await t.admin.get(`/${resource}/${record.id}`)).body).toEqual(record);
  });

  it.each(EMPLOYER_BOUND)("when an employer key of E1 patches E1's %s record, then 200", async (resource) => {
    const response = await w.employerKeyE1.patch(`/${resource}/${w.records[resource].e1.id}`, PATCH_BODY[resource]);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject(PATCH_BODY[resource]!);
  });

  it.each(OF_AN_EMPLOYER)('when an employer key of E1 creates %s for E2, then 400 naming employer and nothing is created', async (resource) => {
    const response = await w.employerKeyE1.post(`/${resource}`, CREATE_BODY[resource](w.e2.id));
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('validation_error');
    expect(errorFields(response)).toEqual(['employer']);
    expect(idsOf(await t.admin.get(`/${resource}?employer=${w.e2.id}&page_size=100`))).toEqual([w.records[resource].e2.id]);
  });

  it.each(OF_AN_EMPLOYER)('when an employer key of E1 creates %s for E1, then 201', async (resource) => {
    const response = await w.employerKeyE1.post(`/${resource}`, CREATE_BODY[resource](w.e1.id));
    expect(response.status).toBe(201);
    expect(response.body.employer).toBe(w.e1.id);
  });

  it.each(['employers', 'carriers', 'api_keys'] as const)('when an employer key creates %s, then 403 permission_error', async (resource) => {
    const response = await w.employerKeyE1.post(`/${resource}`, CREATE_BODY[resource](w.e1.id));
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('permission_error');
  });

  const listTable = SCOPED_READERS.flatMap(([who, client]) => OF_AN_EMPLOYER.map((resource) => [who, resource, client] as const));

  it.each(listTable)("when %s lists %s, then only E1's records come, and ?employer=E2 gives an empty list", async (_who, resource, client) => {
    const all = await client().get(`/${resource}?page_size=100`);
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBeGreaterThan(0);
    expect(all.body.results.every((record: AnyRecord) => record.employer === w.e1.id)).toBe(true);
    expect(idsOf(all)).toContain(w.records[resource].e1.id);
    const own = await client().get(`/${resource}?employer=${w.e1.id}&page_size=100`);
    expect(idsOf(own)).toEqual(idsOf(all));
    const other = await client().get(`/${resource}?employer=${w.e2.id}`);
    expect(other.status).toBe(200);
    expect(other.body.results).toEqual([]);
  });

  it.each(SCOPED_READERS)('when %s lists employers, then only E1 comes', async (_who, client) => {
    const response = await client().get('/employers?page_size=100');
    expect(response.status).toBe(200);
    expect(idsOf(response)).toEqual([w.e1.id]);
  });

  it.each(SCOPED_READERS)("when %s reads carriers, then it sees the provider's carriers", async (_who, client) => {
    const list = await client().get('/carriers?page_size=100');
    expect(idsOf(list)).toEqual(expect.arrayContaining([w.records.carriers.e1.id, w.records.carriers.e2.id]));
    expect((await client().get(`/carriers/${w.carrier.id}`)).status).toBe(200);
  });
});

describe('read-only keys', () => {
  /** Everything of a resource that A's admin can see, to show that a refused write changed nothing. */
  async function everything(resource: Resource) {
    return (await t.admin.get(`/${resource}?page_size=100`)).body.results as AnyRecord[];
  }

  const writers = [
    ['a read-only key', () => w.readOnly],
    ['a read-only key limited to E1', () => w.readOnlyE1],
  ] as const;
  const writeTable = writers.flatMap(([who, client]) => WRITE_ROUTES.map(([name, route]) => [who, name, route, client] as const));

  it.each(writeTable)('when %s calls %s, then 403 permission_error and nothing changes', async (_who, _name, route, client) => {
    const before = await everything(route.resource);
    const response = await send(client(), route);
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('permission_error');
    expect(await everything(route.resource)).toEqual(before);
  });

  it.each(READ_ROUTES)('when a read-only key calls %s, then 200', async (_name, route) => {
    const response = await send(w.readOnly, route);
    expect(response.status).toBe(200);
  });

  it('when a read-only key lists API keys, then 403 (managing keys is for admin keys only)', async () => {
    const response = await w.readOnly.get('/api_keys');
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('permission_error');
  });
});
