import { createSessionId } from "../storage/ids.js";
import type { Session } from "../storage/session.js";
import type { SessionRepo } from "../storage/session-repo.js";
import type { AgentEvent } from "../types/events.js";
import type { AfterToolCallContext, AfterToolCallResult } from "../types/loop.js";
import type { AssistantMessage } from "../types/messages.js";
import { SessionRecorder } from "./session-recorder.js";

/** A sub-agent whose run had not ended when its harness was persisted, and its session. */
export interface PersistedSubAgent {
  /** Tool call ids from the root down to the sub-agent. */
  agentPath: string[];
  /** Its session in the harness's repo (absent when the harness records no sub-agent sessions). */
  sessionId?: string;
}

/** One sub-agent run the harness follows. */
interface SubAgentRun {
  path: string[];
  /** Its session's id (known before the session exists: the tool result can link it at once). */
  sessionId: string | undefined;
  /** Its session once created or reopened (undefined when it could not be, or is not recorded). */
  session: Promise<Session | undefined>;
  /** The recording so far: each event is recorded after the ones before it. */
  recorded: Promise<SessionRecorder | undefined>;
  /** The replies recorded at this level (to tell which call ran a grandchild). */
  replies: AssistantMessage[];
  ended: boolean;
}

/**
 * The sub-agents of a harness's agent, followed through their events (those with an `agentPath`):
 * which are running (for `persist()`), and — given the session repo — each one's transcript recorded
 * as its own session in that repo, whose header links the session of the agent that called it
 * (`parentSession`: its path, or its id where it has none) and the call (`parentToolCallId`). A child's
 * child gets a session linking its parent's. The tool result of an agent tool call links the child's
 * session as `details.session` (`linkResult`). Recording failures go to `onError`, never to the run.
 */
export class SubAgentSessions {
  readonly #root: Session;
  readonly #repo: SessionRepo | undefined;
  readonly #onError: (error: unknown, eventType: string) => void;
  readonly #runs = new Map<string, SubAgentRun>();
  /** The recording of the runs forgotten at the end of the harness's last run. */
  #finishing: Promise<unknown> = Promise.resolve();

  constructor(
    root: Session,
    repo: SessionRepo | undefined,
    onError: (error: unknown, eventType: string) => void,
  ) {
    this.#root = root;
    this.#repo = repo;
    this.#onError = onError;
  }

  /** True when sub-agents' transcripts are recorded (a repo was given). */
  get recording(): boolean {
    return this.#repo !== undefined;
  }

  /** Follows an event of a descendant (one with a non-empty `agentPath`); others are ignored. */
  record(event: AgentEvent): void {
    const path = event.agentPath;
    if (!path || path.length === 0) return;
    const key = keyOf(path);
    if (event.type === "agent_start") {
      this.#start(path);
      return;
    }
    const run = this.#runs.get(key);
    if (!run) return;
    if (event.type === "message_end" && event.message.role === "assistant") run.replies.push(event.message);
    const recordEvent = (recorder: SessionRecorder | undefined) => {
      recorder?.record(event);
      return recorder;
    };
    run.recorded = run.recorded.then(recordEvent);
    if (event.type === "agent_end") {
      run.ended = true;
      run.recorded = run.recorded.then((recorder) => this.#finish(run, recorder));
    }
  }

  /**
   * The harness's own run ended: every sub-agent is over, so the sessions of those that never reported
   * their end (a child stopped with its parent's abort) are flushed and closed with what they hold, and
   * the runs are forgotten (their results are linked by now).
   */
  endAll(): void {
    const finishing = [...this.#runs.values()].map((run) => {
      if (!run.ended) {
        run.ended = true;
        run.recorded = run.recorded.then((recorder) => this.#finish(run, recorder));
      }
      return run.recorded;
    });
    this.#runs.clear();
    this.#finishing = Promise.all([this.#finishing, ...finishing]);
  }

  /** The sub-agents whose run has not ended, parents first (what `persist()` keeps). */
  running(): PersistedSubAgent[] {
    return [...this.#runs.values()]
      .filter((run) => !run.ended)
      .map((run) => ({
        agentPath: [...run.path],
        ...(run.sessionId !== undefined ? { sessionId: run.sessionId } : {}),
      }));
  }

  /**
   * Follows the sub-agents of a restored agent again: their sessions are reopened (an unopenable one is
   * reported to `onError` and no longer recorded).
   */
  reopen(subAgents: readonly PersistedSubAgent[]): void {
    const repo = this.#repo;
    for (const { agentPath, sessionId } of subAgents) {
      const session =
        repo && sessionId !== undefined
          ? repo.open(sessionId).then(
              (opened) => opened,
              (error: unknown) => {
                this.#onError(error, "agent_resume");
                return undefined;
              },
            )
          : Promise.resolve(undefined);
      const run = this.#track(agentPath, repo ? sessionId : undefined, session);
      void session.then((opened) => {
        for (const entry of opened?.getBranch() ?? [])
          if (entry.type === "message" && entry.message.role === "assistant") run.replies.push(entry.message);
      });
    }
  }

  /**
   * The link to add to the result of a call of an agent tool: `details.session`, the id of the session
   * of the sub-agent the call ran; undefined for other calls (or when nothing is recorded). `level` says
   * whose call it is: the harness's own agent's, or a sub-agent's (found by the call and its reply).
   */
  linkResult(ctx: AfterToolCallContext, level: "root" | "descendant"): AfterToolCallResult | undefined {
    const run = level === "root" ? this.#runs.get(keyOf([ctx.toolCall.id])) : this.#descendantRunOf(ctx);
    if (run?.sessionId === undefined) return undefined;
    const details = ctx.result.details;
    const base = typeof details === "object" && details !== null ? details : {};
    return { details: { ...base, session: run.sessionId } };
  }

  /** Resolves once every sub-agent event so far is recorded and every ended sub-agent's session closed. */
  async settled(): Promise<void> {
    await Promise.all([this.#finishing, ...[...this.#runs.values()].map((run) => run.recorded)]);
  }

  /** Waits for what is recorded, then closes the sessions still open (of sub-agents still running). */
  async close(): Promise<void> {
    await this.settled();
    const open = [...this.#runs.values()].filter((run) => !run.ended);
    await Promise.all(open.map((run) => this.#closeSession(run)));
  }

  #start(path: string[]): void {
    const repo = this.#repo;
    if (!repo) {
      this.#track(path, undefined, Promise.resolve(undefined));
      return;
    }
    const parent =
      path.length === 1 ? Promise.resolve(this.#root) : this.#runs.get(keyOf(path.slice(0, -1)))?.session;
    const id = createSessionId();
    const session = (parent ?? Promise.resolve(undefined)).then(async (parentSession) => {
      if (!parentSession) return undefined;
      try {
        return await repo.create({
          id,
          cwd: this.#root.cwd,
          parentSession: parentSession.path ?? parentSession.id,
          parentToolCallId: path.at(-1)!,
        });
      } catch (error) {
        this.#onError(error, "agent_start");
        return undefined;
      }
    });
    this.#track(path, id, session);
  }

  #track(path: string[], sessionId: string | undefined, session: Promise<Session | undefined>): SubAgentRun {
    const run: SubAgentRun = {
      path: [...path],
      sessionId,
      session,
      recorded: session.then((opened) => (opened ? new SessionRecorder(opened) : undefined)),
      replies: [],
      ended: false,
    };
    this.#runs.set(keyOf(path), run);
    return run;
  }

  async #finish(run: SubAgentRun, recorder: SessionRecorder | undefined): Promise<undefined> {
    if (!recorder) return undefined;
    try {
      await recorder.flush();
    } catch (error) {
      this.#onError(error, "agent_end");
    }
    await this.#closeSession(run);
    return undefined;
  }

  async #closeSession(run: SubAgentRun): Promise<void> {
    try {
      await (await run.session)?.close();
    } catch (error) {
      this.#onError(error, "agent_end");
    }
  }

  /** The sub-agent a sub-agent's call ran: the run at `…/<call id>` whose parent level made the reply. */
  #descendantRunOf(ctx: AfterToolCallContext): SubAgentRun | undefined {
    const candidates = [...this.#runs.values()].filter(
      (run) => run.path.length > 1 && run.path.at(-1) === ctx.toolCall.id,
    );
    if (candidates.length <= 1) return candidates[0];
    // The same call id in several branches: the one whose parent made this reply (the same object
    // while live; equal data after a restore, where the reply was read back from the session).
    const reply = ctx.assistantMessage;
    const repliesOf = (run: SubAgentRun) => this.#runs.get(keyOf(run.path.slice(0, -1)))?.replies ?? [];
    const text = JSON.stringify(reply);
    return (
      candidates.find((run) => repliesOf(run).includes(reply)) ??
      candidates.find((run) => repliesOf(run).some((candidate) => JSON.stringify(candidate) === text))
    );
  }
}

function keyOf(path: readonly string[]): string {
  return JSON.stringify(path);
}
