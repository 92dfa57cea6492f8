import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTracing, type Tracing } from '../../src/observability/tracing.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Optional OpenTelemetry tracing (observability/tracing.ts): with an OTLP endpoint configured, each request is a
// server span exported over OTLP/HTTP; without one, nothing is started.

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

let collector: Receiver;
let tracing: Tracing | undefined;
let t: TestContext;

beforeAll(async () => {
  // A tiny local collector: the receiver records every POST and answers 200.
  collector = await startReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url('/') };
  tracing = await startTracing(loadConfig(env).tracing);
  t = await createTestApp({ env });
});
afterAll(async () => {
  await t.close();
  await tracing?.shutdown();
  await collector.close();
});

describe('tracing', () => {
  it('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then a request becomes a server span named by its route, in the caller’s trace, exported to <endpoint>/v1/traces', async () => {
    expect(tracing).toBeDefined();
    const response = await t.admin.get('/employers', { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } });
    expect(response.status).toBe(200);

    // Shutting down flushes what the batch processor holds.
    await tracing!.shutdown();

    const exports = collector.requests.filter((request) => request.method === 'POST' && request.path === '/v1/traces');
    expect(exports.length).toBeGreaterThanOrEqual(1);
    const body = exports.map((request) => request.body).join('\n');
    expect(body).toContain('GET /employers');
    expect(body).toContain(TRACE_ID);
    expect(body).toContain(PARENT_SPAN_ID);
    expect(body).toContain(t.providerId);
    expect(body).not.toContain(t.admin.key);
  });

  it('when no OTLP endpoint is set, then tracing is not started (the SDK is not even loaded)', async () => {
    expect(loadConfig({}).tracing).toEqual({ endpoint: undefined });
    expect(await startTracing(loadConfig({}).tracing)).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example.com/custom/traces' }).tracing.endpoint).toBe(
      'https://collector.example.com/custom/traces',
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  });
});
