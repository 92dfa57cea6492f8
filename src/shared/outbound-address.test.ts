import { describe, expect, it } from 'vitest';
import {
  REFUSED_ADDRESS,
  classifyAddress,
  classifyHost,
  describePorts,
  hostProblem,
  isAllowedAddress,
  isAllowedPort,
  parsePortList,
  resolveOutboundHost,
  withoutAddresses,
  type Resolver,
} from './outbound-address.ts';

const PRODUCTION = { allowLoopback: false };
const DEVELOPMENT = { allowLoopback: true };

describe('classifyAddress', () => {
  it.each([
    // IPv4, each range with its last address out and first address in (and out again) where it has neighbours.
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.1.2.3', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'carrier-grade NAT'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['127.0.0.0', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['191.255.255.255', 'public'],
    ['192.0.0.0', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.1.255', 'public'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.0.3.0', 'public'],
    ['192.88.99.1', 'reserved'],
    ['192.167.255.255', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.1.1', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.0', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.255', 'reserved'],
    // Legacy numeric forms a system resolver still reads as IPv4.
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['10.1', 'private'],
    ['0', 'unspecified'],
    ['134744072', 'public'],
    // IPv6
    ['2606:4700:4700::1111', 'public'],
    ['::', 'unspecified'],
    ['[::]', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::2', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['::10.0.0.1', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['2002:808:808::', 'public'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
    ['fc00::', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
    ['fe80::', 'link-local'],
    ['fe80::1', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
    ['fec0::1', 'private'],
    ['ff00::', 'multicast'],
    ['ff02::1', 'multicast'],
  ])('when the address is %s, then it is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each(['example.com', '999.1.1.1', '1.2.3.4.5', '0x1g', '1e100.net', '', '[]', '::ffff:999.0.0.1'])(
    'when the text is %j, then it is no address',
    (text) => {
      expect(classifyAddress(text)).toBeUndefined();
    },
  );
});

describe('classifyHost', () => {
  it.each([
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['printer.local', 'link-local'],
    ['metadata.google.internal', 'private'],
    ['instance-data.ec2.internal', 'private'],
    ['router.home.arpa', 'private'],
    ['metadata', 'private'],
    ['redis', 'private'],
    ['127.0.0.1.', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['8.8.8.8', 'public'],
  ])('when the host is %s, then it is %s', (host, kind) => {
    expect(classifyHost(host)).toBe(kind);
  });

  it.each(['sftp.carrier.example', 'localhost.example.com', 'internal.example.com', 'local.carrier.com', 'arpa.example'])(
    'when the host is the name %s, then it is left to what it resolves to',
    (host) => {
      expect(classifyHost(host)).toBeUndefined();
    },
  );
});

describe('isAllowedAddress and hostProblem', () => {
  it('when loopback is allowed, then loopback passes and every other internal address still does not', () => {
    expect(isAllowedAddress('127.0.0.1', DEVELOPMENT)).toBe(true);
    expect(isAllowedAddress('::1', DEVELOPMENT)).toBe(true);
    expect(isAllowedAddress('::ffff:127.0.0.1', DEVELOPMENT)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', PRODUCTION)).toBe(false);
    for (const internal of ['10.0.0.1', '169.254.169.254', '0.0.0.0', 'fe80::1', '100.64.0.1', 'fc00::1', '224.0.0.1']) {
      expect(isAllowedAddress(internal, DEVELOPMENT)).toBe(false);
    }
    expect(isAllowedAddress('8.8.8.8', PRODUCTION)).toBe(true);
    expect(isAllowedAddress('sftp.carrier.example', DEVELOPMENT)).toBe(false);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['[fe80::1]', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['localhost', 'loopback'],
    ['metadata.google.internal', 'private'],
    ['metadata', 'private'],
    ['2130706433', 'loopback'],
  ])('when %s is saved without the development switch, then it is refused as %s', (host, kind) => {
    expect(hostProblem(host, PRODUCTION)).toBe(`Must not be a ${kind} address or name: the service connects to public internet addresses only.`);
  });

  it('when the development switch is on, then loopback hosts are accepted and nothing else internal is', () => {
    expect(hostProblem('127.0.0.1', DEVELOPMENT)).toBeUndefined();
    expect(hostProblem('localhost', DEVELOPMENT)).toBeUndefined();
    expect(hostProblem('[::1]', DEVELOPMENT)).toBeUndefined();
    expect(hostProblem('10.0.0.1', DEVELOPMENT)).toContain('private');
    expect(hostProblem('169.254.169.254', DEVELOPMENT)).toContain('link-local');
  });

  it('when the host is a public literal or an ordinary name, then nothing is refused at save time', () => {
    expect(hostProblem('8.8.8.8', PRODUCTION)).toBeUndefined();
    expect(hostProblem('2606:4700:4700::1111', PRODUCTION)).toBeUndefined();
    expect(hostProblem('sftp.carrier.example', PRODUCTION)).toBeUndefined();
  });
});

describe('resolveOutboundHost', () => {
  const resolvingTo =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const refusalOf = async (promise: Promise<unknown>) => {
    const error = (await promise.then(
      () => undefined,
      (rejection: unknown) => rejection,
    )) as (Error & { code?: string }) | undefined;
    expect(error).toBeInstanceOf(Error);
    return error as Error & { code?: string };
  };

  it('when a name resolves to public addresses only, then the first is the one to connect to', async () => {
    await expect(resolveOutboundHost('sftp.carrier.example', PRODUCTION, resolvingTo('93.184.216.34', '2606:4700::1'))).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it.each([
    ['loopback', ['127.0.0.1']],
    ['loopback as IPv4-mapped IPv6', ['::ffff:127.0.0.1']],
    ['the metadata address', ['169.254.169.254']],
    ['a private address among public ones (rebinding)', ['93.184.216.34', '10.20.30.40']],
    ['nothing at all', []],
  ])('when a name resolves to %s, then it is refused without naming any address', async (_label, addresses) => {
    const error = await refusalOf(resolveOutboundHost('sftp.carrier.example', PRODUCTION, resolvingTo(...addresses)));

    expect(error.code).toBe(REFUSED_ADDRESS);
    expect(error.message).toBe('Refused to connect to sftp.carrier.example: it does not resolve to public internet addresses only.');
    for (const address of addresses) expect(error.message).not.toContain(address);
  });

  it('when a name does not exist, then the refusal reads the same as for an internal name', async () => {
    const missing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.carrier.example'), { code: 'ENOTFOUND' });
    };

    const error = await refusalOf(resolveOutboundHost('nowhere.carrier.example', PRODUCTION, missing));

    expect(error.code).toBe(REFUSED_ADDRESS);
    expect(error.message).toBe('Refused to connect to nowhere.carrier.example: it does not resolve to public internet addresses only.');
  });

  it('when the name is localhost or a literal, then no resolver is asked and the switch decides', async () => {
    let asked = 0;
    const resolver: Resolver = async () => {
      asked += 1;
      return [{ address: '93.184.216.34', family: 4 }];
    };

    expect((await refusalOf(resolveOutboundHost('localhost', PRODUCTION, resolver))).message).toBe(
      'Refused to connect to localhost: it does not resolve to public internet addresses only.',
    );
    expect((await refusalOf(resolveOutboundHost('[::ffff:127.0.0.1]', PRODUCTION, resolver))).message).toBe(
      'Refused to connect to [::ffff:127.0.0.1]: it is not a public internet address.',
    );
    await expect(resolveOutboundHost('localhost', DEVELOPMENT, resolver)).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    await expect(resolveOutboundHost('[::1]', DEVELOPMENT, resolver)).resolves.toEqual({ address: '::1', family: 6 });
    await expect(resolveOutboundHost('127.1', DEVELOPMENT, resolver)).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    await expect(resolveOutboundHost('8.8.8.8', PRODUCTION, resolver)).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    expect((await refusalOf(resolveOutboundHost('10.0.0.1', DEVELOPMENT, resolver))).code).toBe(REFUSED_ADDRESS);
    expect(asked).toBe(0);
  });

  it('when a name resolves to loopback and the switch is on, then loopback is the address to connect to', async () => {
    await expect(resolveOutboundHost('sftp.carrier.example', DEVELOPMENT, resolvingTo('127.0.0.1'))).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    expect((await refusalOf(resolveOutboundHost('sftp.carrier.example', DEVELOPMENT, resolvingTo('127.0.0.1', '10.0.0.1')))).code).toBe(REFUSED_ADDRESS);
  });
});

describe('withoutAddresses', () => {
  it.each([
    ['connect ECONNREFUSED 10.1.2.3:22', 'connect ECONNREFUSED the address'],
    ['connect ECONNREFUSED ::1:4000', 'connect ECONNREFUSED the address'],
    ['connect ETIMEDOUT [fe80::1]:22', 'connect ETIMEDOUT the address'],
    ['no route to 169.254.169.254.', 'no route to the address'],
    ['closed at 12:30 by the peer.', 'closed at 12:30 by the peer.'],
    ['version 1.2.3 refused', 'version 1.2.3 refused'],
  ])('when the text is %j, then it reads %j', (text, expected) => {
    expect(withoutAddresses(text)).toBe(expected);
  });
});

describe('ports', () => {
  it('when a list is parsed, then ports and ranges are kept and checked inclusively', () => {
    const ranges = parsePortList('22, 2222,10022-10030');

    expect(ranges).toEqual([
      [22, 22],
      [2222, 2222],
      [10022, 10030],
    ]);
    expect([21, 22, 23, 2222, 6379, 10021, 10022, 10030, 10031].filter((port) => isAllowedPort(ranges, port))).toEqual([22, 2222, 10022, 10030]);
    expect(describePorts(ranges)).toBe('22, 2222 or 10022-10030');
  });

  it.each(['', '22,', 'ssh', '0', '65536', '30-20', '22;2222', '1-2-3', '-22'])('when the list is %j, then it is refused', (text) => {
    expect(() => parsePortList(text)).toThrow(/is not a TCP port/);
  });
});
