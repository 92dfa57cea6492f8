import { describe, expect, it } from 'vitest';
import { progressOn } from './progress.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('progressOn', () => {
  it.each([
    // [updates (done of 50,000), lines written]: a line each time another tenth is reached, never twice for one tenth.
    [[1_000, 4_999], 0],
    [[5_000], 1],
    [[5_000, 9_999], 1],
    [[5_000, 10_000, 15_000], 3],
    [[49_999], 1],
    [[1_000, 50_000], 1],
    [[50_000, 50_000], 1],
  ])('when not a terminal and %j of 50,000 are done, then %i line(s) are written', (updates, lines) => {
    const out = stream(false);
    const progress = progressOn(out, 'Checking');
    for (const done of updates) progress.update(done, 50_000);
    progress.end();
    expect(out.written).toHaveLength(lines);
    for (const line of out.written) expect(line).toMatch(/^Checking: [\d,]+ of 50,000 rows \(\d+%\)\n$/);
  });

  it('when not a terminal, then the last line is 100% of the rows', () => {
    const out = stream(false);
    const progress = progressOn(out, 'Applying');
    progress.update(200, 400);
    progress.update(400, 400);
    expect(out.written.at(-1)).toBe('Applying: 400 of 400 rows (100%)\n');
  });

  it('when a terminal, then a bar is redrawn in place on one line, ended by one line end', () => {
    const out = stream(true);
    const progress = progressOn(out, 'Checking');
    progress.update(0, 3_000);
    progress.update(1_500, 3_000);
    progress.update(3_000, 3_000);
    progress.end();
    expect(out.written).toHaveLength(4);
    expect(out.written[1]).toBe(`\rChecking [${'#'.repeat(15)}${'.'.repeat(15)}]  50% 1,500/3,000 rows\x1b[K`);
    expect(out.written[2]).toContain(`[${'#'.repeat(30)}] 100% 3,000/3,000 rows`);
    expect(out.written.join('').split('\n')).toHaveLength(2);
  });

  it('when a terminal shows nothing, then end writes nothing; an empty total is done', () => {
    const idle = stream(true);
    progressOn(idle, 'Checking').end();
    expect(idle.written).toEqual([]);
    const empty = stream(false);
    progressOn(empty, 'Checking').update(0, 0);
    expect(empty.written).toEqual(['Checking: 0 of 0 rows (100%)\n']);
  });
});
