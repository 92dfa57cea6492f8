import { describe, expect, it } from 'vitest';
import { withoutAddresses } from './delivery-error.ts';

describe('withoutAddresses', () => {
  it.each([
    [
      'a name resolved to a loopback address',
      'localhost',
      'Could not connect to localhost:2222: connect ECONNREFUSED 127.0.0.1:2222',
      'Could not connect to localhost:2222: connect ECONNREFUSED [address withheld]:2222',
    ],
    [
      'a name resolved to IPv6 loopback',
      'sftp.example.com',
      'Could not connect to sftp.example.com:22: connect ECONNREFUSED ::1:22',
      'Could not connect to sftp.example.com:22: connect ECONNREFUSED [address withheld]',
    ],
    [
      'a bracketed IPv6 address',
      'sftp.example.com',
      'connect ETIMEDOUT [fe80::1]:22 from 10.0.0.7',
      'connect ETIMEDOUT [address withheld]:22 from [address withheld]',
    ],
    ['an IPv4-mapped IPv6 address', 'sftp.example.com', 'reset by ::ffff:169.254.169.254', 'reset by [address withheld]'],
    [
      'the host the profile names, which stays',
      '203.0.113.9',
      'Could not connect to 203.0.113.9:22: connect ECONNREFUSED 203.0.113.9:22',
      'Could not connect to 203.0.113.9:22: connect ECONNREFUSED 203.0.113.9:22',
    ],
    [
      'another address beside the configured one',
      '203.0.113.9',
      'Could not connect to 203.0.113.9:22: via 192.168.1.1',
      'Could not connect to 203.0.113.9:22: via [address withheld]',
    ],
    [
      'text without addresses',
      'sftp.example.com',
      'The server refused opening /inbound/x.part: No such file (SFTP status 2).',
      'The server refused opening /inbound/x.part: No such file (SFTP status 2).',
    ],
    ['a version number, not an address', 'sftp.example.com', 'SSH-2.0-OpenSSH_9.6 closed the connection', 'SSH-2.0-OpenSSH_9.6 closed the connection'],
  ])('when the text has %s, then only addresses other than the configured host are withheld', (_case, host, text, expected) => {
    expect(withoutAddresses(text, host)).toBe(expected);
  });

  it('when no host is configured, then every address is withheld', () => {
    expect(withoutAddresses('to 10.1.2.3 and [::1]', undefined)).toBe('to [address withheld] and [address withheld]');
  });
});
