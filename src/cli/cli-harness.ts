import { AgentHarness } from "../harness/agent-harness.js";
import type { AgentHarnessOptions } from "../harness/harness-options.js";
import { MemorySessionRepo } from "../storage/memory-session-repo.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import { CliError } from "./cli-error.js";

/** Options of {@link CliHarness.open}: the harness's own options, the session optional. */
export interface CliHarnessOptions extends Omit<AgentHarnessOptions, "session" | "sessionRepo" | "model"> {
  model: Model;
  /**
   * The open session to persist to and continue from, with the repo it came from (`/fork` writes the
   * fork there). Omit both for a conversation that is not stored (an in-memory session stands in).
   */
  session?: Session;
  repo?: SessionRepo;
  /** Called with every harness the CLI drives (e.g. to trace it); the returned function detaches. */
  attach?: (harness: AgentHarness) => () => void;
}

/**
 * The `AgentHarness` the CLI drives now — the REPL, one-shot runs and `--json` send their commands
 * to `current` itself. What this adds is CLI behaviour only: the model and thinking level given on
 * the command line are recorded when the session last recorded others, `/fork` replaces `current`
 * with a harness on the forked session, and `close` ends it all once.
 *
 * ```ts
 * const cli = await CliHarness.open({ model, streamFn, session, repo });
 * await cli.current.prompt("hello");
 * await cli.close();
 * ```
 */
export class CliHarness {
  readonly #options: CliHarnessOptions;
  readonly #stored: boolean;
  #current: AgentHarness;
  #detach: (() => void) | undefined;
  #closed: Promise<void> | undefined;

  private constructor(options: CliHarnessOptions, stored: boolean, harness: AgentHarness) {
    this.#options = options;
    this.#stored = stored;
    this.#current = harness;
    this.#detach = options.attach?.(harness);
  }

  /**
   * Opens the harness on `options.session` (else on an in-memory session), with the session's last
   * thinking level unless `options.thinkingLevel` is given.
   *
   * Contract: async; rejects when the session cannot be written.
   */
  static async open(options: CliHarnessOptions): Promise<CliHarness> {
    const session = options.session ?? (await new MemorySessionRepo().create());
    const thinkingLevel = options.thinkingLevel ?? session.buildContext().thinkingLevel;
    const harness = await harnessOn(session, options, options.model, thinkingLevel);
    return new CliHarness(options, options.session !== undefined, harness);
  }

  /** The harness commands go to; `/fork` replaces it. */
  get current(): AgentHarness {
    return this.#current;
  }

  /** The stored session the conversation is in; `undefined` with `--no-session`. */
  get session(): Session | undefined {
    return this.#stored ? this.#current.session : undefined;
  }

  /**
   * Forks the session at `entryId` (default: the current leaf) into a new session and continues
   * there with a new harness (same model and thinking level), which it returns and makes `current`.
   *
   * Contract: async; rejects with `CliError` without a stored session or while the harness runs.
   */
  async fork(entryId?: string): Promise<AgentHarness> {
    const harness = this.#current;
    if (!this.#stored || !this.#options.repo)
      throw new CliError("There is no session to fork (--no-session)");
    if (harness.isRunning) throw new CliError("Cannot fork while the agent is busy");
    await harness.session.flush();
    const forked = await this.#options.repo.fork(
      harness.session.id,
      entryId === undefined ? {} : { entryId },
    );
    await harness.session.close();
    const next = await harnessOn(forked, this.#options, harness.model, harness.thinkingLevel);
    this.#detach?.();
    this.#detach = this.#options.attach?.(next);
    this.#current = next;
    return next;
  }

  /**
   * Aborts what runs, waits until idle, detaches, closes the sub-agents still open and the session
   * (releasing its lock).
   *
   * Contract: async; idempotent (later calls resolve with the first).
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const harness = this.#current;
      if (harness.isRunning) harness.send({ type: "ABORT" });
      await harness.waitForIdle();
      this.#detach?.();
      await harness.close();
      await harness.session.close();
    })();
    return this.#closed;
  }
}

/** A harness on `session`; `model` and `thinkingLevel` are recorded when the session differs. */
async function harnessOn(
  session: Session,
  options: CliHarnessOptions,
  model: Model,
  thinkingLevel: ThinkingLevel,
): Promise<AgentHarness> {
  const { session: _session, repo: _repo, attach: _attach, ...harnessOptions } = options;
  const harness = new AgentHarness({ ...harnessOptions, session, model, thinkingLevel });
  const recorded = session.buildContext();
  if (recorded.model?.provider !== model.provider || recorded.model.modelId !== model.id)
    harness.send({ type: "SET_MODEL", model });
  if (recorded.thinkingLevel !== thinkingLevel) harness.send({ type: "SET_THINKING_LEVEL", thinkingLevel });
  await session.flush();
  return harness;
}
