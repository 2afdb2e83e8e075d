import type { AnyActorLogic, AnyActorScope } from "xstate";
import { type Agent, type AgentOptions, agentInputOf, agentOver } from "../agent/agent.js";
import { agentRecordingOf } from "../agent/agent-recording.js";
import {
  type AgentActor,
  type PersistedAgent,
  type RestorePlan,
  restorableAgentSnapshot,
} from "../agent/agent-snapshot.js";
import { activeHandoffOf } from "../loop/handoff-steps.js";
import {
  type AgentImplementations,
  addTools,
  agentImplementations,
} from "../machines/agent/agent.implementations.js";
import { type AgentMachine, agentMachineOf } from "../machines/agent/agent.provided.js";
import {
  type HarnessMachineInput,
  type HarnessOperation,
  harnessMachine,
  RECORDED_AGENT_EVENTS,
} from "../machines/harness/harness.machine.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { AgentTool } from "../types/tool.js";
import { ContextBudget } from "./compaction/context-budget.js";
import { DEFAULT_COMPACTION_SETTINGS, defaultCompactionPort } from "./compaction/port.js";
import { AgentHarnessError } from "./errors.js";
import { HarnessEvents } from "./events.js";
import type { AgentHarnessOptions } from "./harness-options.js";
import { HookRegistry } from "./hooks.js";
import { LoopHooks } from "./loop-hooks.js";
import { convertHarnessMessagesToLlm } from "./messages-convert.js";
import { type HarnessParts, harnessActors } from "./operation-actors.js";
import { DEFAULT_RETRY_POLICY } from "./retry-policy.js";
import { sessionActor } from "./session.actor.js";
import { SessionRecorder } from "./session-recorder.js";
import { recordIntoSession } from "./session-recording.js";
import { HarnessSettings } from "./settings.js";
import { SubAgentSessions } from "./sub-agent-sessions.js";
import { harnessAgentTool, type SubAgentWiring } from "./sub-agent-tools.js";
import { journaledTool, journalToolCall } from "./tool-journal.js";
import { initialTools } from "./tool-sources.js";

type AgentSnapshot = ReturnType<AgentMachine["getInitialSnapshot"]>;

/** The harness machine with its implementations provided (what `createHarnessMachine` returns). */
export type HarnessMachine = typeof harnessMachine;

/**
 * The harness machine of `options.session` with `options`' implementations provided — the machine
 * `new AgentHarness(options)` runs. Its child `agent` is the agent machine (invoked for the harness's
 * whole life, its transcript, model and tools from the session), so one actor system holds the harness,
 * its agent, the agent's tool calls and their sub-agents, and one persisted snapshot
 * (`getPersistedSnapshot()`) holds them all. It accepts `PROMPT` with `messages` (a turn: recorded in
 * the session), `ABORT`, and passes the agent's commands (`APPROVE_TOOL`, `DENY_TOOL`, `ANSWER_TOOL`,
 * `STEER`, `FOLLOW_UP`) to its agent; `compact` and tree navigation are the `AgentHarness` methods.
 *
 * Contract: synchronous; throws `AgentHarnessError("invalid_argument")` for bad tool names as `new
 * AgentHarness` does. The machine belongs to its session: one running actor at a time (a second one fails
 * at start; one started after the first stopped runs); restore with `createActor(createHarnessMachine({ ...options, session: reopened }), { snapshot })`.
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { scriptedModel } from "agentchart/testing";
 * const session = await repo.create();
 * const actor = createActor(createHarnessMachine({ session, model, streamFn: scriptedModel([{ text: "Hi!" }]) }));
 * actor.start();
 * actor.send({ type: "PROMPT", messages: [{ role: "user", content: "Hello", timestamp: Date.now() }] });
 * ```
 */
export function createHarnessMachine(options: AgentHarnessOptions): HarnessMachine {
  return composeHarness(options).machine;
}

/** What `AgentHarness` adds to a composed harness: the agent it restores, the action that settles its calls. */
export interface ComposeHarnessOptions {
  /** The persisted agent the harness goes on from (`AgentHarness.restore`). */
  restoring?: PersistedAgent;
  settle?: (operation: HarnessOperation | undefined) => void;
}

/** A harness's parts and its machine. */
export interface ComposedHarness {
  machine: HarnessMachine;
  parts: HarnessParts;
}

/**
 * Builds the parts of a harness over `options.session` and its machine. The agent facade
 * (`parts.agent`) exists once the machine's actor started its child `agent`.
 *
 * Contract: synchronous; throws `AgentHarnessError("invalid_argument")` for bad tool names, and
 * `AgentRestoreError` (at actor start) when `restoring` cannot be restored with these options.
 */
export function composeHarness(
  options: AgentHarnessOptions,
  { restoring, settle }: ComposeHarnessOptions = {},
): ComposedHarness {
  const session = options.session;
  const onError = options.onHandlerError ?? defaultHandlerError;
  const hooks = new HookRegistry(onError);
  const events = new HarnessEvents(hooks);
  const recorder = new SessionRecorder(session);
  const subAgents = new SubAgentSessions(session, options.sessionRepo, onError);
  const context = session.buildContext();
  const settings = new HarnessSettings(
    { ...options, tools: initialTools(options.tools, options.toolSources) },
    context.activeToolNames,
  );
  const loopHooks = new LoopHooks({
    session,
    hooks,
    settings,
    streamFn: options.streamFn,
    ...(subAgents.recording ? { linkSubAgentResult: (ctx) => subAgents.linkResult(ctx, "root") } : {}),
  });
  const wiring: SubAgentWiring = {
    streamFn: loopHooks.summaryStreamFn,
    link: subAgents.recording ? (ctx) => subAgents.linkResult(ctx, "descendant") : undefined,
    toolHooks: () => ({
      beforeToolCall: loopHooks.beforeToolCall,
      afterToolCall: loopHooks.toolResultHook,
    }),
  };
  const agentTools = () =>
    settings.activeTools().map((tool) => harnessAgentTool(journaledTool(session, tool), wiring));
  const tools = agentTools();
  const recording = agentRecordingOf(options.record, "harness");
  // The session is the recording: what replay needs goes there too, as custom entries (docs/replay.md).
  if (recording) recordIntoSession(recording, session);
  const agentOptions: AgentOptions & { record?: typeof recording } = {
    // The journal's idempotency keys are `<session id>:<tool call id>`: the agent's are the same.
    agentId: session.id,
    streamFn: loopHooks.streamFn,
    // The agent reads these when it needs them: the hook callbacks exist only while their hook has handlers.
    get transformContext() {
      return loopHooks.transformContext;
    },
    get beforeToolCall() {
      return loopHooks.beforeToolCall;
    },
    get afterToolCall() {
      return loopHooks.afterToolCall;
    },
    get toolContext() {
      return loopHooks.toolContext;
    },
    model: options.model,
    thinkingLevel: options.thinkingLevel ?? context.thinkingLevel,
    tools,
    messages: context.messages,
    // A session whose branch ended with a handoff goes on as that agent (if a handoff still leads to it).
    ...activeAgentOf(context.messages, tools),
    convertToLlm: convertHarnessMessagesToLlm,
    ...(options.steeringMode ? { steeringMode: options.steeringMode } : {}),
    ...(options.followUpMode ? { followUpMode: options.followUpMode } : {}),
    ...(options.toolExecution ? { toolExecution: options.toolExecution } : {}),
    ...(options.guardrails ? { guardrails: options.guardrails } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(recording ? { record: recording } : {}),
    onListenerError: (error, event) => onError(error, event.type),
  };
  const implementations = agentImplementations(agentOptions);
  const port = options.compactionPort ?? defaultCompactionPort;
  const compaction = { ...DEFAULT_COMPACTION_SETTINGS, ...options.compaction };
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  let agent: Agent | undefined;
  const parts: HarnessParts = {
    session,
    get agent() {
      if (!agent) throw new Error("agentchart: the harness's agent has not started");
      return agent;
    },
    hooks,
    settings,
    recorder,
    loopHooks,
    events,
    budget: new ContextBudget(port, compaction),
    port,
    compaction,
    retry,
    summaryStreamFn: loopHooks.summaryStreamFn,
    output: undefined,
    lastEnd: undefined,
    subAgents,
    agentTools,
    onError,
  };
  const attach = (actor: AgentActor, plan: RestorePlan | undefined) => {
    // A stopped actor's agent makes way: the machine may run again (e.g. restored in this process).
    if (agent && agent.actor.getSnapshot().status === "active")
      throw new AgentHarnessError(
        "invalid_state",
        `The harness machine of session "${session.id}" already runs an actor: create one machine per harness actor`,
      );
    agent = agentOver(actor, implementations, agentOptions, plan);
    agent.subscribe((event) => followAgentEvent(parts, event));
  };
  const machine = harnessMachine.provide({
    actors: {
      ...harnessActors(parts),
      agent: harnessAgentLogic(implementations, agentOptions, restoring, attach),
      session: sessionActor(session, recorder),
    },
    ...(settle ? { actions: { settle: (_, { operation }) => settle(operation) } } : {}),
  });
  // A new actor without input retries and recovers overflows as the options say.
  const initial = machine.getInitialSnapshot.bind(machine);
  const input: HarnessMachineInput = {
    maxRetries: Math.max(0, retry.maxRetries),
    overflowRecovery: parts.budget.enabled,
  };
  machine.getInitialSnapshot = (scope, given) => initial(scope, given ?? input);
  return { machine, parts };
}

/**
 * The harness's agent: the agent machine running `implementations`, whose new actor starts from
 * `agentOptions` (the session's transcript and settings) — or from `restoring`, a persisted agent — and
 * which gets its `Agent` facade (`attach`) when it starts, before any of its events.
 */
function harnessAgentLogic(
  implementations: AgentImplementations,
  agentOptions: AgentOptions,
  restoring: PersistedAgent | undefined,
  attach: (actor: AgentActor, plan: RestorePlan | undefined) => void,
): AgentMachine {
  const machine = agentMachineOf(implementations);
  const logic = Object.create(machine) as AgentMachine;
  let plan: RestorePlan | undefined;
  logic.getInitialSnapshot = (scope) => {
    const parentEvents = [...RECORDED_AGENT_EVENTS];
    if (!restoring)
      return machine.getInitialSnapshot(scope, {
        ...agentInputOf(agentOptions, implementations),
        parentEvents,
      });
    // The agent's id is its session's: the journal's idempotency keys (`<session id>:<call id>`) agree.
    const restorable = restorableAgentSnapshot(restoring, implementations, { agentId: agentOptions.agentId });
    plan = restorable.plan;
    const snapshot = { ...restorable.snapshot, context: { ...restorable.snapshot.context, parentEvents } };
    return machine.restoreSnapshot(snapshot as never, scope) as AgentSnapshot;
  };
  // XState starts a logic with its scope (`ActorLogic.start`), whose `self` is the new agent actor.
  (logic as AnyActorLogic).start = (snapshot: AgentSnapshot, scope: AnyActorScope) => {
    attach(scope.self as AgentActor, plan);
    machine.start(snapshot);
  };
  return logic;
}

/**
 * Follows an event of the agent's tree (the session actor records the agent's own): a sub-agent's
 * (`agentPath`) is recorded in that sub-agent's session; the agent's `agent_end` ends its run.
 */
function followAgentEvent(parts: HarnessParts, event: AgentEvent): void {
  if (event.agentPath?.length) {
    if (event.type === "agent_start" && event.agentPath.length === 1)
      journalAgentCall(parts, event.agentPath[0]!);
    parts.subAgents.record(event);
  } else if (event.type === "agent_end") {
    parts.lastEnd = event;
    parts.subAgents.endAll();
  }
}

/**
 * A child of the agent starts: its agent tool call is journaled like a tool about to run, so a resume
 * from the session alone follows the agent tool's `replay` (see `AgentHarness.resume()`).
 */
function journalAgentCall(parts: HarnessParts, toolCallId: string): void {
  const reply = parts.agent.state.messages.findLast(
    (message): message is AssistantMessage =>
      message.role === "assistant" &&
      message.content.some((block) => block.type === "toolCall" && block.id === toolCallId),
  );
  const call = reply?.content.find((block) => block.type === "toolCall" && block.id === toolCallId);
  if (call?.type !== "toolCall") return;
  const tool = parts.settings.tools().find((candidate) => candidate.name === call.name);
  journalToolCall(parts.session, call, tool).catch((error: unknown) => parts.onError(error, "agent_start"));
}

function defaultHandlerError(error: unknown, eventType: string): void {
  console.error(`agentchart: a harness handler threw while handling "${eventType}":`, error);
}

/** The `activeAgent` option for a transcript: its last handoff's agent, when the tools still lead to it. */
function activeAgentOf(
  messages: readonly AgentMessage[],
  tools: readonly AgentTool[],
): { activeAgent?: string } {
  const handoff = activeHandoffOf(messages);
  if (!handoff) return {};
  const reachable = { tools: new Map(), handoffs: new Map() };
  addTools(reachable, tools);
  return reachable.handoffs.has(handoff.agent) ? { activeAgent: handoff.agent } : {};
}
