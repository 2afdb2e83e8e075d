import type { AgUiEvent } from "./ag-ui-events.js";
import { sseFrame } from "./sse-frame.js";

/** Receives the frames of a {@link RunLog}: replayed ones first, then live ones, then `end`. */
export interface RunLogReader {
  frame(frame: string): void;
  end(): void;
}

/**
 * The events of one AG-UI run, in memory, each with its id (1, 2, 3… in order) and its SSE frame
 * encoded once. Readers join at any time: they get every frame after the id they already have, then
 * the live ones, then the end. A run is written by its run alone; readers never affect it (a reader
 * that leaves does not stop the run).
 *
 * ```ts
 * const log = new RunLog();
 * log.append({ type: "RUN_STARTED", threadId: "t", runId: "r" });
 * const leave = log.read(0, { frame: (text) => process.stdout.write(text), end: () => process.stdout.end() });
 * ```
 */
export class RunLog {
  readonly #events: AgUiEvent[] = [];
  readonly #frames: string[] = [];
  readonly #readers = new Set<RunLogReader>();
  #ended = false;

  /** Whether the run has ended (its last event is written). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The events so far (the log's own array: do not mutate). */
  get events(): readonly AgUiEvent[] {
    return this.#events;
  }

  /** Adds an event (ignored once ended) and hands its frame to every reader. */
  append(event: AgUiEvent): void {
    if (this.#ended) return;
    this.#events.push(event);
    const frame = sseFrame(this.#events.length, event);
    this.#frames.push(frame);
    for (const reader of this.#readers) reader.frame(frame);
  }

  /** Marks the run ended: readers get `end`, later readers get the whole log then `end` at once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const reader of this.#readers) reader.end();
    this.#readers.clear();
  }

  /**
   * Hands `reader` every frame with an id above `afterId` (0 for all), synchronously, then the live
   * ones; returns the function that stops reading.
   *
   * Contract: synchronous; never throws by itself (a throwing reader's error propagates to the caller).
   */
  read(afterId: number, reader: RunLogReader): () => void {
    const from = Math.max(0, Math.min(afterId, this.#frames.length));
    if (from < this.#frames.length) reader.frame(this.#frames.slice(from).join(""));
    if (this.#ended) {
      reader.end();
      return () => {};
    }
    this.#readers.add(reader);
    return () => this.#readers.delete(reader);
  }
}
