import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';

/**
 * The outbound address policy (docs/decisions.md "Outbound connections"): every connection the service makes
 * on a tenant's behalf (webhooks, carrier SFTP, any carrier adapter to come) goes to public internet addresses
 * only. A tenant chooses the host, and the service connects from inside the deployment's network, so an address
 * in a private, loopback, link-local or otherwise special range would let a tenant reach the deployment's own
 * services. Literals are refused when a tenant saves them (`hostProblem`); names are resolved when connecting,
 * every address is checked, and the connection goes to the checked address (`resolveOutboundHost`).
 * Development may allow loopback (OUTBOUND_ALLOW_LOOPBACK), and only loopback.
 */
export interface OutboundPolicy {
  /** Development only: loopback addresses (and localhost names) are allowed; nothing else internal is. */
  readonly allowLoopback: boolean;
}

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

/**
 * Names that can only be internal, whatever DNS says of them today: refused when saved, like a literal of
 * their kind. Any other name is judged by what it resolves to, when connecting.
 */
const INTERNAL_NAMES: readonly { readonly matches: (labels: readonly string[]) => boolean; readonly kind: Range['kind']; readonly source: string }[] = [
  { matches: (labels) => labels.at(-1) === 'localhost', kind: 'loopback', source: 'RFC 6761 section 6.3: localhost and *.localhost are loopback' },
  { matches: (labels) => labels.at(-1) === 'local', kind: 'link-local', source: 'RFC 6762: .local is multicast DNS on the local link' },
  { matches: (labels) => labels.at(-1) === 'internal', kind: 'private', source: 'ICANN board resolution 2024.07.29.06: .internal is for private use' },
  { matches: (labels) => labels.slice(-2).join('.') === 'home.arpa', kind: 'private', source: 'RFC 8375: home.arpa is for home networks' },
  // A single label is completed with the deployment's DNS search domains (metadata, redis, kubernetes, ...).
  { matches: (labels) => labels.length === 1, kind: 'private', source: "resolver search domains: a single label names a host of the deployment's own network" },
];

function inRange(bytes: readonly number[], { prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const left = Math.min(8, bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * What kind of address `ip` is: an IPv4 or IPv6 literal, brackets and zone allowed, or an IPv4 address in one
 * of the legacy numeric forms a system resolver still accepts (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`).
 * Undefined when it is no address.
 */
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

/** The literal without brackets and zone (`[fe80::1%eth0]` -> `fe80::1`). */
function bareLiteral(text: string): string {
  const ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = ip.indexOf('%');
  return zone >= 0 ? ip.slice(0, zone) : ip;
}

/** The bytes of an IP literal (4 or 16), or undefined. */
function parseIp(text: string): number[] | undefined {
  let ip = bareLiteral(text);
  const family = isIP(ip);
  if (family === 4) return ip.split('.').map(Number);
  if (family !== 6) return parseLegacyIpv4(ip);
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

const LEGACY_PART = /^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i;

/**
 * inet_aton's forms (glibc's getaddrinfo accepts them): one to four parts, each decimal, octal (leading 0) or
 * hex (0x); the last part fills the remaining bytes. `127.1` is 127.0.0.1 to the resolver, so it is to us.
 */
function parseLegacyIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || !parts.every((part) => LEGACY_PART.test(part))) return undefined;
  const values = parts.map((part) =>
    /^0x/i.test(part) ? parseInt(part.slice(2) || '0', 16) : part.length > 1 && part.startsWith('0') ? parseInt(part, 8) : Number(part),
  );
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 0xff) || last >= 2 ** (8 * (4 - values.length))) return undefined;
  const bytes = [...values];
  for (let shift = 8 * (3 - values.length); shift >= 0; shift -= 8) bytes.push(Math.floor(last / 2 ** shift) % 256);
  return bytes;
}

/** The kind of a host as written: an address's kind, a name that can only be internal, or undefined for other names. */
export function classifyHost(host: string): AddressKind | undefined {
  const name = host.toLowerCase().replace(/\.$/, '');
  const address = classifyAddress(name);
  if (address !== undefined) return address;
  const labels = name.split('.');
  return INTERNAL_NAMES.find((rule) => rule.matches(labels))?.kind;
}

/** Whether the service may connect to a host of this kind: public, or loopback when development allows it. */
export function isAllowedKind(kind: AddressKind | undefined, policy: OutboundPolicy): boolean {
  return kind === 'public' || (kind === 'loopback' && policy.allowLoopback);
}

/** Whether the service may connect to `ip` (a literal): public, or loopback when development allows it. */
export function isAllowedAddress(ip: string, policy: OutboundPolicy): boolean {
  return isAllowedKind(classifyAddress(ip), policy);
}

/**
 * Why a host a tenant gives (a name or a literal) is refused at save time, or undefined: literals and names
 * that can only be internal are judged now; other names when connecting (resolveOutboundHost).
 */
export function hostProblem(host: string, policy: OutboundPolicy): string | undefined {
  const kind = classifyHost(host);
  if (kind === undefined || isAllowedKind(kind, policy)) return undefined;
  return `Must not be a ${kind} address or name: the service connects to public internet addresses only.`;
}

/** Error code of a connection the policy refused (on the Error, as Node's own errors carry theirs). */
export const REFUSED_ADDRESS = 'EOUTBOUNDADDRESS';

/**
 * A refused connection. The message names the host as the tenant gave it and nothing it resolved to: what a
 * name resolves to inside the deployment's network is not the tenant's to learn. A name with no address at all
 * gets the same message, so the answer cannot tell an internal name from a missing one.
 */
export function refusedHostError(host: string): Error & { code: string } {
  const message =
    classifyAddress(host) === undefined
      ? `Refused to connect to ${host}: it does not resolve to public internet addresses only.`
      : `Refused to connect to ${host}: it is not a public internet address.`;
  return Object.assign(new Error(message), { code: REFUSED_ADDRESS });
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup by default; tests stand in their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * Every address a name resolved to must be allowed, or the connection is refused (one internal address among
 * public ones is a DNS rebinding attempt, not a reason to pick another). Returns the addresses, in order.
 */
export function checkResolved(host: string, addresses: readonly ResolvedAddress[], policy: OutboundPolicy): readonly ResolvedAddress[] {
  if (addresses.length === 0 || addresses.some((address) => !isAllowedAddress(address.address, policy))) throw refusedHostError(host);
  return addresses;
}

/** DNS answers that say the name has no address (as opposed to a resolver that could not answer now). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * The one address to connect to for `host`: the literal itself, or the first of the name's addresses once every
 * one of them passed. Connect to what this returns, never to the name again: resolving twice would let a DNS
 * answer that changed in between (a rebinding) reach an address nobody checked.
 */
export async function resolveOutboundHost(host: string, policy: OutboundPolicy, resolve: Resolver = systemResolver): Promise<ResolvedAddress> {
  const kind = classifyHost(host);
  if (kind !== undefined) {
    if (!isAllowedKind(kind, policy)) throw refusedHostError(host);
    const bytes = parseIp(host.replace(/\.$/, ''));
    // A localhost name in development: loopback, without asking a resolver that may answer otherwise.
    if (!bytes) return { address: '127.0.0.1', family: 4 };
    return bytes.length === 4 ? { address: bytes.join('.'), family: 4 } : { address: bareLiteral(host), family: 6 };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw resolutionError(host, error);
  }
  const [first] = checkResolved(host, addresses, policy);
  return first as ResolvedAddress;
}

/**
 * A failed lookup as the caller may see it: a name with no address is refused like an internal one (the same
 * words), anything else is a resolver that could not answer now.
 */
export function resolutionError(host: string, error: unknown): Error & { code: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && NO_SUCH_NAME.has(code)) return refusedHostError(host);
  return Object.assign(new Error(`Could not resolve ${host} right now${code ? ` (${code})` : ''}.`), { code: code ?? 'EAI_AGAIN' });
}

/**
 * A connection error's text without the addresses in it (Node writes `connect ECONNREFUSED 10.1.2.3:22`): a
 * failure reported to a tenant says what went wrong, not where inside the network it went.
 */
export function withoutAddresses(text: string): string {
  return text.replace(/[[\]0-9A-Fa-f:.%]*[:.][[\]0-9A-Fa-f:.%]*/g, (token) => {
    const candidates = [token, token.replace(/:\d+$/, ''), token.replace(/^\[(.*)\]:\d+$/, '$1'), token.replace(/[.:]+$/, '')];
    return candidates.some((candidate) => isIP(bareLiteral(candidate)) !== 0) ? 'the address' : token;
  });
}

/** TCP ports as inclusive ranges (a single port is a range of one). */
export type PortRanges = readonly (readonly [from: number, to: number])[];

/** SFTP's port and the usual alternative, unless SFTP_ALLOWED_PORTS says otherwise. */
export const DEFAULT_SFTP_PORTS: PortRanges = [
  [22, 22],
  [2222, 2222],
];

/** `22,2222,10022-10030`: ports and ranges, comma-separated. Throws with a message naming what is wrong. */
export function parsePortList(text: string): PortRanges {
  const items = text.split(',').map((item) => item.trim());
  const ranges = items.map((item): [number, number] => {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item);
    const from = Number(match?.[1]);
    const to = match?.[2] === undefined ? from : Number(match[2]);
    if (!match || from < 1 || to > 65_535 || from > to) throw new Error(`"${item}" is not a TCP port (1-65535) or a range of them (from-to)`);
    return [from, to];
  });
  return ranges;
}

export function isAllowedPort(ranges: PortRanges, port: number): boolean {
  return ranges.some(([from, to]) => port >= from && port <= to);
}

/** `22, 2222 or 10022-10030`, for messages. */
export function describePorts(ranges: PortRanges): string {
  const items = ranges.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`));
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}` : (items[0] ?? 'none');
}
