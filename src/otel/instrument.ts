import type { Tracer } from "@opentelemetry/api";
import type { Subscription } from "rxjs";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { trace } from "./otel-api.js";

type AnyActorSystem = AnyActorRef["system"];

import { Agent } from "../agent/agent.js";
import { AgentHarness } from "../harness/agent-harness.js";
import type { AgentTool } from "../types/tool.js";
import { HarnessPhaseSpans } from "./harness-phase-spans.js";
import { InstrumentationError } from "./instrumentation-error.js";
import { RunTracer, type TraceOptions } from "./run-tracer.js";
import { treeSource } from "./traced-source.js";
import { TracedTools } from "./traced-tools.js";

/** The handle `instrument` returns. */
export interface Instrumentation {
  /**
   * Stops tracing: ends any span still open, stops listening, and gives the agent its own tools back.
   * Idempotent.
   */
  dispose(): void;
}

/** The instrumentation scope name of agentchart's tracer. */
export const TRACER_NAME = "agentchart";

const instrumented = new WeakSet<Agent>();

/** The tracer of the options, else the global provider's `agentchart` tracer. */
export function tracerOf(options: TraceOptions): Tracer {
  return options.tracer ?? trace.getTracer(TRACER_NAME);
}

/**
 * Traces an `Agent` or an `AgentHarness` with OpenTelemetry until `dispose()`: an `invoke_agent {name}`
 * span per run (per prompt operation of a harness, retries included), `chat {model}` per model call,
 * `execute_tool {tool}` per tool call (its `execute` runs in the span's context), `compaction`,
 * `branchSummary` and `retry` spans of a harness, and every state the loop and tool-call machines
 * enter as an `agentchart.state` event. Spans use the app's registered tracer provider unless
 * `options.tracer` is given. Instrument while idle: tools are wrapped through `agent.setTools`, which a
 * running run only picks up at its next turn.
 *
 * ```ts
 * const tracing = instrument(agent, { captureContent: false });
 * await agent.prompt("Hello");
 * tracing.dispose();
 * ```
 *
 * Throws `InstrumentationError` (`invalid_target`) for anything but an Agent or AgentHarness, and
 * (`already_instrumented`) when the agent is traced already.
 */
export function instrument(target: Agent | AgentHarness, options: TraceOptions = {}): Instrumentation {
  const harness = target instanceof AgentHarness ? target : undefined;
  const agent = harness ? harness.agent : target;
  if (!(agent instanceof Agent)) {
    throw new InstrumentationError("invalid_target", "instrument() takes an Agent or an AgentHarness");
  }
  if (instrumented.has(agent)) {
    throw new InstrumentationError("already_instrumented", "This agent is instrumented already");
  }
  instrumented.add(agent);
  const tracer = tracerOf(options);
  const runTracer = new RunTracer(
    tracer,
    options,
    treeSource({
      actor: () => agent.actor,
      model: () => agent.state.model,
      systemPrompt: () => agent.state.systemPrompt,
      runAborted: () => agent.signal?.aborted === true,
    }),
  );
  if (harness) runTracer.setConversationId(harness.session.id);
  const restoreTools = traceAgentTools(agent, new TracedTools(runTracer));
  const inspection = new SystemInspection(runTracer);
  const stopListening = agent.subscribe((event) => {
    runTracer.onEvent(event);
    if (event.type === "agent_start" && runTracer.recording) {
      inspection.attach(agent.actor?.system);
      runTracer.recordCurrentState(agent.actor);
    }
  });
  const subscriptions: Subscription[] = [];
  const phaseSpans = harness ? new HarnessPhaseSpans(tracer, runTracer) : undefined;
  if (harness && phaseSpans) {
    subscriptions.push(harness.phase$.subscribe((phase) => phaseSpans.onPhase(phase)));
    subscriptions.push(harness.events$.subscribe((event) => phaseSpans.onHarnessEvent(event)));
  }
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      stopListening();
      for (const subscription of subscriptions) subscription.unsubscribe();
      inspection.detach();
      phaseSpans?.endAll();
      runTracer.endAll();
      restoreTools();
      instrumented.delete(agent);
    },
  };
}

/**
 * Wraps the agent's tools now and on every later `setTools` (the harness's too, which goes through
 * the agent); returns the function that restores the agent's own `setTools` and unwrapped tools.
 */
function traceAgentTools(agent: Agent, tools: TracedTools): () => void {
  const setTools = agent.setTools;
  const activeNames = () => agent.state.tools.map((tool) => tool.name);
  agent.setTools = (next: AgentTool[], activeToolNames?: string[]) =>
    setTools.call(agent, tools.wrap(next), activeToolNames);
  agent.setTools([...agent.tools], activeNames());
  return () => {
    Reflect.deleteProperty(agent, "setTools");
    agent.setTools(tools.unwrap(agent.tools), activeNames());
  };
}

/** Observes the actor system a run lives in (one at a time) for state transitions. */
class SystemInspection {
  readonly #runTracer: RunTracer;
  #system: AnyActorSystem | undefined;
  #subscription: { unsubscribe(): void } | undefined;

  constructor(runTracer: RunTracer) {
    this.#runTracer = runTracer;
  }

  attach(system: AnyActorSystem | undefined): void {
    if (!system || system === this.#system) return;
    this.detach();
    this.#system = system;
    this.#subscription = system.inspect((event: InspectionEvent) => this.#runTracer.onInspection(event));
  }

  detach(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#system = undefined;
  }
}
