/** Where a progress bar is drawn: a terminal stream (`process.stderr`). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A one-line progress bar of cases done; draws nothing unless the stream is a TTY. */
export interface ProgressBar {
  /** One more case done, with its verdict. */
  tick(passed: boolean): void;
  /** Ends the line. */
  done(): void;
}

const WIDTH = 30;

/**
 * A progress bar `[#####·····] 5/20 cases, 1 failed` redrawn in place on a TTY; on anything else (a CI
 * log, a file, a pipe) it draws nothing.
 *
 * Contract: never throws for a writable stream; `total` is the number of `tick` calls expected.
 *
 * @example
 * ```ts
 * const bar = progressBar(process.stderr, 3);
 * bar.tick(true);
 * bar.done();
 * ```
 */
export function progressBar(stream: ProgressStream | undefined, total: number): ProgressBar {
  if (stream?.isTTY !== true) return { tick() {}, done() {} };
  let done = 0;
  let failed = 0;
  const draw = () => {
    const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
    const failures = failed === 0 ? "" : `, ${failed} failed`;
    stream.write(`\r[${"#".repeat(filled)}${"·".repeat(WIDTH - filled)}] ${done}/${total} cases${failures}`);
  };
  draw();
  return {
    tick(passed) {
      done++;
      if (!passed) failed++;
      draw();
    },
    done() {
      stream.write("\n");
    },
  };
}
