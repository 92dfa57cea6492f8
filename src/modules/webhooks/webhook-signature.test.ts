import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { computeWebhookSignature, verifyWebhookSignature, webhookSignatureHeader } from './webhook-signature.ts';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const OLD_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ID = 'evt_01JZ9Q3N4W5X6Y7Z8A9B0C1D2E';
const BODY = '{"id":"evt_1","object":"event","event_type":"member.created","data":{"member":"mem_1"}}';
const NOW = 1_767_225_600;

describe('computeWebhookSignature', () => {
  it("when given the specification's published test vector, then it gives the published signature", () => {
    // Standard Webhooks: secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, msg_p5jXN8AQM9LWM0D4loKWxJek, 1614265330.
    const header = webhookSignatureHeader({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      payload: '{"test": 2432232314}',
      timestamp: 1614265330,
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('when computed, then the standardwebhooks library signs the same message alike (string or bytes)', () => {
    const library = new Webhook(SECRET).sign(ID, new Date(NOW * 1000), BODY);
    expect(`v1,${computeWebhookSignature({ id: ID, payload: BODY, timestamp: NOW, secret: SECRET })}`).toBe(library);
    expect(`v1,${computeWebhookSignature({ id: ID, payload: Buffer.from(BODY), timestamp: String(NOW), secret: SECRET })}`).toBe(library);
  });

  it('when several secrets sign, then the header lists one v1, entry per secret, space-separated', () => {
    const header = webhookSignatureHeader({ id: ID, payload: BODY, timestamp: NOW, secrets: [SECRET, OLD_SECRET] });
    expect(header).toBe(
      `v1,${computeWebhookSignature({ id: ID, payload: BODY, timestamp: NOW, secret: SECRET })} v1,${computeWebhookSignature({ id: ID, payload: BODY, timestamp: NOW, secret: OLD_SECRET })}`,
    );
  });
});

describe('verifyWebhookSignature', () => {
  const signed = (secrets: string[] = [SECRET], timestamp = NOW) => ({
    'webhook-id': ID,
    'webhook-signature': webhookSignatureHeader({ id: ID, payload: BODY, timestamp, secrets }),
    'webhook-timestamp': String(timestamp),
  });

  it('when the message, timestamp and secret match, then it is valid (headers as Node or Fetch give them, or given one by one)', () => {
    expect(verifyWebhookSignature({ payload: BODY, headers: signed(), secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(BODY), headers: new Headers(signed()), secret: SECRET, now: NOW })).toBe(true);
    const { 'webhook-signature': signatureHeader } = signed();
    expect(verifyWebhookSignature({ payload: BODY, id: ID, signatureHeader, timestamp: NOW, secret: SECRET, now: NOW })).toBe(true);
    expect(
      verifyWebhookSignature({
        payload: BODY,
        headers: { 'Webhook-Id': ID, 'Webhook-Signature': signatureHeader, 'Webhook-Timestamp': String(NOW) },
        secret: SECRET,
        now: NOW,
      }),
    ).toBe(true);
  });

  it('when the standardwebhooks library verifies what this module signs, and this module what it signs, then both agree', () => {
    const now = Math.floor(Date.now() / 1000);
    const ours = signed([SECRET, OLD_SECRET], now);
    expect(new Webhook(SECRET).verify(BODY, ours)).toEqual(JSON.parse(BODY));
    expect(new Webhook(OLD_SECRET).verify(BODY, ours)).toEqual(JSON.parse(BODY));
    const theirs = { 'webhook-id': ID, 'webhook-timestamp': String(now), 'webhook-signature': new Webhook(SECRET).sign(ID, new Date(now * 1000), BODY) };
    expect(verifyWebhookSignature({ payload: BODY, headers: theirs, secret: SECRET })).toBe(true);
  });

  it('when signed with the new and the old secret, then a receiver holding either verifies it', () => {
    const headers = signed([SECRET, OLD_SECRET]);
    expect(verifyWebhookSignature({ payload: BODY, headers, secret: SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers, secret: OLD_SECRET, now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: BODY, headers: signed([SECRET]), secret: [OLD_SECRET, SECRET], now: NOW })).toBe(true);
  });

  it.each([
    ['the body was changed', { payload: BODY.replace('mem_1', 'mem_2') }],
    ['the secret is another', { secret: OLD_SECRET }],
    ['the timestamp is older than the tolerance', { now: NOW + 301 }],
    ['the timestamp is further ahead than the tolerance', { now: NOW - 301 }],
    ['the id header is missing', { headers: { ...signed(), 'webhook-id': undefined } }],
    ['the id was changed', { headers: { ...signed(), 'webhook-id': 'evt_other' } }],
    ['the signature header is missing', { headers: { ...signed(), 'webhook-signature': undefined } }],
    ['the timestamp header is missing', { headers: { ...signed(), 'webhook-timestamp': undefined } }],
    ['the timestamp is not a number', { headers: { ...signed(), 'webhook-timestamp': 'soon' } }],
    ['the timestamp header was changed', { headers: { ...signed(), 'webhook-timestamp': String(NOW + 1) } }],
    ['the signature is of another scheme', { headers: { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v1a,') } }],
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
