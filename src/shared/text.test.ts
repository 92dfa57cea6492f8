import { describe, expect, it } from 'vitest';
import { batches } from './batches.ts';
import { listParameterValues, truncate } from './text.ts';

describe('truncate', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['eleven chars', 10, 'eleven ch…'],
    ['abcdefgh😀xyz', 10, 'abcdefgh…'],
  ])('when %j is cut to %i, then %j', (text, length, expected) => {
    expect(truncate(text, length)).toBe(expected);
    expect(truncate(text, length).length).toBeLessThanOrEqual(length);
  });
});

describe('batches', () => {
  it('when 5 items go in slices of 2, then 2, 2 and 1 in order; none for no items', () => {
    expect([...batches([1, 2, 3, 4, 5], 2)]).toEqual([[1, 2], [3, 4], [5]]);
    expect([...batches([], 2)]).toEqual([]);
  });
});

describe('listParameterValues', () => {
  it('when values are repeated and comma-separated with blanks, then each value once per mention, trimmed', () => {
    expect(listParameterValues(['a,b', ' c ,', ''])).toEqual(['a', 'b', 'c']);
    expect(listParameterValues([])).toEqual([]);
  });
});
