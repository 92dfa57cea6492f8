import { describe, expect, it } from 'vitest';
import { InFlight } from './in-flight.ts';

/** A statement that ends when told to. */
function deferred() {
  let end!: (error?: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    end = (error) => (error ? reject(error) : resolve());
  });
  return { promise, end };
}

describe('InFlight', () => {
  it('when more than the limit are unanswered, then add waits for the oldest, and only for it', async () => {
    const writes = new InFlight(2);
    const [a, b, c] = [deferred(), deferred(), deferred()];
    await writes.add(a.promise);
    await writes.add(b.promise);
    let added = false;
    const third = writes.add(c.promise).then(() => (added = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(added).toBe(false);
    a.end();
    await third;
    expect(added).toBe(true);
    b.end();
    c.end();
    await writes.drain();
  });

  it('when a statement fails, then the next add and drain throw its error, and settle waits without throwing', async () => {
    const writes = new InFlight(4);
    const failing = deferred();
    await writes.add(failing.promise);
    failing.end(new Error('disk full'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(writes.add(Promise.resolve())).rejects.toThrow('disk full');
    await expect(writes.drain()).rejects.toThrow('disk full');
    await expect(writes.settle()).resolves.toBeUndefined();
  });

  it('when work runs around its statements, then its result comes after all of them; a failed work throws its own error once they have ended', async () => {
    const writes = new InFlight(4);
    const ended: string[] = [];
    const later = (name: string) => new Promise<void>((resolve) => setTimeout(() => resolve(void ended.push(name)), 5));
    expect(await writes.around(async () => (await writes.add(later('a')), 'built'))).toBe('built');
    expect(ended).toEqual(['a']);
    await expect(
      writes.around(async () => {
        await writes.add(later('b'));
        throw new Error('writer failed');
      }),
    ).rejects.toThrow('writer failed');
    expect(ended).toEqual(['a', 'b']);
    await expect(writes.around(async () => writes.add(Promise.reject(new Error('disk full'))))).rejects.toThrow('disk full');
  });

  it('when drained, then every statement has ended; a limit below one is refused', async () => {
    const writes = new InFlight(8);
    const ended: number[] = [];
    for (let i = 0; i < 5; i++) await writes.add(new Promise<void>((resolve) => setTimeout(() => resolve(void ended.push(i)), 5 - i)));
    await writes.drain();
    expect(ended.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(() => new InFlight(0)).toThrow(/positive integer/);
  });
});
