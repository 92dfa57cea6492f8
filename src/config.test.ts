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
