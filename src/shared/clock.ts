/** The source of "now". Injected everywhere so that tests can travel in time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved; for tests. */
export class FixedClock implements Clock {
  #instant: Date;
  constructor(instant: Date | string) {
    this.#instant = new Date(instant);
  }
  now(): Date {
    return new Date(this.#instant);
  }
  set(instant: Date | string): void {
    this.#instant = new Date(instant);
  }
  advance(milliseconds: number): void {
    this.#instant = new Date(this.#instant.getTime() + milliseconds);
  }
}
