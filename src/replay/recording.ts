import type { AnyActorRef, InspectionEvent } from "xstate";
import { requestKeyOf } from "./canonical-request.js";
import {
  RECORDING_FORMAT,
  RECORDING_FORMAT_VERSION,
  type RecordedCommand,
  type RecordedModelCall,
  type RecordedStep,
  type RecordedToolCall,
  type RecordingEntry,
  type RecordingHeader,
} from "./recording-format.js";
import { recordingInspector } from "./recording-inspector.js";
import { parseRecordingLines } from "./recording-lines.js";

/**
 * A recorded run (see docs/replay.md): every model request with its reply's events, every tool call's
 * arguments and result, every command from outside with the state it arrived in, and the root agent's
 * persisted snapshot at each step boundary — in the order they happened. `new Agent({ record: true })`
 * fills one (`agent.recording`); `toJSONL()` writes it, `Recording.fromJSONL` reads it back.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * import { scriptedModel } from "agentchart/testing";
 * const agent = new Agent({ model, streamFn: scriptedModel([{ text: "Hi!" }]), record: true });
 * await agent.prompt("Hello");
 * const again = Recording.fromJSONL(agent.recording!.toJSONL());
 * console.log(again.steps.map((step) => step.step));
 * ```
 */
export class Recording<TSnapshot = unknown> {
  /** What recorded the run (the header's `source`). */
  readonly source: RecordingHeader["source"];
  readonly #entries: RecordingEntry<TSnapshot>[];
  readonly #persist: (actor: AnyActorRef) => TSnapshot;
  #inspector: ((event: InspectionEvent) => void) | undefined;
  /** Typed without `TSnapshot`, so a `Recording<PersistedAgent>` is a `Recording<unknown>` too. */
  readonly #listeners = new Set<(entry: RecordingEntry) => void>();

  /**
   * An empty recording, e.g. to give to `createAgentMachine({ record })` (`Agent` and `AgentHarness`
   * make their own). `options.persist` makes a step's snapshot from the root agent's actor (default:
   * XState's `actor.getPersistedSnapshot()`; an `Agent`'s recording uses `persist()`'s format).
   */
  constructor(
    options: { source?: RecordingHeader["source"]; persist?: (actor: AnyActorRef) => TSnapshot } = {},
    entries: RecordingEntry<TSnapshot>[] = [],
  ) {
    this.source = options.source ?? "agent";
    this.#persist = options.persist ?? ((actor) => actor.getPersistedSnapshot() as TSnapshot);
    this.#entries = entries;
  }

  /**
   * Reads a recording from its JSONL text (`toJSONL()`, a `*.recording.jsonl` file).
   *
   * Contract: pure; throws `RecordingError` naming the line for text that is empty, does not parse
   * (a truncated or hand-edited file), has no recording header, is of another format version, or holds
   * a line that is not a recording entry. Nothing is loaded then.
   */
  static fromJSONL<TSnapshot = unknown>(text: string): Recording<TSnapshot> {
    const { header, entries } = parseRecordingLines(text);
    return new Recording<TSnapshot>({ source: header.source }, entries as RecordingEntry<TSnapshot>[]);
  }

  /** Every entry after the header, in the order they were recorded. */
  get entries(): readonly RecordingEntry<TSnapshot>[] {
    return this.#entries;
  }
  /** The step boundaries of the root agent (time travel: give `step.snapshot` to `Agent.restore`). */
  get steps(): RecordedStep<TSnapshot>[] {
    return this.#entries.filter((entry): entry is RecordedStep<TSnapshot> => entry.kind === "step");
  }
  get modelCalls(): RecordedModelCall[] {
    return this.#entries.filter((entry): entry is RecordedModelCall => entry.kind === "model_call");
  }
  get toolCalls(): RecordedToolCall[] {
    return this.#entries.filter((entry): entry is RecordedToolCall => entry.kind === "tool_call");
  }
  get commands(): RecordedCommand[] {
    return this.#entries.filter((entry): entry is RecordedCommand => entry.kind === "command");
  }

  /**
   * Appends an entry (the recording taps call it; a test may build a recording by hand).
   *
   * Contract: synchronous; never throws; the entry is kept by reference until `toJSONL()`.
   */
  add(entry: RecordingEntry<TSnapshot>): void {
    this.#entries.push(entry);
    for (const listener of this.#listeners) listener(entry);
  }

  /**
   * Calls `listener` with each entry added from now on (a model call or tool call is added when it
   * starts and filled as it goes). Returns the unsubscribe function.
   *
   * Contract: synchronous; `listener` runs inside `add`, and must not throw.
   *
   * ```ts
   * const stop = recording.onEntry((entry) => console.log(entry.kind));
   * ```
   */
  onEntry(listener: (entry: RecordingEntry<TSnapshot>) => void): () => void {
    const listen = listener as (entry: RecordingEntry) => void;
    this.#listeners.add(listen);
    return () => this.#listeners.delete(listen);
  }

  /**
   * An XState inspection observer that records the commands sent to the agents of an actor system
   * and the root agent's step boundaries: give it to `createActor(machine, { inspect })` for an
   * embedded agent machine (`Agent` and `AgentHarness` do it themselves with `record`).
   *
   * ```ts
   * import { createActor } from "xstate";
   * import { createAgentMachine } from "agentchart/machines";
   * const recording = new Recording();
   * const actor = createActor(createAgentMachine({ streamFn, record: recording }), { input: { model }, inspect: recording.inspect });
   * ```
   */
  get inspect(): (event: InspectionEvent) => void {
    this.#inspector ??= recordingInspector((entry) => this.add(entry), this.#persist);
    return this.#inspector;
  }

  /**
   * The recording as JSONL text: the header line (`format`, `version`, `source`), then one entry a line.
   *
   * Contract: synchronous; throws only for values JSON cannot hold (a BigInt in a tool result).
   */
  toJSONL(): string {
    const header: RecordingHeader = {
      kind: "header",
      format: RECORDING_FORMAT,
      version: RECORDING_FORMAT_VERSION,
      source: this.source,
    };
    const lines = [JSON.stringify(header)];
    for (const entry of this.#entries) {
      if (entry.kind !== "model_call") {
        lines.push(JSON.stringify(entry));
        continue;
      }
      if (entry.key === "") entry.key = requestKeyOf(entry.request);
      // A reply's events are kept as the provider sent them; the message so far is rebuilt on replay.
      lines.push(JSON.stringify(entry, (key, value) => (key === "partial" ? undefined : value)));
    }
    return `${lines.join("\n")}\n`;
  }
}
