import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrier } from '../helpers/factories.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

/*
 * Requests from hostile clients, with and without a key (docs/decisions.md "Requests" and "Rate limits"): bodies are
 * not read before the caller and the route are known, nothing walks a body deeper or longer than its limits, slow
 * clients lose their sockets, failed authentication is rate-limited, links come from a valid host.
 */

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('bodies are read only where a known route and a valid key take one', () => {
  it('when an unknown path gets a body that is not even JSON, then 404: the body is never parsed', async () => {
    const response = await t.anonymous.post('/nope', undefined, { rawBody: '{"not json', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(404);
    expect(response.body.type).toBe('not_found');
  });

  it('when a write route gets a broken or deep body without a valid key, then 401: authentication comes before parsing', async () => {
    for (const rawBody of ['{"not json', nested(5000)]) {
      const anonymous = await t.anonymous.post('/carriers', undefined, { rawBody, headers: { 'content-type': 'application/json' } });
      expect(anonymous.status).toBe(401);
      const unknownKey = await t.anonymous.post('/carriers', undefined, {
        rawBody,
        headers: { 'content-type': 'application/json', authorization: `Bearer bk_live_${randomBytes(16).toString('hex')}` },
      });
      expect(unknownKey.status).toBe(401);
    }
  });

  it('when a route that takes no body gets one, then 400 before it is read; an action takes none or {} (empty-bodies.test.ts)', async () => {
    const action = await t.admin.post('/open_enrollment_windows/oew_missing/activate', undefined, {
      rawBody: '{"now": true}',
      headers: { 'content-type': 'application/json' },
    });
    expect(action.status).toBe(400);
    expect(action.body).toMatchObject({ type: 'validation_error', input_errors: [expect.objectContaining({ field: 'now' })] });
    expect((await t.admin.post('/open_enrollment_windows/oew_missing/activate')).status).toBe(404);
    expect(
      (await t.admin.post('/open_enrollment_windows/oew_missing/activate', undefined, { rawBody: '{}', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(404);
    const port = Number(new URL(t.baseUrl).port);
    const get = await rawExchange(
      port,
      `GET /carriers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.admin.key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(get).toMatch(/^HTTP\/1\.1 400/);
  });

  it(`when a body nests 33 levels deep, then 400 naming the limit of 32; 32 levels pass that check`, async () => {
    const deep = await t.admin.post('/carriers', undefined, {
      rawBody: `{"legal_name": "X", "a": ${nested(32)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ type: 'invalid_request', message: expect.stringContaining('deeper than 32 levels') });
    const limit = await t.admin.post('/carriers', undefined, {
      rawBody: `{"legal_name": "X", "a": ${nested(31)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(limit.status).toBe(400);
    expect(limit.body).toMatchObject({ type: 'validation_error', input_errors: [expect.objectContaining({ field: 'a' })] });
  });

  it('when the body nests 2,000 deep in 255 arrays (a 1 MiB body), then 400 at once, with or without a route', async () => {
    const body = `[${Array.from({ length: 255 }, () => nested(2000)).join(',')}]`;
    const started = Date.now();
    for (const path of ['/carriers', '/employers', '/enrollments']) {
      const response = await t.admin.post(path, undefined, { rawBody: body, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
    }
    // Not a timing test: three answers that took seconds each before would trip vitest's timeout long before this.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('when a body holds more than 10,000 items and members, then 400; 10,000 pass that check', async () => {
    const items = (count: number) => `{"legal_name": "X", "trade_name": [${Array.from({ length: count - 2 }, () => '0').join(',')}]}`;
    const over = await t.admin.post('/carriers', undefined, { rawBody: items(10_002), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain('more than 10000');
    const at = await t.admin.post('/carriers', undefined, { rawBody: items(10_000), headers: { 'content-type': 'application/json' } });
    expect(at.status).toBe(400);
    expect(at.body).toMatchObject({ type: 'validation_error', input_errors: [expect.objectContaining({ field: 'trade_name' })] });
  });

  it('when a body has thousands of wrong fields, then the first 100 are reported', async () => {
    const keys = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`unknown_${i}`, 1]));
    const response = await t.admin.post('/carriers', { legal_name: 'X', ...keys });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toHaveLength(100);
    expect(response.body.input_errors[0]).toMatchObject({ field: 'unknown_0', message: 'Unknown field; check its spelling.' });
  });

  it('when thousands of strings hold NUL characters, then 400 with the first 100 at their paths', async () => {
    const rawBody = `{"legal_name": "X", "trade_name": [${Array.from({ length: 5000 }, () => '"a\\u0000"').join(',')}]}`;
    const response = await t.admin.post('/carriers', undefined, { rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.input_errors).toHaveLength(100);
    expect(response.body.input_errors[0]).toMatchObject({ field_path: ['trade_name', '0'] });
    expect(response.body.input_errors[99]).toMatchObject({ field_path: ['trade_name', '99'] });
  });
});

describe('what is not UTF-8 JSON is refused, not misread', () => {
  it('when the charset is not UTF-8, then 415; utf-8 in any spelling is JSON', async () => {
    for (const contentType of ['application/json; charset=utf-16', 'application/json;charset="latin1"', 'application/json; charset=ISO-8859-1']) {
      const response = await t.admin.post('/carriers', undefined, { rawBody: JSON.stringify({ legal_name: 'X' }), headers: { 'content-type': contentType } });
      expect(response.status, contentType).toBe(415);
      expect(response.body.type).toBe('unsupported_media_type');
    }
    for (const contentType of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8']) {
      const response = await t.admin.post('/carriers', undefined, { rawBody: JSON.stringify({ legal_name: 'X' }), headers: { 'content-type': contentType } });
      expect(response.status, contentType).toBe(201);
    }
  });

  it('when the body has a content coding, then 415 with Accept-Encoding: identity', async () => {
    const gzipped = gzipSync(JSON.stringify({ legal_name: 'X' }));
    const response = await fetch(`${t.baseUrl}/carriers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.admin.key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipped,
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-encoding')).toBe('identity');
    expect(((await response.json()) as { type: string }).type).toBe('unsupported_media_type');
  });
});

describe('405 says what is allowed', () => {
  it('when any route gets a query parameter it does not declare, then 400 naming it; declared ones still work', async () => {
    const carrier = await createCarrier(t.admin);
    for (const [method, path] of [
      ['get', `/carriers/${carrier.id}?expand=group`],
      ['patch', `/carriers/${carrier.id}?dry_run=true`],
      ['post', `/carriers?upsert=1`],
      ['get', '/healthz?verbose=1'],
      ['get', '/openapi.json?format=yaml'],
    ] as const) {
      const response =
        method === 'get' ? await t.admin.get(path) : await t.admin[method](path, method === 'post' ? { legal_name: 'Query Co' } : { trade_name: 'Q' });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(
        response.body.input_errors.map((error: { field: string }) => error.field),
        `${method} ${path}`,
      ).toEqual([path.split('?')[1]!.split('=')[0]]);
    }
    expect((await t.admin.get('/carriers?page_size=1')).status).toBe(200);
  });

  it('when a known path gets an unsupported method, then 405 with Allow listing the methods it has', async () => {
    const collection = await t.anonymous.request('PUT', '/carriers');
    expect(collection.status).toBe(405);
    expect(collection.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    const record = await t.admin.request('PUT', '/carriers/car_123');
    expect(record.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'PATCH']);
  });
});

/** Sends raw bytes on a new socket; resolves with what came back when the server closes it. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
    setTimeout(() => socket.end(), 2000);
  });
}

describe('links come from a valid host', () => {
  it('when the request line is absolute-form, then links carry the Host header and the path, not the target', async () => {
    await createCarrier(t.admin);
    await createCarrier(t.admin);
    const port = Number(new URL(t.baseUrl).port);
    const answer = await rawExchange(
      port,
      `GET http://evil.example/carriers?page_size=1 HTTP/1.1\r\nHost: benefits.test:${port}\r\nAuthorization: Bearer ${t.admin.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { next: string };
    expect(body.next).toMatch(new RegExp(`^http://benefits\\.test:${port}/carriers\\?page_size=1&cursor=`));
  });

  it('when the Host header is not a host name, then 400', async () => {
    const port = Number(new URL(t.baseUrl).port);
    for (const host of ['evil.example/carriers?x=', 'a b', 'evil.example@x', 'x:99999999']) {
      const answer = await rawExchange(port, `GET /carriers HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${t.admin.key}\r\nConnection: close\r\n\r\n`);
      expect(answer, host).toMatch(/^HTTP\/1\.1 400/);
    }
  });

  it('when PUBLIC_BASE_URL is set, then links use it whatever the Host', async () => {
    const other = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://benefits.example.com/api' } });
    try {
      await createCarrier(other.admin);
      await createCarrier(other.admin);
      const page = await other.admin.get('/carriers?page_size=1', { headers: { host: 'evil.example' } });
      expect(page.body.next).toMatch(/^https:\/\/benefits\.example\.com\/api\/carriers\?page_size=1&cursor=/);
    } finally {
      await other.close();
    }
  });
});

describe('slow and idle clients lose their sockets', () => {
  let slow: TestContext;
  beforeAll(async () => {
    slow = await createTestApp({ env: { REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000', MAX_CONNECTIONS: '10' } });
  });
  afterAll(async () => {
    await slow.close();
  });

  /** Opens a socket that sends `head` and then one byte every 200 ms; resolves with what came back and when it closed. */
  function trickle(head: string, drip: string): Promise<{ received: string; closedAfterMs: number }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = connect(Number(new URL(slow.baseUrl).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      socket.write(head);
      const timer = setInterval(() => socket.writable && socket.write(drip), 200);
      // A socket the server never closes ends the test by the test's own timeout rather than this promise.
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ received, closedAfterMs: Date.now() - started });
      });
    });
  }

  it('when a client trickles its body, then 408 and the socket is closed after REQUEST_TIMEOUT_MS; without a key, 401 at once and closed too', async () => {
    const head = (key?: string) =>
      `POST /carriers HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}\r\n{`;
    const [keyless, keyed] = await Promise.all([trickle(head(), ' '), trickle(head(slow.admin.key), ' ')]);
    expect(keyless.received).toMatch(/^HTTP\/1\.1 401/);
    expect(keyed.received).toMatch(/^HTTP\/1\.1 408/);
    for (const { closedAfterMs } of [keyless, keyed]) expect(closedAfterMs).toBeLessThan(10_000);
  });

  it('when a client trickles its headers, then the socket is closed after HEADERS_TIMEOUT_MS', async () => {
    const { received, closedAfterMs } = await trickle('GET /carriers HTTP/1.1\r\nHost: localhost\r\n', 'X-A: b\r\n');
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(10_000);
  });

  it('when more than MAX_CONNECTIONS sockets are open, then the next is closed at once, and requests work again once they go', async () => {
    const port = Number(new URL(slow.baseUrl).port);
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
      });
    const held = [];
    for (let i = 0; i < 10; i++) held.push(await open());
    const extra = await open();
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 3000);
    });
    expect(closed).toBe(true);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await slow.admin.get('/carriers')).status).toBe(200);
  });
});

describe('failed authentication is rate-limited per client address', () => {
  let limited: TestContext;
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('when requests without a key or with random keys go over the limit, then 429 from this address; a valid key keeps its own count', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.anonymous.get('/carriers')).status);
    for (let i = 0; i < 3; i++) {
      const response = await limited.anonymous.get('/carriers', { headers: { authorization: `Bearer bk_live_${randomBytes(16).toString('hex')}` } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const throttled = await limited.anonymous.post('/carriers', { legal_name: 'X' });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toMatchObject({ type: 'throttled', message: expect.stringContaining('without a valid API key') });
    expect((await limited.admin.get('/carriers')).status).toBe(200);
  });
});
