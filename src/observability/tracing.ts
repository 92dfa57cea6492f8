import type { Config } from '../config.ts';

export interface Tracing {
  /** Exports the spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK with the OTLP/HTTP trace exporter when an endpoint is configured (Config.tracing);
 * otherwise does nothing: the SDK is not even loaded, and the app registers no tracing hooks (zero cost). Spans
 * are the app's own (http/request-tracing.ts: one server span per request, named by its route template): no
 * auto-instrumentation package is installed, so nothing is patched and the start order of modules does not matter.
 * The exporter reads the rest of its settings (headers, timeout, compression) from the standard OTEL_ variables.
 */
export async function startTracing(tracing: Config['tracing']): Promise<Tracing | undefined> {
  if (tracing.endpoint === undefined) return undefined;
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([import('@opentelemetry/sdk-node'), import('@opentelemetry/exporter-trace-otlp-http')]);
  const sdk = new NodeSDK({
    // The version is on every request span (service.version); OTEL_RESOURCE_ATTRIBUTES adds resource attributes.
    serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'benefits-enrollment-service',
    traceExporter: new OTLPTraceExporter({ url: tracing.endpoint }),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
