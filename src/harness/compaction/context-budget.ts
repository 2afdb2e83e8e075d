import type { AgentMessage } from "../../types/messages.js";
import { type CompactionPort, type CompactionSettings, tokensOf } from "./port.js";

/**
 * Whether a transcript is due for automatic compaction: the port's estimate of its tokens against the
 * model's context window (`port.shouldCompact`). Estimates incrementally when the port offers
 * `createContextEstimator` (the harness asks after every turn, always about its one transcript).
 */
export class ContextBudget {
  readonly #port: CompactionPort | undefined;
  readonly #settings: CompactionSettings;
  #estimate: ((messages: readonly AgentMessage[]) => number | { tokens: number }) | undefined;

  constructor(port: CompactionPort | undefined, settings: CompactionSettings) {
    this.#port = port;
    this.#settings = settings;
  }

  /** Automatic compaction (and overflow recovery) is on: there is a port, and compaction is enabled. */
  get enabled(): boolean {
    return this.#port !== undefined && this.#settings.enabled;
  }

  /** Whether `messages` exceed the compaction threshold of a `contextWindow`; false when compaction is off. */
  compactionDue(messages: readonly AgentMessage[], contextWindow: number): boolean {
    const port = this.#port;
    if (!port || !this.#settings.enabled) return false;
    this.#estimate ??=
      port.createContextEstimator?.() ?? ((transcript) => port.estimateContextTokens([...transcript]));
    return port.shouldCompact(tokensOf(this.#estimate(messages)), contextWindow, this.#settings);
  }
}
