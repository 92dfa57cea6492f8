import { describe, expect, it } from 'vitest';
import { batches, repeatWhileFull } from './batches.ts';
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

describe('repeatWhileFull', () => {
  it('when runs handle 3, 3 then 1 of batches of 3, then it stops after the short run and counts 7', async () => {
    const handled = [3, 3, 1, 3];
    let runs = 0;
    expect(await repeatWhileFull(3, async () => handled[runs++]!)).toBe(7);
    expect(runs).toBe(3);
  });
});
