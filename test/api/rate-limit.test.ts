import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
});
afterAll(async () => {
  await t.close();
});

describe('rate limit', () => {
  it('when one API key goes over the limit, then 429 throttled with Retry-After, and other keys are unaffected', async () => {
    const client = await t.client('admin');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.get('/employers')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const throttled = await client.get('/employers');
    expect(throttled.body.type).toBe('throttled');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await t.client('admin');
    expect((await other.get('/employers')).status).toBe(200);
  });

  it('when the health check is called often, then it is never throttled', async () => {
    for (let i = 0; i < 6; i++) expect((await t.anonymous.get('/healthz')).status).toBe(200);
  });
});
