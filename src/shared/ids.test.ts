import { describe, expect, it } from 'vitest';
import { compareIds, ID_PATTERN, ID_PREFIXES, isWellFormedId, newId, orderText, randomBase62, type IdKind } from './ids.ts';

const KINDS = Object.entries(ID_PREFIXES) as [IdKind, string][];

describe('newId', () => {
  it.each(KINDS)('when a %s id is made, then it is "%s_" and 20 base62 characters', (kind, prefix) => {
    const id = newId(kind);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{20}$`));
    expect(id).toMatch(new RegExp(ID_PATTERN));
    expect(isWellFormedId(id)).toBe(true);
  });

  it('when every kind has a prefix, then no two kinds share one', () => {
    const prefixes = Object.values(ID_PREFIXES);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });

  it('when 10,000 ids are made, then they are all different', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('employer')));
    expect(ids.size).toBe(10_000);
  });
});

describe('newId order', () => {
  it('when 10,000 are made in a row (far more than one per millisecond), then each sorts after the one before', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('event'));
    expect(new Set(ids).size).toBe(ids.length);
    for (let index = 1; index < ids.length; index += 1) expect(ids[index]! > ids[index - 1]!).toBe(true);
  });

  it('when compared as lowercase-insensitive text too (a database collation), then the order holds', () => {
    const ids = Array.from({ length: 1_000 }, () => newId('event'));
    const collated = [...ids].sort((a, b) => a.slice(0, 15).localeCompare(b.slice(0, 15), 'en-US'));
    expect(collated).toEqual(ids);
  });
});

describe('randomBase62', () => {
  it.each([0, 1, 12, 20, 64, 1000])('when %i characters are asked for, then exactly that many base62 characters come back', (length) => {
    const value = randomBase62(length);
    expect(value).toHaveLength(length);
    expect(value).toMatch(/^[0-9A-Za-z]*$/);
  });

  it('when many characters are drawn, then every base62 character turns up about equally often', () => {
    const expectedPerCharacter = 2000;
    const counts = new Map<string, number>();
    for (const character of randomBase62(62 * expectedPerCharacter)) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // A modulo bias would make the first 8 characters ~25% more frequent; chance alone stays within ~±10%.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(expectedPerCharacter * 0.85);
      expect(count).toBeLessThan(expectedPerCharacter * 1.15);
    }
  });
});

describe('isWellFormedId', () => {
  it.each([
    ['er_3kTq9ZbX1mP0aLwYc7Dn', 'a generated id'],
    ['a', 'a single character'],
    ['client-abc_123', 'hyphens and underscores'],
    ['-_', 'only punctuation allowed by the pattern'],
    ['x'.repeat(64), '64 characters'],
  ])('when given %j (%s), then it is well formed', (value) => {
    expect(isWellFormedId(value)).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(65), '65 characters'],
    ['has space', 'a space'],
    ['er/123', 'a slash'],
    ['er.123', 'a dot'],
    ['er%20', 'a percent sign'],
    ['ümlaut', 'a non-ASCII letter'],
    ['er_1\n', 'a trailing newline'],
    ['\ner_1', 'a leading newline'],
    ['../etc', 'a path'],
  ])('when given %j (%s), then it is not well formed', (value) => {
    expect(isWellFormedId(value)).toBe(false);
  });
});

describe('compareIds', () => {
  it('when ids differ only in case, then they order by code unit (upper case first), as SQLite BINARY and PostgreSQL "C" do', () => {
    const ids = ['mem_0000000000aZ', 'mem_0000000000Az', 'mem_0000000000az', 'mem_0000000000AZ', 'mem_00000000009z'];
    expect([...ids].sort(compareIds)).toEqual(['mem_00000000009z', 'mem_0000000000AZ', 'mem_0000000000Az', 'mem_0000000000aZ', 'mem_0000000000az']);
    expect(compareIds('mem_a', 'mem_a')).toBe(0);
  });

  it('when ids are made one after another, then they sort in the order they were made', () => {
    const made = Array.from({ length: 1000 }, () => newId('member'));
    expect([...made].reverse().sort(compareIds)).toEqual(made);
  });
});

describe('orderText', () => {
  it('when counters cross the kept high part (each 36^3), then the text is the whole counter in base36, zero-padded to 11', () => {
    const now = Date.now() * 36 ** 2;
    const around = (value: number) => [value - 1, value, value + 1];
    const counters = [
      0,
      1,
      35,
      36,
      ...around(36 ** 3),
      ...around(2 * 36 ** 3),
      ...around(Math.ceil(now / 36 ** 3) * 36 ** 3),
      now,
      now + 12_345,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const counter of [...counters, ...counters.reverse()]) expect(orderText(counter)).toBe(counter.toString(36).padStart(11, '0'));
  });

  it('when a new id is made, then its 11 counter characters read back as a counter of this millisecond or later', () => {
    const before = Date.now() * 36 ** 2;
    const counter = parseInt(newId('event').slice('evt_'.length, 'evt_'.length + 11), 36);
    expect(counter).toBeGreaterThanOrEqual(before);
    expect(counter).toBeLessThanOrEqual((Date.now() + 1) * 36 ** 2 + 1_000_000);
  });
});
