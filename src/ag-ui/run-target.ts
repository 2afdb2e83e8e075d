import type { Observable } from "rxjs";
import { Agent } from "../agent/agent.js";
import type { AgentHarness } from "../harness/agent-harness.js";
import type { HarnessEvent } from "../harness/hooks.js";
import { userMessage } from "../loop/messages.js";
import type { AgentMessage } from "../types/messages.js";

/**
 * What a run of the AG-UI endpoint drives: an `Agent` or an `AgentHarness`, behind one shape. Every
 * method is the public API of the agent or harness (the harness's approvals go to its Agent).
 */
export interface RunTarget {
  readonly events$: Observable<HarnessEvent>;
  /** The transcript now. */
  messages(): readonly AgentMessage[];
  queued(): { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] };
  /** Runs a prompt (one user message); settles when the run ends. */
  prompt(text: string): Promise<unknown>;
  approve(toolCallId: string): void;
  deny(toolCallId: string, reason?: string): void;
  steer(text: string): void;
  followUp(text: string): void;
  abort(): void;
}

/** The {@link RunTarget} of an Agent or an AgentHarness. */
export function runTargetOf(target: Agent | AgentHarness): RunTarget {
  if (target instanceof Agent) {
    const agent = target;
    return {
      events$: agent.events$,
      messages: () => agent.state.messages,
      queued: () => agent.queued,
      prompt: (text) => agent.prompt(userMessage(text)),
      approve: (toolCallId) => agent.approveToolCall(toolCallId),
      deny: (toolCallId, reason) => agent.denyToolCall(toolCallId, reason),
      steer: (text) => agent.steer(text),
      followUp: (text) => agent.followUp(text),
      abort: () => agent.abort(),
    };
  }
  const harness = target;
  return {
    events$: harness.events$,
    messages: () => harness.messages,
    queued: () => harness.agent.queued,
    prompt: (text) => harness.prompt(text),
    approve: (toolCallId) => harness.agent.approveToolCall(toolCallId),
    deny: (toolCallId, reason) => harness.agent.denyToolCall(toolCallId, reason),
    steer: (text) => harness.steer(text),
    followUp: (text) => harness.followUp(text),
    abort: () => void harness.abort(),
  };
}
