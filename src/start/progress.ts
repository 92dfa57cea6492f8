/** Where a command shows its progress: stderr, a terminal or not (a pipe, a log file, a CI job). */
export interface ProgressStream {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

export interface Progress {
  /** `done` of `total` so far; called after each batch of work. */
  update(done: number, total: number): void;
  /** Ends the display (a terminal's bar gets its line end). */
  end(): void;
}

const BAR_WIDTH = 30;
const TENTHS = 10;

function count(value: number): string {
  return value.toLocaleString('en-US');
}

function percent(done: number, total: number): number {
  return total <= 0 ? 100 : Math.min(100, Math.floor((done * 100) / total));
}

/**
 * A progress display on `stream`: on a terminal, a bar redrawn in place (`label [#####.....] 50% 25,000/50,000
 * rows`); elsewhere a line each time another tenth is done, so that a log gets at most ten lines and never the
 * carriage returns of a bar.
 */
export function progressOn(stream: ProgressStream, label: string): Progress {
  let drawn = false;
  let lastTenth = 0;
  if (stream.isTTY === true) {
    return {
      update(done, total) {
        const share = percent(done, total);
        const filled = Math.round((share * BAR_WIDTH) / 100);
        // \r back to the line's start, \x1b[K clears what a longer previous line left.
        stream.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(share).padStart(3)}% ${count(done)}/${count(total)} rows\x1b[K`,
        );
        drawn = true;
      },
      end() {
        if (drawn) stream.write('\n');
        drawn = false;
      },
    };
  }
  return {
    update(done, total) {
      const tenth = Math.floor(percent(done, total) / TENTHS);
      if (tenth <= lastTenth) return;
      lastTenth = tenth;
      stream.write(`${label}: ${count(done)} of ${count(total)} rows (${percent(done, total)}%)\n`);
    },
    end() {
      lastTenth = 0;
    },
  };
}
