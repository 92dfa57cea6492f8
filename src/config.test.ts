import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'sqlite::memory:', ...env });

describe('outbound connection settings', () => {
  it('when nothing is set, then loopback is refused and SFTP may use ports 22 and 2222', () => {
    expect(load({}).outbound).toEqual({
      allowLoopback: false,
      sftpAllowedPorts: [
        [22, 22],
        [2222, 2222],
      ],
    });
  });

  it.each([
    [{ OUTBOUND_ALLOW_LOOPBACK: 'true' }, true],
    [{ WEBHOOKS_ALLOW_LOOPBACK: 'true' }, true],
    [{ WEBHOOKS_ALLOW_LOOPBACK: '1', OUTBOUND_ALLOW_LOOPBACK: 'true' }, true],
    [{ OUTBOUND_ALLOW_LOOPBACK: 'false' }, false],
    [{ WEBHOOKS_ALLOW_LOOPBACK: 'false' }, false],
  ])('when %j, then allowLoopback is %s (WEBHOOKS_ALLOW_LOOPBACK is an alias)', (env, allowed) => {
    expect(load(env).outbound.allowLoopback).toBe(allowed);
  });

  it('when the name and its alias disagree, then the start fails naming both', () => {
    expect(() => load({ OUTBOUND_ALLOW_LOOPBACK: 'false', WEBHOOKS_ALLOW_LOOPBACK: 'true' })).toThrow(ConfigError);
    expect(() => load({ OUTBOUND_ALLOW_LOOPBACK: 'true', WEBHOOKS_ALLOW_LOOPBACK: 'false' })).toThrow(/OUTBOUND_ALLOW_LOOPBACK and WEBHOOKS_ALLOW_LOOPBACK/);
  });

  it('when SFTP_ALLOWED_PORTS lists ports and ranges, then exactly those are allowed', () => {
    expect(load({ SFTP_ALLOWED_PORTS: ' 2222, 10022-10030 ' }).outbound.sftpAllowedPorts).toEqual([
      [2222, 2222],
      [10022, 10030],
    ]);
  });

  it.each(['22,', 'ssh', '0', '65536', '30-20', '22 2222'])('when SFTP_ALLOWED_PORTS is %j, then the start fails naming it', (value) => {
    expect(() => load({ SFTP_ALLOWED_PORTS: value })).toThrow(/^SFTP_ALLOWED_PORTS must be TCP ports or ranges/);
  });
});

describe('metrics and tracing settings', () => {
  it('when nothing is set, then /metrics is on and open, and tracing is off', () => {
    expect(load({}).metrics).toEqual({ enabled: true, token: undefined });
    expect(load({}).tracing).toEqual({ endpoint: undefined });
  });

  it('when METRICS_ENABLED and METRICS_TOKEN are set, then they are read; a short or spaced token or a non-boolean fails the start naming it', () => {
    expect(load({ METRICS_ENABLED: 'false', METRICS_TOKEN: ' 0123456789abcdef ' }).metrics).toEqual({ enabled: false, token: '0123456789abcdef' });
    expect(() => load({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN must be at least 16/);
    expect(() => load({ METRICS_TOKEN: '0123456789 abcdef' })).toThrow(/^METRICS_TOKEN/);
    expect(() => load({ METRICS_ENABLED: 'yes' })).toThrow(/^METRICS_ENABLED must be true or false/);
  });

  it('when an OTLP endpoint is set, then traces go to its /v1/traces, or to the traces endpoint as given, which takes precedence', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.endpoint).toBe('http://collector:4318/v1/traces');
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/in' }).tracing.endpoint,
    ).toBe('https://traces.example.com/in');
    expect(() => load({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toThrow(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/);
  });
});
