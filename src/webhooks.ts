/**
 * `benefits-enrollment-service/webhooks`: what a webhook receiver needs to check a delivery's Standard Webhooks
 * signature (docs/webhooks.md), and nothing of the server. It imports node:crypto only, so it loads in a few
 * milliseconds and runs on Node 20 and later (the server itself needs Node 24); a test keeps its import graph
 * that small (test/api/webhooks-subpath.test.ts).
 */
export {
  computeWebhookSignature,
  verifyWebhookSignature,
  webhookSignatureHeader,
  type VerifyWebhookSignatureOptions,
  type WebhookHeaders,
} from './modules/webhooks/webhook-signature.ts';
