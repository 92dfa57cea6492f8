import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeWebhookSignature, verifyWebhookSignature, webhookSignatureHeader } from './webhook-signature.ts';

const SECRET = 'whsec_3u1MhZKXq7gE0vS5yN2aTd8LcRb4FjWo';
const OLD_SECRET = 'whsec_Old9p2Kq5Xw7Zt1Yb3Nc6Vm8Lh0Jg4Fd';
const BODY = '{"id":"evt_1","object":"event","event_type":"member.created","data":{"member":"mem_1"}}';
const NOW = 1_767_225_600;

describe('computeWebhookSignature', () => {
  it('when computed, then it is the hex HMAC-SHA256 of "<timestamp>.<body>" under the secret', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
    expect(computeWebhookSignature({ payload: BODY, timestamp: NOW, secret: SECRET })).toBe(expected);
    expect(computeWebhookSignature({ payload: Buffer.from(BODY), timestamp: String(NOW), secret: SECRET })).toBe(expected);
  });

  it('when several secrets sign, then the header lists one v1= entry per secret, comma-separated', () => {
    const header = webhookSignatureHeader({ payload: BODY, timestamp: NOW, secrets: [SECRET, OLD_SECRET] });
    expect(header).toBe(
      `v1=${computeWebhookSignature({ payload: BODY, timestamp: NOW, secret: SECRET })},v1=${computeWebhookSignature({ payload: BODY, timestamp: NOW, secret: OLD_SECRET })}`,
    );
  });
});

describe('verifyWebhookSignature', () => {
  const signed = (secrets: string[] = [SECRET], timestamp = NOW) => ({
    'webhook-signature': webhookSignatureHeader({ payload: BODY, timestamp, secrets }),
    'webhook-timestamp': String(timestamp),
  });

  it('when the body, timestamp and secret match, then it is valid (headers as Node or Fetch give them)', () => {
    expect(verifyWebhookSignature({ payload: BODY, headers: signed(), secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(BODY), headers: new Headers(signed()), secret: SECRET, now: NOW })).toBe(true);
    const { 'webhook-signature': signatureHeader } = signed();
    expect(verifyWebhookSignature({ payload: BODY, signatureHeader, timestamp: NOW, secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers: { 'Webhook-Signature': signatureHeader, 'Webhook-Timestamp': String(NOW) }, secret: SECRET, now: NOW })).toBe(true);
  });

  it('when signed with the new and the old secret, then a receiver holding either verifies it', () => {
    const headers = signed([SECRET, OLD_SECRET]);
    expect(verifyWebhookSignature({ payload: BODY, headers, secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers, secret: OLD_SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers: signed([SECRET]), secret: ['whsec_other', SECRET], now: NOW })).toBe(true);
  });

  it.each([
    ['the body was changed', { payload: BODY.replace('mem_1', 'mem_2') }],
    ['the secret is another', { secret: 'whsec_wrong' }],
    ['the timestamp is older than the tolerance', { now: NOW + 301 }],
    ['the timestamp is further ahead than the tolerance', { now: NOW - 301 }],
    ['the signature header is missing', { headers: { 'webhook-timestamp': String(NOW) } }],
    ['the timestamp header is missing', { headers: { 'webhook-signature': signed()['webhook-signature'] } }],
    ['the timestamp is not a number', { headers: { ...signed(), 'webhook-timestamp': 'soon' } }],
    ['the timestamp header was changed', { headers: { ...signed(), 'webhook-timestamp': String(NOW + 1) } }],
    ['the signature is of another scheme', { headers: { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1=', 'v0=') } }],
    ['the signature is cut short', { headers: { ...signed(), 'webhook-signature': signed()['webhook-signature'].slice(0, -2) } }],
  ])('when %s, then it is not valid', (_case, override) => {
    expect(verifyWebhookSignature({ payload: BODY, headers: signed(), secret: SECRET, now: NOW, ...override })).toBe(false);
  });

  it('when the tolerance is widened, then an older timestamp passes; within 300 s it passes by default', () => {
    expect(verifyWebhookSignature({ payload: BODY, headers: signed(), secret: SECRET, now: NOW + 300 })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers: signed(), secret: SECRET, now: NOW + 3600, toleranceSeconds: 7200 })).toBe(true);
  });

  it('when no clock is given, then the system clock is used', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature({ payload: BODY, headers: signed([SECRET], now), secret: SECRET })).toBe(true);
  });
});
