import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { agentMachine } from "../machines/agent/agent.machine.js";
import { toolCallMachine } from "../machines/tool-call/tool-call.machine.js";
import type { AgentEvent } from "../types/events.js";
import type { Model } from "../types/model.js";
import { AgentSpans, type ToolSpan } from "./agent-spans.js";
import { AGENTCHART, GEN_AI, GEN_AI_OPERATION } from "./gen-ai-attributes.js";
import { context } from "./otel-api.js";
import { stateValueText } from "./state-value-text.js";

/** Options shared by every way of tracing agentchart (`instrument`, `tracedAgentLoop`). */
export interface TraceOptions {
  /** Default: `trace.getTracer("agentchart")` of the globally registered tracer provider. */
  tracer?: Tracer;
  /** Record message content (prompts, replies, tool arguments and results). Default `false`. */
  captureContent?: boolean;
  /** `gen_ai.agent.name`, also in the run span's name `invoke_agent {name}`. Default `"agentchart"`. */
  agentName?: string;
  /** `gen_ai.agent.id`, when the app has one. */
  agentId?: string;
  /** `gen_ai.conversation.id`; an AgentHarness uses its session id when this is not set. */
  conversationId?: string;
}

/**
 * What a RunTracer asks of the thing it traces. `agentPath` names the agent of the tree: `[]` for the
 * traced agent itself, the tool call ids down to a sub-agent otherwise.
 */
export interface TracedSource {
  /** The model the agent's next request goes to (read at its `turn_start`). */
  requestModel(agentPath: readonly string[]): Model;
  /** The agent's system prompt, for `captureContent`. */
  systemPrompt(agentPath: readonly string[]): string;
  /** Whether the current run was aborted (read when tool calls and runs end; an abort stops the tree). */
  runAborted(): boolean;
}

const DEFAULT_AGENT_NAME = "agentchart";
const NO_PATH: readonly string[] = [];
/** The type of the event XState's inspection reports when an actor starts (`sourceRef`: its parent). */
const XSTATE_INIT = "xstate.init";

/**
 * Turns the AgentEvents and XState inspection events of runs into spans: `invoke_agent {name}` per
 * run, `chat {model}` per model call and `execute_tool {tool}` per tool call under it, state
 * transitions as `agentchart.state` events. A sub-agent's events (those with `agentPath`) make a
 * tree: its `invoke_agent {tool}` span is a child of the `execute_tool` span of the call that runs it,
 * its own chat and tool spans under it; its `agent_end` ends only its own spans. Feed it every event
 * of a run in order; the root's `agent_end` ends every span the run opened. Never throws on odd event
 * sequences (an end without a start is ignored).
 */
export class RunTracer {
  readonly #options: TraceOptions;
  readonly #source: TracedSource;
  readonly #root: AgentSpans;
  /** The spans of running sub-agents, by `pathKey` of their `agentPath`. */
  readonly #descendants = new Map<string, AgentSpans>();
  readonly #lastState = new WeakMap<AnyActorRef, string>();
  /**
   * The parent of each actor whose start this tracer saw (`undefined` for a root), from XState's
   * public inspection stream: an actor's `xstate.init` event has its parent as `sourceRef`.
   */
  readonly #parents = new WeakMap<AnyActorRef, AnyActorRef | undefined>();
  readonly #newAgentSpans: () => AgentSpans;
  #conversationId: string | undefined;

  constructor(tracer: Tracer, options: TraceOptions, source: TracedSource) {
    this.#options = options;
    this.#source = source;
    const settings = {
      tracer,
      captureContent: options.captureContent === true,
      runAborted: () => source.runAborted(),
    };
    this.#newAgentSpans = () => new AgentSpans(settings);
    this.#root = this.#newAgentSpans();
    this.#conversationId = options.conversationId;
  }

  /** Sets `gen_ai.conversation.id` of runs that start from now on (unless the options fixed one). */
  setConversationId(id: string): void {
    this.#conversationId = this.#options.conversationId ?? id;
  }

  /** Whether a run span is open and recording (no-op tracers record nothing). */
  get recording(): boolean {
    return this.#root.recording;
  }

  /** The context of the open run span (the parent of phase spans), if any. */
  get runContext(): Context | undefined {
    return this.#root.runContext;
  }

  /** Applies one AgentEvent (the root's, or a sub-agent's with its `agentPath`). */
  onEvent(event: AgentEvent): void {
    const path = event.agentPath;
    if (path !== undefined && path.length > 0) {
      this.#onDescendantEvent(path, event);
      return;
    }
    switch (event.type) {
      case "agent_start":
        this.#startRootRun(true);
        return;
      case "agent_end":
        if (event.budgetUsage) this.#root.onBudgetUsage(event.budgetUsage);
        this.#root.onRunEnd();
        this.#endDescendants();
        if (this.#root.endsWithRun) this.#root.endRun();
        return;
      default:
        this.#apply(this.#root, NO_PATH, event);
    }
  }

  /**
   * Opens the run span of a harness operation: every Agent run until `endOperation` (retries,
   * follow-up turns) shares it. Adopts a run span that is already open.
   */
  beginOperation(): void {
    if (!this.#root.keepOpenAfterRun()) this.#startRootRun(false);
  }

  /** Ends the operation's run span (and anything still open under it). */
  endOperation(): void {
    this.endAll();
  }

  /**
   * Called by a traced tool's `execute`: the context it runs in (its span's), or undefined when the
   * call has no open span. Marks an approved call's approval as granted. A sub-agent's call is found
   * by its id too (tool call ids are unique within a tree: a provider makes them per reply).
   */
  toolExecutionContext(toolCallId: string): Context | undefined {
    const found = this.#toolSpan(toolCallId);
    if (!found) return undefined;
    found.agent.onToolRuns(found.tool);
    return found.tool.context;
  }

  /** Called by a traced tool whose `execute` threw: records the exception on its span. */
  toolThrew(toolCallId: string, error: unknown): void {
    const found = this.#toolSpan(toolCallId);
    found?.agent.onToolThrew(found.tool, error);
  }

  /**
   * Applies an XState inspection event: an agent or tool-call machine that entered a new state adds
   * an `agentchart.state` event to its agent's run span or to the call's tool span (a sub-agent's
   * states go to its own spans). An actor's place in the tree comes from the `xstate.init` events of
   * the actors between it and the system's root, so feed every inspection event of the system from
   * before the run's first tool call on: the states of an actor whose start was missed are not
   * recorded (the root agent's start may be missed: it is known as the system's root).
   */
  onInspection(event: InspectionEvent): void {
    // Inspected actors are full actor refs (the type only promises `ActorRefLike`).
    const actor = event.actorRef as AnyActorRef;
    if (event.type === "@xstate.event" && event.event.type === XSTATE_INIT) {
      this.#parents.set(actor, event.sourceRef as AnyActorRef | undefined);
      return;
    }
    // Microsteps, not snapshots: a macrostep may pass through states (e.g. `preparingTurn` with a
    // synchronous decision) that no snapshot event shows.
    if (event.type !== "@xstate.microstep") return;
    const value = (event.snapshot as { value?: unknown }).value;
    if (value === undefined || !this.#root.runSpan) return;
    const span = this.#stateSpanOf(actor, event.rootId);
    if (span) this.#addState(span, actor, value);
  }

  /**
   * Records the state the agent actor is in now, on the run span: the run's first state is entered in
   * the macrostep that emits `agent_start`, before the run span exists.
   */
  recordCurrentState(agent: AnyActorRef): void {
    const span = this.#root.runSpan;
    if (span) this.#addState(span, agent, (agent.getSnapshot() as { value?: unknown }).value);
  }

  /** Ends every open span (used by `dispose()` and when a traced loop stops early). */
  endAll(): void {
    this.#root.endOpenSpans();
    this.#endDescendants();
    this.#root.endRun();
  }

  /** The events every agent of the tree handles alike (all but the root's start and end). */
  #apply(agent: AgentSpans, path: readonly string[], event: AgentEvent): void {
    switch (event.type) {
      case "message_update":
        agent.onDelta();
        return;
      case "turn_start":
        agent.startChat(() => this.#source.requestModel(path));
        return;
      case "message_end":
        agent.onMessageEnd(event.message);
        return;
      case "tool_execution_start":
        agent.startTool(event.toolCallId, event.toolName, event.args);
        return;
      case "tool_approval_request":
        agent.onApprovalRequest(event.toolCallId);
        return;
      case "tool_execution_end":
        agent.endTool(event.toolCallId, event.isError, event.result);
        return;
      case "budget_exceeded":
      case "loop_detected":
        agent.onBudgetExceeded(event.type, event);
        return;
      default:
        return;
    }
  }

  #onDescendantEvent(path: string[], event: AgentEvent): void {
    const key = pathKey(path);
    if (event.type === "agent_start") {
      this.#startDescendantRun(path, key);
      return;
    }
    const agent = this.#descendants.get(key);
    if (!agent) return;
    if (event.type === "agent_end") {
      if (event.budgetUsage) agent.onBudgetUsage(event.budgetUsage);
      agent.onRunEnd();
      this.#endDescendants(key);
      agent.endRun();
      this.#descendants.delete(key);
      return;
    }
    this.#apply(agent, path, event);
  }

  /** A sub-agent starts: its run span goes under the span of the call that runs it. */
  #startDescendantRun(path: string[], key: string): void {
    const parent = path.length === 1 ? this.#root : this.#descendants.get(pathKey(path.slice(0, -1)));
    if (!parent?.recording) return;
    const call = parent.tool(path.at(-1)!);
    const name = call?.toolName ?? DEFAULT_AGENT_NAME;
    const agent = this.#newAgentSpans();
    agent.startRun(
      `${GEN_AI_OPERATION.invokeAgent} ${name}`,
      { ...this.#runAttributes(name), [AGENTCHART.agentPath]: path },
      call?.context ?? parent.runContext!,
      true,
      this.#options.captureContent ? this.#source.systemPrompt(path) : "",
    );
    this.#descendants.set(key, agent);
  }

  #startRootRun(endsWithRun: boolean): void {
    if (this.#root.runSpan) return;
    const name = this.#options.agentName ?? DEFAULT_AGENT_NAME;
    const attributes = this.#runAttributes(name);
    if (this.#options.agentId !== undefined) attributes[GEN_AI.agentId] = this.#options.agentId;
    this.#root.startRun(
      `${GEN_AI_OPERATION.invokeAgent} ${name}`,
      attributes,
      context.active(),
      endsWithRun,
      this.#options.captureContent ? this.#source.systemPrompt(NO_PATH) : "",
    );
  }

  #runAttributes(name: string): Attributes {
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent,
      [GEN_AI.agentName]: name,
    };
    if (this.#conversationId !== undefined) attributes[GEN_AI.conversationId] = this.#conversationId;
    return attributes;
  }

  /**
   * Ends the spans of the sub-agents under `key` (every sub-agent when none), deepest first, as their
   * runs' ends would (an aborted tree marks them aborted).
   */
  #endDescendants(key?: string): void {
    const below = [...this.#descendants.keys()]
      .filter((other) => key === undefined || other.startsWith(`${key}${PATH_SEPARATOR}`))
      .sort((a, b) => b.length - a.length);
    for (const other of below) {
      const agent = this.#descendants.get(other)!;
      agent.onRunEnd();
      agent.endRun();
      this.#descendants.delete(other);
    }
  }

  #toolSpan(toolCallId: string): { agent: AgentSpans; tool: ToolSpan } | undefined {
    for (const agent of [this.#root, ...this.#descendants.values()]) {
      const tool = agent.tool(toolCallId);
      if (tool) return { agent, tool };
    }
    return undefined;
  }

  /**
   * The span a state of `actor` (in the system whose root actor has session id `rootId`) belongs on:
   * an agent machine's (the root's or a sub-agent's) run span, a tool-call machine's tool span; the
   * system's root is the root agent. `undefined` for an actor whose place is not known.
   */
  #stateSpanOf(actor: AnyActorRef, rootId: string): Span | undefined {
    const machine = machineName(actor);
    if (machine === toolCallMachine.id) {
      const agent = this.#parents.get(actor);
      const path = agent && this.#agentPathOf(agent, rootId);
      return path && this.#agentAt(path)?.tool(actor.id)?.span;
    }
    const isSystemRoot = actor.sessionId === rootId;
    if (machine !== agentMachine.id) return isSystemRoot ? this.#root.runSpan : undefined;
    const path = this.#agentPathOf(actor, rootId);
    return path && this.#agentAt(path)?.runSpan;
  }

  /**
   * The `agentPath` of an agent actor: `[]` for the system's root, else the ids of the tool-call
   * actors above it (an agent tool's child agent is invoked by its call's actor, whose id is the tool
   * call id). `undefined` when the way up to the root is not known (an actor on it started before
   * this tracer saw the system's inspection events) or does not go through tool calls.
   */
  #agentPathOf(agent: AnyActorRef, rootId: string): string[] | undefined {
    const path: string[] = [];
    for (let current: AnyActorRef | undefined = agent; current; ) {
      if (current.sessionId === rootId) return path;
      const call = this.#parents.get(current);
      if (!call || machineName(call) !== toolCallMachine.id) return undefined;
      path.unshift(call.id);
      current = this.#parents.get(call);
    }
    return undefined;
  }

  #agentAt(path: readonly string[]): AgentSpans | undefined {
    return path.length === 0 ? this.#root : this.#descendants.get(pathKey(path));
  }

  #addState(span: Span, actor: AnyActorRef, value: unknown): void {
    const text = stateValueText(value as Parameters<typeof stateValueText>[0]);
    if (this.#lastState.get(actor) === text) return;
    this.#lastState.set(actor, text);
    span.addEvent(AGENTCHART.state, {
      [AGENTCHART.state]: text,
      [AGENTCHART.machine]: machineName(actor),
    });
  }
}

// Tool call ids never hold control characters; joined with one, a path is a map key.
const PATH_SEPARATOR = "\u001f";

function pathKey(path: readonly string[]): string {
  return path.join(PATH_SEPARATOR);
}

/** The machine's id (`agent`, `toolCall`), else the actor's id. */
function machineName(actor: AnyActorRef): string {
  if (typeof actor.src === "string") {
    // An actor invoked by name: its machine is the public `Actor.logic`.
    const logic = (actor as { logic?: { id?: unknown } }).logic;
    return typeof logic?.id === "string" ? logic.id : actor.src;
  }
  return (actor.src as { id?: string }).id ?? actor.id;
}
