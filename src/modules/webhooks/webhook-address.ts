import { classifyHost, hostProblem, type OutboundPolicy } from '../../shared/outbound-address.ts';

/**
 * Why a webhook URL is refused, or undefined when it is acceptable: https with a host (http only to loopback
 * when development allows loopback), no credentials or fragment, and a host the outbound address policy
 * (src/shared/outbound-address.ts) accepts. Names are resolved, and checked again, each time a delivery
 * connects (webhook-sender.ts).
 */
export function webhookUrlProblem(text: string, policy: OutboundPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Must be an absolute URL, e.g. https://example.com/webhooks.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an https:// URL.';
  if (url.hostname === '') return 'Must name a host.';
  if (url.username !== '' || url.password !== '') return 'Must not carry a user name or password.';
  if (url.hash !== '' || text.includes('#')) return 'Must not have a fragment (#...).';
  const problem = hostProblem(url.hostname, policy);
  if (problem) return problem.replace('the service connects to', 'webhooks go to');
  const loopback = classifyHost(url.hostname) === 'loopback';
  if (url.protocol === 'http:' && !(policy.allowLoopback && loopback)) {
    return policy.allowLoopback ? 'Must be an https:// URL (http:// is allowed to loopback addresses only).' : 'Must be an https:// URL.';
  }
  return undefined;
}
