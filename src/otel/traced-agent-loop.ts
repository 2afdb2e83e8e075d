import { defer, finalize, type Observable, tap } from "rxjs";
import type { AnyActorRef } from "xstate";
import { agentLoop, agentLoopContinue } from "../agent/agent-loop.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentContext, AgentLoopConfig } from "../types/loop.js";
import type { AgentMessage } from "../types/messages.js";
import { chainInspect } from "../xstate/chain-inspect.js";
import { tracerOf } from "./instrument.js";
import { RunTracer, type TraceOptions } from "./run-tracer.js";
import { treeSource } from "./traced-source.js";
import { TracedTools } from "./traced-tools.js";

/**
 * `agentLoop` with tracing: the same cold Observable, whose every subscription (= run) gets the spans
 * `instrument` gives an Agent. The functional loop has no object to attach to, so tracing goes in
 * through the run's inputs: the config's `inspect` observer (chained before yours), the context's
 * tools (wrapped so `execute` runs in its span's context) and the event stream (observed in order).
 * The run span's parent is the context active when you subscribe. `gen_ai.request.model` is
 * `config.model` (a `prepareNextTurn` model change shows in `gen_ai.response.model`).
 *
 * ```ts
 * const question = { role: "user" as const, content: "Hello", timestamp: Date.now() };
 * tracedAgentLoop([question], { systemPrompt: "", messages: [], tools }, { model, streamFn })
 *   .subscribe((event) => console.log(event.type));
 * ```
 */
export function tracedAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  options: TraceOptions = {},
): Observable<AgentEvent> {
  return traceRun(context, config, options, (tracedContext, tracedConfig) =>
    agentLoop(prompts, tracedContext, tracedConfig),
  );
}

/** `agentLoopContinue` with tracing (see `tracedAgentLoop`); throws like `agentLoopContinue` on subscribe. */
export function tracedAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  options: TraceOptions = {},
): Observable<AgentEvent> {
  return traceRun(context, config, options, (tracedContext, tracedConfig) =>
    agentLoopContinue(tracedContext, tracedConfig),
  );
}

function traceRun(
  context: AgentContext,
  config: AgentLoopConfig,
  options: TraceOptions,
  run: (context: AgentContext, config: AgentLoopConfig) => Observable<AgentEvent>,
): Observable<AgentEvent> {
  return defer(() => {
    // The loop's actor is known from its first inspection event (the system's root).
    let rootActor: AnyActorRef | undefined;
    const runTracer = new RunTracer(
      tracerOf(options),
      options,
      treeSource({
        actor: () => rootActor,
        model: () => config.model,
        systemPrompt: () => context.systemPrompt,
        runAborted: () => config.signal?.aborted === true,
      }),
    );
    const tools = new TracedTools(runTracer);
    const tracedConfig: AgentLoopConfig = {
      ...config,
      inspect: chainInspect((event) => {
        if (!rootActor && event.rootId === event.actorRef.sessionId)
          rootActor = event.actorRef as AnyActorRef;
        runTracer.onInspection(event);
      }, config.inspect),
    };
    return run({ ...context, tools: tools.wrap(context.tools) }, tracedConfig).pipe(
      tap((event) => runTracer.onEvent(event)),
      finalize(() => runTracer.endAll()),
    );
  });
}
