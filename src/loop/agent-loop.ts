import { Observable } from "rxjs";
import { type Actor, createActor } from "xstate";
import { agentLoopMachine } from "../machines/agent-loop.machine.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig } from "../types/loop.js";
import type { AgentMessage } from "../types/messages.js";
import type { AgentLoopInput } from "./loop-context.js";

export type AgentLoopActor = Actor<typeof agentLoopMachine>;

/**
 * Creates (does not start) the loop actor for a run, like XState's `createActor`. Send `START` after
 * `start()` to begin; `ABORT` ends it at any moment. AgentEvents go to `onEvent`, synchronously and in
 * order. `config.signal` aborting sends `ABORT`; `config.inspect` observes the actor and its children.
 * With `appendInPlace`, the run appends to `context.messages` directly instead of to a copy.
 */
export function createAgentLoopActor(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  onEvent: AgentEventSink = () => {},
  options: Pick<AgentLoopInput, "appendInPlace"> = {},
): AgentLoopActor {
  const actor = createActor(agentLoopMachine, {
    input: { prompts, context, config, sink: onEvent, ...options },
    ...(config.inspect ? { inspect: config.inspect } : {}),
  });
  const signal = config.signal;
  if (signal) {
    const abort = () => actor.send({ type: "ABORT" });
    signal.addEventListener("abort", abort, { once: true });
    actor.subscribe({
      complete: () => signal.removeEventListener("abort", abort),
      error: () => signal.removeEventListener("abort", abort),
    });
  }
  return actor;
}

function runLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
): Observable<AgentEvent> {
  return new Observable<AgentEvent>((subscriber) => {
    const actor = createAgentLoopActor(prompts, context, config, (event) => subscriber.next(event));
    actor.subscribe({
      complete: () => subscriber.complete(),
      error: (error) => subscriber.error(error),
    });
    actor.start();
    if (config.signal?.aborted) actor.send({ type: "ABORT" });
    else actor.send({ type: "START" });
    return () => {
      if (actor.getSnapshot().status === "active") actor.send({ type: "ABORT" });
      actor.stop();
    };
  });
}

/**
 * Runs the loop on new prompt messages as a cold Observable: subscribing starts a run, unsubscribing
 * aborts it. Emits the AgentEvents of §4 and completes right after `agent_end`. Provider, tool and
 * callback failures become error messages / error tool results — the Observable never errors for them.
 *
 * ```ts
 * agentLoop([{ role: "user", content: "Hi", timestamp: Date.now() }],
 *   { systemPrompt: "", messages: [], tools: [] }, { model, streamFn })
 *   .subscribe((event) => console.log(event.type));
 * ```
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
): Observable<AgentEvent> {
  return runLoop(prompts, context, config);
}

/**
 * Continues from the existing context without new prompts (e.g. after tool results or a retry).
 * Throws synchronously when the context is empty or ends with an assistant message.
 */
export function agentLoopContinue(context: AgentContext, config: AgentLoopConfig): Observable<AgentEvent> {
  const last = context.messages.at(-1);
  if (!last) throw new Error("Cannot continue: no messages in context");
  if ((last as { role?: string }).role === "assistant")
    throw new Error("Cannot continue from message role: assistant");
  return runLoop([], context, config);
}
