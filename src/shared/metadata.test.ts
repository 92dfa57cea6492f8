import { describe, expect, it } from 'vitest';
import { ValidationFailed } from './errors.ts';
import { METADATA_LIMITS, mergeMetadata, metadataErrors, parseMetadata, type Metadata } from './metadata.ts';

function pairs(count: number, prefix = 'key'): Metadata {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, `value${index}`]));
}

function mergeError(current: Metadata, update: Record<string, string>, fieldPath?: string[]): ValidationFailed {
  try {
    mergeMetadata(current, update, fieldPath);
  } catch (error) {
    if (error instanceof ValidationFailed) return error;
    throw error;
  }
  throw new Error('expected mergeMetadata to throw');
}

describe('mergeMetadata', () => {
  it.each<[string, Metadata, Record<string, string>, Metadata]>([
    ['a create starts from nothing', {}, { plan_year: '2026' }, { plan_year: '2026' }],
    ['a supplied key overwrites', { tier: 'gold' }, { tier: 'silver' }, { tier: 'silver' }],
    ['an empty string removes', { tier: 'gold', region: 'west' }, { tier: '' }, { region: 'west' }],
    ['removing an absent key changes nothing', { tier: 'gold' }, { region: '' }, { tier: 'gold' }],
    ['absent keys stay', { tier: 'gold', region: 'west' }, { source: 'hris' }, { tier: 'gold', region: 'west', source: 'hris' }],
    ['an empty update changes nothing', { tier: 'gold' }, {}, { tier: 'gold' }],
    ['overwrite, removal and addition combine', { a: '1', b: '2', c: '3' }, { a: 'one', b: '', d: '4' }, { a: 'one', c: '3', d: '4' }],
    ['keys named like Object members are plain keys', {}, { constructor: 'x', toString: 'y' }, { constructor: 'x', toString: 'y' }],
    ['a whitespace value is kept, not removed', { tier: 'gold' }, { tier: ' ' }, { tier: ' ' }],
  ])('when %s, then the result is the merge', (_, current, update, expected) => {
    expect(mergeMetadata(current, update)).toStrictEqual(expected);
  });

  it('when the update is absent, then the current metadata is returned as is', () => {
    const current = { tier: 'gold' };
    expect(mergeMetadata(current, undefined)).toBe(current);
  });

  it('when merging, then the current metadata is not mutated', () => {
    const current = { tier: 'gold', region: 'west' };
    mergeMetadata(current, { tier: '', source: 'hris' });
    expect(current).toStrictEqual({ tier: 'gold', region: 'west' });
  });

  describe('the 50-pair limit applies to the merged result', () => {
    it.each<[string, Metadata, Record<string, string>, number]>([
      ['a create with exactly 50 pairs', {}, pairs(50), 50],
      ['an update that adds the 50th pair', pairs(49), { extra: 'x' }, 50],
      ['an update that overwrites keys of a full record', pairs(50), { key0: 'new', key49: 'new' }, 50],
      ['an update that removes one pair and adds one to a full record', pairs(50), { key0: '', extra: 'x' }, 50],
      ['an update that removes two pairs and adds one to a full record', pairs(50), { key0: '', key1: '', extra: 'x' }, 49],
      ['an update of 60 removals', pairs(10), { ...Object.fromEntries(Object.keys(pairs(60)).map((key) => [key, ''])) }, 0],
    ])('when %s, then it is accepted', (_, current, update, size) => {
      expect(Object.keys(mergeMetadata(current, update))).toHaveLength(size);
    });

    it.each<[string, Metadata, Record<string, string>]>([
      ['a create with 51 pairs', {}, pairs(51)],
      ['an update that adds a 51st pair', pairs(50), { extra: 'x' }],
      ['an update that removes one pair and adds two to a full record', pairs(50), { key0: '', extra1: 'x', extra2: 'y' }],
      ['an update of 30 new pairs onto 30', pairs(30, 'old'), pairs(30, 'new')],
    ])('when %s, then it fails naming metadata', (_, current, update) => {
      const error = mergeError(current, update);
      expect(error.type).toBe('validation_error');
      expect(error.statusCode).toBe(400);
      expect(error.inputErrors?.map(({ field, field_path }) => ({ field, field_path }))).toStrictEqual([{ field: 'metadata', field_path: ['metadata'] }]);
      expect(error.inputErrors?.[0]?.message).toContain(String(METADATA_LIMITS.pairs));
    });
  });

  describe('key and value sizes', () => {
    const key40 = 'k'.repeat(40);
    const key41 = 'k'.repeat(41);
    const value500 = 'v'.repeat(500);
    const value501 = 'v'.repeat(501);

    it('when a key has 40 characters and a value 500, then they are accepted', () => {
      expect(mergeMetadata({}, { [key40]: value500 })).toStrictEqual({ [key40]: value500 });
    });

    it.each([
      ['a key has 41 characters', { [key41]: 'x' }, key41, /40/],
      ['a value has 501 characters', { tier: value501 }, 'tier', /500/],
      ['a key is empty', { '': 'x' }, '', /empty/],
    ])('when %s, then it fails naming that key', (_, update, key, message) => {
      const error = mergeError({}, update);
      expect(error.inputErrors?.map(({ field, field_path }) => ({ field, field_path }))).toStrictEqual([{ field: key, field_path: ['metadata', key] }]);
      expect(error.inputErrors?.[0]?.message).toMatch(message);
    });

    it('when several pairs break rules, then each is named', () => {
      const error = mergeError({ tier: 'gold' }, { [key41]: 'x', long: value501, fine: 'ok' });
      expect(error.inputErrors?.map((inputError) => inputError.field_path)).toStrictEqual([
        ['metadata', key41],
        ['metadata', 'long'],
      ]);
    });

    it('when the metadata sits deeper in the body, then the given field path prefixes the key', () => {
      const error = mergeError({}, { [key41]: 'x' }, ['dependents', '0', 'metadata']);
      expect(error.inputErrors?.[0]?.field_path).toStrictEqual(['dependents', '0', 'metadata', key41]);
      const tooMany = mergeError({}, pairs(51), ['dependents', '0', 'metadata']);
      expect(tooMany.inputErrors?.[0]?.field_path).toStrictEqual(['dependents', '0', 'metadata']);
    });
  });
});

describe('metadataErrors', () => {
  it.each<[string, Record<string, unknown>, string[][]]>([
    ['all pairs are fine', { tier: 'gold', region: '' }, []],
    ['a value is a number', { count: 3 }, [['metadata', 'count']]],
    ['a value is null', { gone: null }, [['metadata', 'gone']]],
    ['a value is an object', { nested: { a: 'b' } }, [['metadata', 'nested']]],
    [
      'a long key also has a non-string value',
      { ['k'.repeat(41)]: 1 },
      [
        ['metadata', 'k'.repeat(41)],
        ['metadata', 'k'.repeat(41)],
      ],
    ],
  ])('when %s, then the errors name %j', (_, metadata, fieldPaths) => {
    expect(metadataErrors(metadata).map((inputError) => inputError.field_path)).toStrictEqual(fieldPaths);
  });
});

describe('parseMetadata', () => {
  it('when stored metadata is read back, then it is the same pairs', () => {
    const metadata = { tier: 'gold', 'quoted "key"': 'line\nbreak', emoji: '🎉' };
    expect(parseMetadata(JSON.stringify(metadata))).toStrictEqual(metadata);
  });
});
