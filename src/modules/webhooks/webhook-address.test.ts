import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress, webhookUrlProblem } from './webhook-address.ts';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.15.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::10.0.0.1', 'reserved'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:a00:1::', 'private'],
    ['2002:808:808::', 'public'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
  ])('when the address is %s, then it is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it('when the text is a name or not an address, then it is no address', () => {
    expect(classifyAddress('example.com')).toBeUndefined();
    expect(classifyAddress('999.1.1.1')).toBeUndefined();
    expect(classifyAddress('')).toBeUndefined();
  });
});

describe('isAllowedAddress', () => {
  it('when loopback is allowed, then loopback passes and every other internal address still does not', () => {
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('::1', true)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', false)).toBe(false);
    expect(isAllowedAddress('10.0.0.1', true)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', true)).toBe(false);
    expect(isAllowedAddress('8.8.8.8', false)).toBe(true);
  });
});

describe('webhookUrlProblem', () => {
  it.each([
    ['https://hooks.example.com/benefits', false],
    ['https://hooks.example.com:8443/benefits?source=benefits', false],
    ['https://8.8.8.8/hook', false],
    ['http://127.0.0.1:4000/hook', true],
    ['http://localhost:4000/hook', true],
    ['http://[::1]:4000/hook', true],
    ['https://localhost/hook', true],
  ])('when %s is given (loopback allowed: %s), then it is accepted', (url, allowLoopback) => {
    expect(webhookUrlProblem(url, allowLoopback)).toBeUndefined();
  });

  it.each([
    ['not a url', false, 'absolute URL'],
    ['ftp://hooks.example.com/', false, 'https://'],
    ['http://hooks.example.com/', false, 'https://'],
    ['http://hooks.example.com/', true, 'loopback addresses only'],
    ['https://user:pass@hooks.example.com/', false, 'user name or password'],
    ['https://hooks.example.com/#x', false, 'fragment'],
    ['https://10.0.0.5/hook', false, 'private address'],
    ['https://10.0.0.5/hook', true, 'private address'],
    ['https://169.254.169.254/latest/meta-data', true, 'link-local address'],
    ['https://[::ffff:192.168.0.1]/', false, 'private address'],
    ['https://127.0.0.1/hook', false, 'loopback'],
    ['http://127.0.0.1/hook', false, 'loopback'],
    ['https://localhost/hook', false, 'loopback'],
    ['https://api.localhost/hook', false, 'loopback'],
    ['https://0.0.0.0/', false, 'unspecified'],
  ])('when %s is given (loopback allowed: %s), then it is refused (%s)', (url, allowLoopback, why) => {
    expect(webhookUrlProblem(url, allowLoopback)).toContain(why);
  });
});
