import { isIP } from 'node:net';

/**
 * Delivery errors are shown on the file to anyone who reads it: they name the host the profile gives and the
 * step that failed, never an address the host resolved to or any other address met on the way (a name that
 * resolves to an internal network must not tell the caller what is there). See docs/decisions.md, Carrier
 * EDI, "Delivery state".
 */

const WITHHELD = '[address withheld]';

/** Runs of characters an IP address (with a port, or bracketed) is made of; each is checked with isIP. */
const CANDIDATES = /\[([0-9A-Fa-f:.]+)\]|[0-9A-Fa-f:.]+/g;

function withheld(candidate: string, bracketed: string | undefined): string {
  if (bracketed !== undefined) return isIP(bracketed) ? WITHHELD : candidate;
  if (isIP(candidate)) return WITHHELD;
  // An IPv4 address with its port (an IPv6 one with a port is bracketed, or reads as an address whole).
  const withPort = /^(.+)(:\d+)$/.exec(candidate);
  return withPort && isIP(withPort[1]!) === 4 ? `${WITHHELD}${withPort[2]}` : candidate;
}

/** The text with every IP address replaced, except the host exactly as the profile names it. */
export function withoutAddresses(text: string, configuredHost: string | undefined): string {
  const scrub = (part: string) => part.replace(CANDIDATES, (candidate, bracketed: string | undefined) => withheld(candidate, bracketed));
  if (!configuredHost) return scrub(text);
  return text.split(configuredHost).map(scrub).join(configuredHost);
}
