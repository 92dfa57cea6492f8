import { describe, expect, it } from 'vitest';
import { webhookUrlProblem } from './webhook-address.ts';

// The address classification itself is the outbound policy's (src/shared/outbound-address.test.ts).
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
    expect(webhookUrlProblem(url, { allowLoopback })).toBeUndefined();
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
    ['https://127.1/hook', false, 'loopback'],
    ['https://0x7f000001/hook', false, 'loopback'],
    ['https://metadata.google.internal/computeMetadata/v1/', true, 'private'],
    ['https://hooks/benefits', true, 'private'],
    ['https://printer.local/', true, 'link-local'],
  ])('when %s is given (loopback allowed: %s), then it is refused (%s)', (url, allowLoopback, why) => {
    expect(webhookUrlProblem(url, { allowLoopback })).toContain(why);
  });
});
