import type PgBoss from "pg-boss";
import { WAKE_QUEUE, type WakeJob } from "./wake-queue.js";

/** What a {@link WakeJobLoop} needs. */
export interface WakeJobLoopOptions {
  boss: PgBoss;
  /** Serves one wake job; a rejection marks the job failed (pg-boss retries it). */
  serve: (job: WakeJob) => Promise<void>;
  /** How long an idle loop waits before it fetches again, unless notified (ms). */
  pollMs: number;
  /** How long to wait before marking a job done again when the database could not be reached (ms). */
  retryMs: number;
  /** Receives the errors of jobs and of the calls to the queue. Must not throw. */
  onError: (error: unknown) => void;
}

/**
 * One job loop of a worker: fetches one wake job at a time, serves it, then marks it completed (or
 * failed) — every call to pg-boss awaited and its failure handled. (pg-boss 10's own `work()` does
 * not await the calls that mark a job completed or failed: with the database away they become
 * unhandled rejections, which end the process. This loop replaces it.)
 *
 * While the database is away, fetching finds nothing and the loop waits `pollMs` between attempts;
 * marking a held job done is retried every `retryMs` until it works or the loop stops (a job left
 * active expires and pg-boss retries it; the session's lease decides who writes in any case).
 *
 * ```ts
 * declare const options: ConstructorParameters<typeof WakeJobLoop>[0]; // the worker's queue and job handler
 * const loop = new WakeJobLoop({ ...options, pollMs: 500, retryMs: 1_000 });
 * loop.notify(); // a job was announced
 * await loop.stop(); // after the job in hand is settled
 * ```
 */
export class WakeJobLoop {
  readonly #options: WakeJobLoopOptions;
  readonly #running: Promise<void>;
  #stopping = false;
  #notified = false;
  #wakeUp: (() => void) | undefined;

  constructor(options: WakeJobLoopOptions) {
    this.#options = options;
    this.#running = this.#run();
  }

  /** Fetches at once (a job was announced) instead of at the end of the wait. */
  notify(): void {
    this.#notified = true;
    this.#wakeUp?.();
  }

  /** Stops fetching; resolves once the job in hand (if any) is served and settled. */
  stop(): Promise<void> {
    this.#stopping = true;
    this.#wakeUp?.();
    return this.#running;
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      this.#notified = false;
      let job: PgBoss.Job<WakeJob> | undefined;
      try {
        [job] = await this.#options.boss.fetch<WakeJob>(WAKE_QUEUE, { batchSize: 1 });
      } catch (error) {
        this.#options.onError(error);
      }
      if (job) {
        await this.#handle(job);
        continue; // another may wait: fetch again at once
      }
      if (!this.#notified) await this.#wait(this.#options.pollMs);
    }
  }

  async #handle(job: PgBoss.Job<WakeJob>): Promise<void> {
    const { boss, serve, onError } = this.#options;
    let failure: { message: string } | undefined;
    try {
      await serve(job.data);
    } catch (error) {
      onError(error);
      failure = { message: error instanceof Error ? error.message : String(error) };
    }
    for (;;) {
      try {
        if (failure) await boss.fail(WAKE_QUEUE, job.id, failure);
        else await boss.complete(WAKE_QUEUE, job.id);
        return;
      } catch (error) {
        onError(error);
        if (this.#stopping) return;
        await this.#wait(this.#options.retryMs);
      }
    }
  }

  /** Waits `ms`, or until notified or stopped. */
  #wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakeUp = done;
    });
  }
}
