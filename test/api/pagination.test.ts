import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type ApiClient, type TestContext } from '../helpers/test-app.ts';
import { createEmployer } from '../helpers/factories.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://benefits.example.com/' } });
});
afterAll(async () => {
  await t.close();
});

async function seed(client: ApiClient, count: number, sameInstantEvery = 3): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Several records share a created_at, so the id tie-breaker is exercised.
    if (i % sameInstantEvery === 0) t.clock.advance(1000);
    ids.push((await createEmployer(client, { legal_name: `Employer ${i}` })).id);
  }
  return ids;
}

function localPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

describe('cursor pagination', () => {
  it('when walking forward, then pages are newest first with no duplicates and no gaps, and the last page has no next', async () => {
    const client = await t.client('admin', { provider: 'walk-forward' });
    await seed(client, 12);
    const seen: string[] = [];
    let response = await client.get('/employers?page_size=5');
    expect(response.body.previous).toBeNull();
    for (;;) {
      seen.push(...response.body.results.map((e: { id: string }) => e.id));
      if (!response.body.next) break;
      response = await client.get(localPath(response.body.next));
      expect(response.status).toBe(200);
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
    const all = (await client.get('/employers?page_size=100')).body.results.map((e: { id: string }) => e.id);
    expect(seen).toEqual(all);
    const createdAts = (await client.get('/employers?page_size=100')).body.results.map((e: { created_at: string }) => e.created_at);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);
  });

  it('when records are inserted while walking forward and back, then nothing is duplicated or skipped', async () => {
    const client = await t.client('admin', { provider: 'walk-both-ways' });
    const original = await seed(client, 10);
    const first = await client.get('/employers?page_size=4');
    t.clock.advance(1000);
    const inserted = await createEmployer(client, { legal_name: 'Inserted while paging' });
    const second = await client.get(localPath(first.body.next));
    const third = await client.get(localPath(second.body.next));
    expect(third.body.next).toBeNull();
    const forward = [first, second, third].flatMap((r) => r.body.results.map((e: { id: string }) => e.id));
    const all = (await client.get('/employers?page_size=100')).body.results.map((e: { id: string }) => e.id);
    expect(forward).toEqual(all.filter((id: string) => id !== inserted.id));
    expect(new Set(forward)).toEqual(new Set(original));
    expect(forward).not.toContain(inserted.id);

    const backToSecond = await client.get(localPath(third.body.previous));
    expect(backToSecond.body.results).toEqual(second.body.results);
    const backToFirst = await client.get(localPath(backToSecond.body.previous));
    expect(backToFirst.body.results).toEqual(first.body.results);
    // The inserted record is newer than the first page: going back once more finds it, and that page is the first.
    const newest = await client.get(localPath(backToFirst.body.previous));
    expect(newest.body.results.map((e: { id: string }) => e.id)).toEqual([inserted.id]);
    expect(newest.body.previous).toBeNull();
    expect(newest.body.next).toBeTruthy();
  });

  it('when links are built, then they are absolute on PUBLIC_BASE_URL and keep the other query parameters', async () => {
    const client = await t.client('admin', { provider: 'links' });
    await seed(client, 3);
    const response = await client.get('/employers?page_size=2');
    const next = new URL(response.body.next);
    expect(next.origin).toBe('https://benefits.example.com');
    expect(next.pathname).toBe('/employers');
    expect(next.searchParams.get('page_size')).toBe('2');
    expect(next.searchParams.get('cursor')).toBeTruthy();
  });

  it('when the page size is left out, then it is 25', async () => {
    const client = await t.client('admin', { provider: 'default-size' });
    await seed(client, 26, 100);
    const response = await client.get('/employers');
    expect(response.body.results).toHaveLength(25);
    expect(response.body.next).toBeTruthy();
  });

  it('when a cursor is tampered with, then 400 invalid_request', async () => {
    const client = await t.client('admin', { provider: 'tamper' });
    await seed(client, 3);
    const next = new URL((await client.get('/employers?page_size=1')).body.next);
    const cursor = next.searchParams.get('cursor')!;
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['n', '2099-01-01T00:00:00.000Z', 'er_x'])).toString('base64url');
    for (const bad of [`${forged}.${signature}`, `${payload}.AAAA${signature!.slice(4)}`, 'garbage', `${payload}`, '']) {
      const response = await client.get(`/employers?cursor=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
      expect(response.body.type).toBe('invalid_request');
    }
  });

  it('when a cursor comes from another list or another provider, then 400', async () => {
    const client = await t.client('admin', { provider: 'foreign-a' });
    const other = await t.client('admin', { provider: 'foreign-b' });
    await seed(client, 3);
    await seed(other, 3);
    const cursor = new URL((await client.get('/employers?page_size=1')).body.next).searchParams.get('cursor')!;
    expect((await other.get(`/employers?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
    await client.post('/api_keys', { role: 'read_only' });
    await client.post('/api_keys', { role: 'read_only' });
    expect((await client.get(`/api_keys?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
  });
});
