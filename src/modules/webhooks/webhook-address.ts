import { isIP } from 'node:net';

/**
 * Where webhooks may go (SSRF guard): public internet addresses only. A webhook URL is chosen by an API client,
 * and the service POSTs to it from inside the deployment's network, so an address in a private, loopback,
 * link-local or otherwise special range would let a client reach the deployment's own internal services.
 * Development may allow loopback (WEBHOOKS_ALLOW_LOOPBACK), and only loopback.
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'carrier-grade NAT' | 'multicast' | 'unspecified' | 'reserved' | 'documentation';

interface Range {
  readonly prefix: readonly number[];
  readonly bits: number;
  readonly kind: Exclude<AddressKind, 'public'>;
}

const range = (prefix: readonly number[], bits: number, kind: Range['kind']): Range => ({ prefix, bits, kind });

// IANA IPv4 Special-Purpose Address Registry (RFC 6890 and successors), plus multicast and class E.
const IPV4_RANGES: readonly Range[] = [
  range([0], 8, 'unspecified'),
  range([10], 8, 'private'),
  range([100, 64], 10, 'carrier-grade NAT'),
  range([127], 8, 'loopback'),
  range([169, 254], 16, 'link-local'),
  range([172, 16], 12, 'private'),
  range([192, 0, 0], 24, 'reserved'),
  range([192, 0, 2], 24, 'documentation'),
  range([192, 88, 99], 24, 'reserved'),
  range([192, 168], 16, 'private'),
  range([198, 18], 15, 'reserved'),
  range([198, 51, 100], 24, 'documentation'),
  range([203, 0, 113], 24, 'documentation'),
  range([224], 4, 'multicast'),
  range([240], 4, 'reserved'),
];

// IANA IPv6 Special-Purpose Address Registry; ranges that embed an IPv4 address are judged by it (below).
const IPV6_RANGES: readonly Range[] = [
  range([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'reserved'),
  range([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'),
  range([0x20, 0x01, 0x00, 0x00], 32, 'reserved'),
  range([0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48, 'reserved'),
  range([0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'),
  range([0x3f, 0xff], 20, 'documentation'),
  range([0xfc], 7, 'private'),
  range([0xfe, 0x80], 10, 'link-local'),
  range([0xfe, 0xc0], 10, 'private'),
  range([0xff], 8, 'multicast'),
];

function inRange(bytes: readonly number[], { prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const left = Math.min(8, bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** What kind of address `ip` is (an IPv4 or IPv6 literal, brackets and zone allowed); undefined if it is none. */
export function classifyAddress(ip: string): AddressKind | undefined {
  const bytes = parseIp(ip);
  if (!bytes) return undefined;
  return bytes.length === 4 ? classifyIpv4(bytes) : classifyIpv6(bytes);
}

function classifyIpv4(bytes: readonly number[]): AddressKind {
  return IPV4_RANGES.find((candidate) => inRange(bytes, candidate))?.kind ?? 'public';
}

function classifyIpv6(bytes: readonly number[]): AddressKind {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 15)) return bytes[15] === 0 ? 'unspecified' : bytes[15] === 1 ? 'loopback' : 'reserved';
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(bytes.slice(12));
  if (inRange(bytes, range([0x00, 0x64, 0xff, 0x9b], 96, 'reserved'))) return classifyIpv4(bytes.slice(12));
  // ::a.b.c.d (IPv4-compatible, deprecated) and ::ffff:0:a.b.c.d (IPv4-translated).
  if (zeros(0, 12) || (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12))) return 'reserved';
  // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyIpv4(bytes.slice(2, 6));
  return IPV6_RANGES.find((candidate) => inRange(bytes, candidate))?.kind ?? 'public';
}

/** The bytes of an IP literal (4 or 16), or undefined. */
function parseIp(text: string): number[] | undefined {
  let ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  const family = isIP(ip);
  if (family === 4) return ip.split('.').map(Number);
  if (family !== 6) return undefined;
  let tail: number[] = [];
  const lastColon = ip.lastIndexOf(':');
  if (ip.includes('.', lastColon)) {
    tail = ip
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    ip = `${ip.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = ip.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Whether the service may connect to `ip`: public, or loopback when development allows it. */
export function isAllowedAddress(ip: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(ip);
  return kind === 'public' || (kind === 'loopback' && allowLoopback);
}

/** Error code of a connection refused by the guard. */
export const REFUSED_ADDRESS = 'EWEBHOOKADDRESS';

export function refusedAddressError(host: string, ip: string): Error {
  const kind = classifyAddress(ip) ?? 'unknown';
  const where = host === ip ? ip : `${host} (${ip})`;
  return Object.assign(new Error(`Refused to connect to ${where}: a ${kind} address. Webhooks go to public internet addresses only.`), {
    code: REFUSED_ADDRESS,
  });
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why a webhook URL is refused, or undefined when it is acceptable: https with a host (http only to loopback
 * when development allows loopback), no credentials or fragment, and not an IP literal or name that can only
 * be internal. Names are resolved, and checked again, each time a delivery connects (webhook-sender.ts).
 */
export function webhookUrlProblem(text: string, allowLoopback: boolean): string | undefined {
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
  const kind = classifyAddress(url.hostname);
  const loopback = kind === 'loopback' || (kind === undefined && isLocalhostName(url.hostname));
  if (loopback) {
    if (!allowLoopback) return 'Must not point at a loopback address: webhooks go to public internet addresses only.';
  } else if (kind !== undefined && kind !== 'public') {
    return `Must not point at a ${kind} address: webhooks go to public internet addresses only.`;
  }
  if (url.protocol === 'http:' && !(allowLoopback && loopback)) {
    return allowLoopback ? 'Must be an https:// URL (http:// is allowed to loopback addresses only).' : 'Must be an https:// URL.';
  }
  return undefined;
}
