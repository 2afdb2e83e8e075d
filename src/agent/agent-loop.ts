import { Observable } from "rxjs";
import { createActor } from "xstate";
import { continueRefusal } from "../loop/continue-refusal.js";
import { createAgentMachine } from "../machines/agent/agent.provided.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentContext, AgentLoopConfig } from "../types/loop.js";
import type { AgentMessage } from "../types/messages.js";
import type { AgentActor } from "./agent-snapshot.js";

/**
 * Creates (does not start) an `agentMachine` actor for a loop run over `context` with `config`, like
 * XState's `createActor`. Start it, then send `PROMPT` (or `CONTINUE`); AgentEvents come from
 * `actor.on(type, …)`; `ABORT` ends the run at any moment and the actor returns to `idle`.
 * `config.signal` aborting aborts the run; `config.inspect` observes the actor and its children.
 * The context's messages are copied: the caller's array is never changed.
 */
export function createAgentLoopActor(context: AgentContext, config: AgentLoopConfig): AgentActor {
  const actor = createActor(createAgentMachine({ ...config, tools: context.tools }), {
    input: {
      model: config.model,
      toolNames: context.tools.map((tool) => tool.name),
      systemPrompt: context.systemPrompt,
      thinkingLevel: config.thinkingLevel ?? "off",
      messages: context.messages,
      settings: {
        toolExecution: config.toolExecution ?? "parallel",
        steering: config.steering ?? "afterToolBatch",
        maxTurns: config.maxTurns,
      },
    },
    ...(config.inspect ? { inspect: config.inspect } : {}),
  });
  const signal = config.signal;
  if (signal) {
    const abort = () => actor.send({ type: "ABORT" });
    signal.addEventListener("abort", abort, { once: true });
    // A signal aborted before the run began ends it before anything is decided.
    actor.on("agent_start", () => {
      if (signal.aborted) abort();
    });
    actor.subscribe({ complete: () => signal.removeEventListener("abort", abort), error: () => undefined });
  }
  return actor;
}

function runLoop(prompts: AgentMessage[] | undefined, context: AgentContext, config: AgentLoopConfig) {
  return new Observable<AgentEvent>((subscriber) => {
    const actor = createAgentLoopActor(context, config);
    let ended = false;
    actor.on("*", (event) => {
      subscriber.next(event);
      // A sub-agent's `agent_end` (with `agentPath`) does not end the loop's run.
      if (event.type === "agent_end" && event.agentPath === undefined) {
        ended = true;
        subscriber.complete();
      }
    });
    actor.subscribe({ error: (error) => subscriber.error(error) });
    actor.start();
    actor.send(prompts ? { type: "PROMPT", messages: prompts } : { type: "CONTINUE" });
    return () => {
      if (!ended) actor.send({ type: "ABORT" });
      actor.stop();
    };
  });
}

/**
 * Runs the loop on new prompt messages as a cold Observable: subscribing starts a run, unsubscribing
 * aborts it. Emits the AgentEvents of docs/concepts.md and completes right after `agent_end`. Provider,
 * tool and callback failures become error messages / error tool results — the Observable never errors
 * for them.
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
  const refusal = continueRefusal(context.messages, 0);
  if (refusal) throw new Error(refusal);
  return runLoop(undefined, context, config);
}
