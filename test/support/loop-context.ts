import type { AgentMachineContext } from "../../src/machines/agent/agent.context.js";
import { initialAgentContext } from "../../src/machines/agent/agent.context.js";
import { type AssistantMessage, emptyUsage } from "../../src/types/messages.js";
import { testModel } from "./loop-harness.js";

// Contexts and replies for tests of the loop's pure steps (no actor). Every input context is
// deep-frozen, so a step that changed it in place would throw.

/** `value`, frozen all the way down. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** An idle agent's context (no tools, the scripted test model), frozen, with `patch` applied. */
export function idleContext(patch: Partial<AgentMachineContext> = {}): AgentMachineContext {
  return deepFreeze({ ...initialAgentContext({ agentId: "a", model: testModel, toolNames: [] }), ...patch });
}

/** A reply of the test model. */
export function assistant(
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"],
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: testModel.api,
    provider: testModel.provider,
    model: testModel.id,
    usage: emptyUsage(),
    stopReason,
    timestamp: 1,
  };
}
