import { lastValueFrom, toArray } from "rxjs";
import { z } from "zod";
import { agentLoop, createAgentLoopActor } from "../../src/agent/agent-loop.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentContext, AgentLoopConfig } from "../../src/types/loop.js";
import type { AgentMessage, UserMessage } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";

export const testModel: Model = {
  id: "scripted-1",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

export function emptyContext(overrides: Partial<AgentContext> = {}): AgentContext {
  return { systemPrompt: "You are a test.", messages: [], tools: [], ...overrides };
}

/** Runs agentLoop to completion and returns every event. */
export function runToEnd(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
): Promise<AgentEvent[]> {
  return lastValueFrom(agentLoop(prompts, context, config).pipe(toArray()));
}

/** Event types, with the role for message events and the tool call id for tool events. */
export function describeEvents(events: AgentEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === "message_update") return [];
    if (event.type === "message_start" || event.type === "message_end") {
      return [`${event.type}(${(event.message as { role: string }).role})`];
    }
    if (event.type.startsWith("tool_"))
      return [`${event.type}(${(event as { toolCallId: string }).toolCallId})`];
    return [event.type];
  });
}

/** A deferred promise: resolve/reject it from the test to control when a tool finishes. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An echo tool whose execution the test can hold until it resolves `gate`. */
export function echoTool(name = "echo", gate?: () => Promise<void>) {
  return defineTool({
    name,
    description: "Echoes its text",
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      await gate?.();
      return { content: [{ type: "text", text: `echo: ${text}` }], details: { text } };
    },
  });
}

/**
 * An agent actor for a loop run (`createAgentLoopActor`), started, with every AgentEvent going to
 * `onEvent`. Call `prompt()` to send `PROMPT` with `prompts`; `ended` resolves with `agent_end`'s messages.
 */
export function startLoopActor(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  onEvent: (event: AgentEvent) => void = () => {},
) {
  const actor = createAgentLoopActor(context, config);
  const ended = deferred<AgentMessage[]>();
  actor.on("*", (event) => {
    onEvent(event);
    if (event.type === "agent_end") ended.resolve(event.messages);
  });
  actor.start();
  return { actor, ended: ended.promise, prompt: () => actor.send({ type: "PROMPT", messages: prompts }) };
}
