import type { Observable } from "rxjs";
import { Agent } from "../agent/agent.js";
import type { AgentState } from "../agent/agent-state.js";
import type { AgentHarness } from "../harness/agent-harness.js";
import type { HarnessEvent } from "../harness/hooks.js";
import { userMessage } from "../loop/messages.js";
import type { BudgetLimits } from "../types/budget.js";
import type { AgentMessage } from "../types/messages.js";
import type { AgentTool, ToolResult } from "../types/tool.js";
import { isDeclaredClientTool } from "./client-tools.js";

/**
 * What a run of the AG-UI endpoint drives: an `Agent` or an `AgentHarness`, behind one shape. Every
 * method is the public API of the agent or harness (the harness's approvals go to its Agent).
 */
export interface RunTarget {
  readonly events$: Observable<HarnessEvent>;
  /** The transcript now. */
  messages(): readonly AgentMessage[];
  /** The agent's state now: its waiting calls and the calls in progress. */
  state(): AgentState;
  /** Whether a run goes on (also one parked on calls of client tools). */
  running(): boolean;
  /** Settles when no run goes on. */
  idle(): Promise<void>;
  queued(): { steering: readonly AgentMessage[]; followUp: readonly AgentMessage[] };
  /** Runs a prompt (one user message); settles when the run ends. */
  prompt(text: string): Promise<unknown>;
  /** Approves a waiting call (a sub-agent's at `agentPath`). */
  approve(toolCallId: string, agentPath?: string[]): void;
  deny(toolCallId: string, reason?: string, agentPath?: string[]): void;
  /** Gives the result of a call waiting for the client; throws when no such call waits. */
  answer(toolCallId: string, result: ToolResult, isError: boolean): void;
  /** The tools of the agent that are not client tools declared by a run (see `clientToolsOf`). */
  serverTools(): readonly AgentTool[];
  /** The client tools declared by a run that the agent has now. */
  clientTools(): readonly AgentTool[];
  /** Replaces the declared client tools (the server's tools stay as they are). */
  setClientTools(tools: readonly AgentTool[]): void;
  steer(text: string): void;
  followUp(text: string): void;
  /** Raises limits of the run waiting at a budget limit or a loop breaker (a sub-agent's at `agentPath`). */
  raiseBudget(limits: BudgetLimits, agentPath?: string[]): void;
  /** Lets the call a budget limit holds go ahead once (a sub-agent's at `agentPath`). */
  continuePastBudget(agentPath?: string[]): void;
  abort(): void;
}

/**
 * Whether the agent's run can go on only once the client answers: a call waits for the client, none
 * waits for approval, and every call in progress is one of those waiting for the client. The AG-UI run
 * then ends (`RUN_FINISHED` naming the calls in `pendingToolCallIds`) while the agent's run waits.
 */
export function waitsForClientOnly(state: AgentState): boolean {
  if (!state.isStreaming || state.awaitingClient.length === 0 || state.awaitingApproval.length > 0)
    return false;
  const waiting = new Set(state.awaitingClient.map((call) => call.toolCallId));
  for (const id of state.pendingToolCalls) if (!waiting.has(id)) return false;
  return true;
}

/** The {@link RunTarget} of an Agent or an AgentHarness. */
export function runTargetOf(target: Agent | AgentHarness): RunTarget {
  if (target instanceof Agent) {
    const agent = target;
    return {
      events$: agent.events$,
      messages: () => agent.state.messages,
      state: () => agent.state,
      running: () => agent.state.isStreaming,
      idle: () => agent.waitForIdle(),
      queued: () => agent.queued,
      prompt: (text) => agent.prompt(userMessage(text)),
      approve: (toolCallId, agentPath) => agent.approveToolCall(toolCallId, pathOption(agentPath)),
      deny: (toolCallId, reason, agentPath) => agent.denyToolCall(toolCallId, reason, pathOption(agentPath)),
      answer: (toolCallId, result, isError) => agent.answerToolCall(toolCallId, result, { isError }),
      serverTools: () => agent.state.tools.filter((tool) => !isDeclaredClientTool(tool)),
      clientTools: () => agent.state.tools.filter(isDeclaredClientTool),
      setClientTools: (tools) =>
        agent.setTools([...agent.state.tools.filter((tool) => !isDeclaredClientTool(tool)), ...tools]),
      steer: (text) => agent.steer(text),
      followUp: (text) => agent.followUp(text),
      raiseBudget: (limits, agentPath) => agent.raiseBudget(limits, pathOption(agentPath)),
      continuePastBudget: (agentPath) => agent.continuePastBudget(pathOption(agentPath)),
      abort: () => agent.abort(),
    };
  }
  const harness = target;
  const serverTools = () => harness.tools.filter((tool) => !isDeclaredClientTool(tool));
  return {
    events$: harness.events$,
    messages: () => harness.messages,
    state: () => harness.agent.state,
    running: () => harness.phase !== "idle",
    idle: () => harness.waitForIdle(),
    queued: () => harness.agent.queued,
    prompt: (text) => harness.prompt(text),
    approve: (toolCallId, agentPath) => harness.approveToolCall(toolCallId, pathOption(agentPath)),
    deny: (toolCallId, reason, agentPath) => harness.denyToolCall(toolCallId, reason, pathOption(agentPath)),
    answer: (toolCallId, result, isError) => harness.answerToolCall(toolCallId, result, { isError }),
    serverTools,
    clientTools: () => harness.tools.filter(isDeclaredClientTool),
    setClientTools: (tools) => {
      const server = serverTools();
      const active = new Set(harness.activeToolNames);
      const activeServer = server.filter((tool) => active.has(tool.name)).map((tool) => tool.name);
      harness.setTools([...server, ...tools], [...activeServer, ...tools.map((tool) => tool.name)]);
    },
    steer: (text) => harness.steer(text),
    followUp: (text) => harness.followUp(text),
    raiseBudget: (limits, agentPath) => harness.raiseBudget(limits, pathOption(agentPath)),
    continuePastBudget: (agentPath) => harness.continuePastBudget(pathOption(agentPath)),
    abort: () => void harness.abort(),
  };
}

function pathOption(agentPath: string[] | undefined): { agentPath?: string[] } {
  return agentPath ? { agentPath } : {};
}
