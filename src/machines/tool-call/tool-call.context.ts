import type { AgentEvent } from "../../types/events.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../../types/messages.js";
import type { Model, ThinkingLevel } from "../../types/model.js";
import type { RunOutputState } from "../../types/output.js";
import type { AgentSettings, AgentView, SubAgentPlace, ToolCallOutcome } from "../agent/agent.context.js";

// The data of one tool call actor: its input, its context (persisted with the agent) and, for an agent
// tool, what its child agent starts from and how its run ended.

/** The `agent_end` event of a sub-agent's run, as it reaches the tool call that started it. */
export type SubAgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

/**
 * What a sub-agent starts from, as data (kept in the tool call's context, so a restore knows it):
 * the child's initial state and the prompt of its one run.
 */
export interface SubAgentStart {
  agentId: string;
  /** Where the child sits: its path from the root, and the call (tool and arguments) that runs it. */
  place: SubAgentPlace;
  /** The tool call that runs this agent: its run's end goes to that call (`SUB_AGENT_ENDED`). */
  parentToolCallId: string;
  model: Model;
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  toolNames: string[];
  settings: Partial<AgentSettings>;
  prompt: AgentMessage[];
  output?: RunOutputState;
  /** Its parent or an ancestor keeps a budget ledger: the child reserves its calls with them. */
  sharesLedger?: boolean;
}

/**
 * The agent a call belongs to, as its hooks and its child agent see it (data, handed over when the call
 * starts): its view of the transcript, its id and model, and its path from the root agent.
 */
export interface CallingAgent extends AgentView {
  agentId: string;
  model: Model;
  /** Tool call ids from the root agent down to this call's agent (`[]` for a root agent). */
  path: string[];
  /** The agent's run keeps a budget ledger, or its ancestors' do: a sub-agent it starts shares them. */
  sharesLedger?: boolean;
}

/** Input of a tool call actor: plain data. */
export interface ToolCallInput {
  toolCall: ToolCall;
  assistantMessage: AssistantMessage;
  idempotencyKey: string;
  agent: CallingAgent;
  /** Already approved (a call resumed after its approval was given): it never asks again. */
  approved?: boolean;
}

/** The context of a tool call actor: plain data, persisted with the agent. */
export interface ToolCallContext extends ToolCallInput {
  args: unknown;
  needsApproval: boolean;
  /** The tool has no `execute`: the call waits for the client's answer (`awaitingClient`). */
  client: boolean;
  /** An `afterToolCall` callback was set when the call was validated. */
  afterHook: boolean;
  /** The tool is an agent tool: the call runs a child agent (`startingAgent` → `delegating` → `collecting`). */
  agentTool?: boolean;
  /** The child agent's start (kept for a restore). */
  delegate?: SubAgentStart;
  /** How the child agent's run ended (until its result is collected). */
  agentEnd?: { end: SubAgentEnd; errorMessage: string | undefined };
  outcome: ToolCallOutcome | undefined;
}
