import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildJobHandlers } from '../../src/app.ts';
import { JobWorker } from '../../src/jobs/job-worker.ts';
import { SandboxCarrierAdapter } from '../../src/modules/carrier-connections/sandbox-adapter.ts';
import { WebhookSender, type Resolver } from '../../src/modules/webhooks/webhook-sender.ts';
import { createTestApp, type ApiClient, type TestContext } from './test-app.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  body: string;
}

/** How the receiver answers one request (after it has been recorded). */
export type Answer = (request: ReceivedRequest, response: ServerResponse) => void;

export const answerWith =
  (status: number, body = ''): Answer =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  };

/** A real HTTP server on 127.0.0.1 standing in for an integrator's webhook receiver. */
export interface Receiver {
  readonly requests: ReceivedRequest[];
  /** An http URL on the receiver (loopback: only accepted with OUTBOUND_ALLOW_LOOPBACK). */
  url(path?: string): string;
  /** How requests are answered from now on (200 until told otherwise). */
  answer(answer: Answer): void;
  /** Parsed bodies of the requests received on a path. */
  events(path?: string): { id: string; event_type: string; object_id: string; [field: string]: unknown }[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let answer: Answer = answerWith(200, 'ok');
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      answer(received, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    requests,
    url: (path = '/hooks') => `${base}${path}`,
    answer: (next) => {
      answer = next;
    },
    events: (path) =>
      requests
        .filter((request) => path === undefined || request.path === path)
        .map((request) => JSON.parse(request.body) as ReturnType<Receiver['events']>[number]),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface WebhookTestContext extends TestContext {
  worker: JobWorker;
  /** Runs every due job (deliveries and their retries as the clock allows) until none is left; how many ran. */
  runJobs(): Promise<number>;
}

export interface WebhookTestOptions {
  /** OUTBOUND_ALLOW_LOOPBACK, for the API and the sender alike (default true: the receiver is on loopback). */
  allowLoopback?: boolean;
  /** The sender's timeout (the service's is 10 s). */
  timeoutMs?: number;
  /** Stands in for DNS. */
  resolve?: Resolver;
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The test app, plus a job worker whose webhook sender reaches the local receiver; jobs run when told. */
export async function createWebhookTestApp(options: WebhookTestOptions = {}): Promise<WebhookTestContext> {
  const allowLoopback = options.allowLoopback ?? true;
  const t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: String(allowLoopback) } });
  const sender = new WebhookSender({ allowLoopback, timeoutMs: options.timeoutMs ?? 2000, ...(options.resolve ? { resolve: options.resolve } : {}) });
  const handlers = buildJobHandlers(t.services, { adapter: new SandboxCarrierAdapter(), webhooks: sender });
  const worker = new JobWorker({ db: t.database.db, clock: t.clock, handlers, log: silent, batchSize: 50 });
  return {
    ...t,
    worker,
    runJobs: async () => {
      let total = 0;
      for (;;) {
        const ran = await worker.runDueJobs();
        if (ran === 0) return total;
        total += ran;
      }
    },
    close: async () => {
      await worker.stop();
      await sender.close();
      await t.close();
    },
  };
}

/** Creates an endpoint through the API; returns the created record, secret included. */
export async function createEndpoint(client: ApiClient, body: Record<string, unknown>) {
  const response = await client.post('/webhook_endpoints', { enabled_events: ['*'], ...body });
  if (response.status !== 201) throw new Error(`POST /webhook_endpoints answered ${response.status}: ${response.text}`);
  return response.body as { id: string; secret: string; [field: string]: unknown };
}

/** Every delivery of an endpoint (first page of 100), newest first. */
export async function deliveriesOf(client: ApiClient, endpointId: string, query = '') {
  const response = await client.get(`/webhook_endpoints/${endpointId}/deliveries?page_size=100${query}`);
  if (response.status !== 200) throw new Error(`GET deliveries answered ${response.status}: ${response.text}`);
  return response.body.results as {
    id: string;
    event: string;
    event_type: string;
    status: string;
    attempt_count: number;
    next_attempt_at: string | null;
    completed_at: string | null;
    attempts: { attempt: number; status_code: number | null; duration_ms: number; error: string | null; succeeded: boolean; created_at: string }[];
  }[];
}
