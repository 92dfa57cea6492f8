import { describe, expect, it } from 'vitest';
import { batches, repeatWhileFull, sumConcurrently } from './batches.ts';
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

describe('sumConcurrently', () => {
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('when 7 items go at most 3 at a time, then never more than 3 run at once, each runs once and the sum is returned', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    const sum = await sumConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      seen.push(item);
      running -= 1;
      return item;
    });
    expect(sum).toBe(28);
    expect(most).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('when one item fails, then no new item starts, the running ones finish before it throws, and the first failure is thrown', async () => {
    const started: number[] = [];
    let running = 0;
    const failing = sumConcurrently([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      running += 1;
      await tick();
      running -= 1;
      if (item === 2) throw new Error('item 2 failed');
      if (item === 3) throw new Error('item 3 failed');
      return item;
    });
    await expect(failing).rejects.toThrow('item 2 failed');
    expect(running).toBe(0);
    expect(started).toEqual([1, 2, 3]);
  });

  it('when there is nothing to do, then 0; when atOnce is not a positive integer, then it refuses', async () => {
    expect(await sumConcurrently([], 4, async () => 1)).toBe(0);
    await expect(sumConcurrently([1], 0, async () => 1)).rejects.toThrow('atOnce');
  });
});
