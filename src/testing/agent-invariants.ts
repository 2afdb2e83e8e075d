import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../types/messages.js";
import type { AgentInvariant, AgentTestObservation } from "./agent-observation.js";

const toolCallsOf = (message: AgentMessage) =>
  (message as { role?: string }).role === "assistant"
    ? (message as AssistantMessage).content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
    : [];
const resultIdOf = (message: AgentMessage) =>
  (message as { role?: string }).role === "toolResult"
    ? (message as ToolResultMessage).toolCallId
    : undefined;

/** Every tool call is answered at most once, and once the run ended, exactly once. */
export const everyToolCallAnsweredOnce: AgentInvariant = {
  name: "every tool call answered exactly once",
  check({ snapshot, events, ended }: AgentTestObservation) {
    const answered = new Map<string, number>();
    for (const message of snapshot.context.messages) {
      const id = resultIdOf(message);
      if (id !== undefined) answered.set(id, (answered.get(id) ?? 0) + 1);
    }
    for (const [id, count] of answered) if (count > 1) return `${id} has ${count} tool results`;
    const ends = events.flatMap((event) => (event.type === "tool_execution_end" ? [event.toolCallId] : []));
    const twice = ends.find((id, index) => ends.indexOf(id) !== index);
    if (twice) return `${twice} ended twice (tool_execution_end)`;
    if (!ended) return undefined;
    const unanswered = snapshot.context.messages.flatMap(toolCallsOf).find((id) => !answered.has(id));
    return unanswered ? `${unanswered} has no tool result after the run ended` : undefined;
  },
};

/** No tool's `execute` starts for a call that needs approval before the test approved it, nor after a denial. */
export const noToolBeforeApproval: AgentInvariant = {
  name: "no tool executes before its approval",
  check({ executions }: AgentTestObservation) {
    const early = executions.find((run) => run.needsApproval && (!run.approved || run.denied));
    if (!early) return undefined;
    return `${early.toolName} (${early.toolCallId}) executed ${early.denied ? "after its denial" : "before its approval"}`;
  },
};

/**
 * With output guardrails, a subscriber receives a reply's text only after the guardrails passed it:
 * when a text delta arrives, the passes given cover every reply whose events were released.
 */
export const noTextBeforeGuardrails: AgentInvariant = {
  name: "no text delta reaches a subscriber before the output guardrails pass",
  check({ guardrails, textDeltas }: AgentTestObservation) {
    if (!guardrails) return undefined;
    const index = textDeltas.findIndex((delta) => delta.passesBefore < delta.repliesBefore);
    if (index < 0) return undefined;
    const delta = textDeltas[index]!;
    return `text delta ${index + 1} reached a subscriber of reply ${delta.repliesBefore} after ${delta.passesBefore} guardrail pass(es)`;
  },
};

/**
 * The transcript is valid for a provider: every tool result follows its call, the results of a
 * reply's calls come before the next assistant message in the calls' order, and, once the run ended,
 * every call has its result.
 */
export const transcriptValidForProvider: AgentInvariant = {
  name: "the transcript is valid for the provider",
  check({ snapshot, ended }: AgentTestObservation) {
    const messages = snapshot.context.messages;
    let open: string[] = [];
    for (const [index, message] of messages.entries()) {
      const id = resultIdOf(message);
      if (id !== undefined) {
        if (open[0] !== id)
          return `message ${index + 1}: the result of ${id} ${open.includes(id) ? `comes before the result of ${open[0]}` : "answers no open tool call"}`;
        open = open.slice(1);
        continue;
      }
      if ((message as { role?: string }).role === "assistant") {
        if (open.length > 0)
          return `message ${index + 1}: an assistant message before the results of ${open.join(", ")}`;
        open = toolCallsOf(message);
      }
    }
    return ended && open.length > 0
      ? `the calls ${open.join(", ")} have no results after the run ended`
      : undefined;
  },
};

/** The run ended: the agent is idle with no child left, and `agent_end` answered every `agent_start`. */
export const runEnds: AgentInvariant = {
  name: "the run ends",
  check({ snapshot, events, ended }: AgentTestObservation) {
    if (!ended) return undefined;
    if (!snapshot.matches("idle")) return `the agent is still in ${JSON.stringify(snapshot.value)}`;
    const left = Object.keys(snapshot.children);
    if (left.length > 0) return `child actors left running: ${left.join(", ")}`;
    const count = (type: string) => events.filter((event) => event.type === type).length;
    if (count("agent_start") !== count("agent_end"))
      return `${count("agent_start")} agent_start but ${count("agent_end")} agent_end`;
    return undefined;
  },
};

/**
 * The invariants every path checks after every step (the persist/restore check runs beside them).
 *
 * Contract: pure data; add your own with `createAgentTestModel({ invariants })`.
 *
 * @example
 * ```ts
 * console.log(agentRunInvariants.map((invariant) => invariant.name));
 * ```
 */
export const agentRunInvariants: readonly AgentInvariant[] = [
  everyToolCallAnsweredOnce,
  noToolBeforeApproval,
  noTextBeforeGuardrails,
  transcriptValidForProvider,
  runEnds,
];
