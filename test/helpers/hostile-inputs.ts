import { gzipSync } from 'node:zlib';

/*
 * Hostile request parts for the fuzz test (docs/decisions.md "Requests"): boundary timestamps, JSON nested or
 * repeated up to a size, long strings, and bodies in other encodings. Every builder returns JSON text (or bytes) of a
 * known size, so that a case can be made to fit a body limit exactly.
 */

/** Timestamps on and past every edge a parser, a Date or a database column has. */
export const BOUNDARY_TIMESTAMPS: readonly (readonly [label: string, value: string])[] = [
  ['leap second', '2026-06-30T23:59:60Z'],
  ['real leap second', '2016-12-31T23:59:60Z'],
  ['leap second with offset', '2026-07-01T01:59:60+02:00'],
  ['year 0', '0000-01-01T00:00:00Z'],
  ['year 1', '0001-01-01T00:00:00Z'],
  ['year 1 shifted to year 0', '0001-01-01T00:00:00+01:00'],
  ['last millisecond of 9999', '9999-12-31T23:59:59.999Z'],
  ['9999 shifted to 10000', '9999-12-31T23:59:59-01:00'],
  ['expanded year 10000', '+010000-01-01T00:00:00Z'],
  ['expanded year -1', '-000001-01-01T00:00:00Z'],
  ['past the Date range', '+275760-09-13T00:00:00.001Z'],
  ['2026-02-29 (not a leap year)', '2026-02-29T00:00:00Z'],
  ['2024-02-29 (leap year)', '2024-02-29T12:00:00Z'],
  ['1900-02-29 (not a leap year)', '1900-02-29T00:00:00Z'],
  ['before the epoch', '1969-12-31T23:59:59.999Z'],
  ['the epoch', '1970-01-01T00:00:00Z'],
  ['2038 overflow', '2038-01-19T03:14:08Z'],
  ['offset +14:00', '2026-03-01T00:00:00+14:00'],
  ['offset -12:00', '2026-03-01T00:00:00-12:00'],
  ['offset +24:00', '2026-03-01T00:00:00+24:00'],
  ['offset -23:59', '2026-03-01T00:00:00-23:59'],
  ['offset +99:99', '2026-03-01T00:00:00+99:99'],
  ['offset without colon', '2026-03-01T00:00:00+0100'],
  ['lower-case t and z', '2026-03-01t00:00:00z'],
  ['space separator', '2026-03-01 00:00:00Z'],
  ['no zone', '2026-03-01T00:00:00'],
  ['hour 24', '2026-03-01T24:00:00Z'],
  ['nanoseconds', '2026-03-01T00:00:00.123456789Z'],
  ['1000 fraction digits', `2026-03-01T00:00:00.${'9'.repeat(1000)}Z`],
  ['100000 fraction digits', `2026-03-01T00:00:00.${'1'.repeat(100_000)}Z`],
  ['empty fraction', '2026-03-01T00:00:00.Z'],
  ['date only', '2026-03-01'],
];

/** Calendar dates on and past the edges. */
export const BOUNDARY_DATES: readonly (readonly [label: string, value: string])[] = [
  ['2026-02-29 (not a leap year)', '2026-02-29'],
  ['2024-02-29 (leap year)', '2024-02-29'],
  ['2000-02-29 (leap century)', '2000-02-29'],
  ['2100-02-29 (not a leap year)', '2100-02-29'],
  ['year 0', '0000-01-01'],
  ['year 1', '0001-01-01'],
  ['last day of 9999', '9999-12-31'],
  ['expanded year 10000', '+010000-01-01'],
  ['expanded year -1', '-000001-01-01'],
  ['before the epoch', '1969-12-31'],
  ['the epoch', '1970-01-01'],
  ['date of the leap second', '2026-06-30'],
  ['leap second timestamp', '2026-06-30T23:59:60Z'],
  ['date with offset', '2026-03-01+14:00'],
  ['five-digit year', '10000-01-01'],
];

/** The sizes a case is made to fit: a body limit, minus a little. */
export const LITTLE = 64;

/** `[[[...1...]]]`, `depth` arrays deep. */
export const deepArrayText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
/** `{"a":{"a":...1...}}`, `depth` objects deep. */
export const deepObjectText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** `[{"a":[{"a":...1...}]}]`, arrays and objects alternating, `depth` levels deep. */
export const deepMixedText = (depth: number) => {
  const pairs = Math.floor(depth / 2);
  const odd = depth % 2 === 1;
  return `${'[{"a":'.repeat(pairs)}${odd ? '[1]' : '1'}${'}]'.repeat(pairs)}`;
};

export type Nesting = 'array' | 'object' | 'mixed';
const NESTING_BYTES: Record<Nesting, number> = { array: 2, object: 6, mixed: 4 };
const NESTED: Record<Nesting, (depth: number) => string> = { array: deepArrayText, object: deepObjectText, mixed: deepMixedText };

export const nestedText = (kind: Nesting, depth: number) => NESTED[kind](depth);
/** The deepest nesting of a kind that takes at most `bytes`. */
export const deepestIn = (kind: Nesting, bytes: number) => Math.max(1, Math.floor((bytes - 3) / NESTING_BYTES[kind]));

/** `[item,item,...]`, `count` times. */
export const repeatedArrayText = (count: number, item = '1') => `[${Array.from({ length: count }, () => item).join(',')}]`;
/** As many copies of `item` as fit in `bytes`. */
export const repeatedArrayIn = (bytes: number, item = '1') => repeatedArrayText(Math.max(1, Math.floor((bytes - 1) / (Buffer.byteLength(item) + 1))), item);

/** `{"k0":0,"k1":1,...}` with `count` keys, after `prefix` (the inside of another object, may be empty). */
export const manyKeysText = (count: number, prefix = '') =>
  `{${prefix}${prefix && count > 0 ? ',' : ''}${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')}}`;

export type Filling = 'ascii' | 'two-byte' | 'escapes' | 'emoji';
/** A JSON string literal of at most `bytes` bytes (quotes included), of plain or costlier characters. */
export function longStringText(bytes: number, filling: Filling = 'ascii'): string {
  const room = Math.max(0, bytes - 2);
  switch (filling) {
    case 'ascii':
      return `"${'x'.repeat(room)}"`;
    case 'two-byte':
      return `"${'é'.repeat(Math.floor(room / 2))}"`;
    case 'escapes':
      return `"${'\\u00e9'.repeat(Math.floor(room / 6))}"`;
    case 'emoji':
      return `"${'😀'.repeat(Math.floor(room / 4))}"`;
  }
}

/** A value that takes at most `bytes` bytes of JSON text. */
export type Filler = (bytes: number) => string;

/**
 * The JSON text `template` with its single `marker` replaced by what `fill` makes of the room left, so that
 * the whole takes at most `total` bytes.
 */
export function fitTo(template: string, marker: string, total: number, fill: Filler): string {
  const room = total - (Buffer.byteLength(template) - Buffer.byteLength(marker));
  return template.replace(marker, () => fill(room));
}

// ---------------------------------------------------------------------------------------------------------
// Encodings

/** UTF-16 little-endian with a byte order mark, as `charset=utf-16` allows. */
export const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
/** ISO-8859-1 bytes (every character of `text` must be below U+0100). */
export const latin1 = (text: string) => Buffer.from(text, 'latin1');
export const gzip = (text: string | Buffer) => gzipSync(text);

let bomb: Buffer | undefined;
/** About 100 KiB of gzip that inflates to 100 MiB of spaces (valid JSON whitespace): 100 gzip members of 1 MiB each. */
export function gzipBomb(): Buffer {
  if (!bomb) {
    const member = gzipSync(Buffer.alloc(1024 * 1024, ' '), { level: 9 });
    bomb = Buffer.concat(Array.from({ length: 100 }, () => member));
  }
  return bomb;
}

/** A multipart/form-data body of text fields, with its boundary. */
export function multipart(fields: Record<string, string>, boundary = 'fuzz-boundary-7MA4YWxkTrZu0gW'): { body: string; contentType: string } {
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { body: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

export const formUrlEncoded = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
