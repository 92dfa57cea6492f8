export { main } from './cli.ts';
// For webhook receivers: verify the Webhook-Signature of a delivery (docs/webhooks.md).
export {
  computeWebhookSignature,
  verifyWebhookSignature,
  type VerifyWebhookSignatureOptions,
  type WebhookHeaders,
} from './modules/webhooks/webhook-signature.ts';
