import type { GuardrailNames } from "../types/guardrail.js";
import type { AgentMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AgentMachineContext, AgentSettings, PersistableStreamOptions } from "./agent-context.js";

/** What a new agent starts from; everything left out takes its default. */
export interface AgentStart {
  agentId?: string;
  model: Model;
  systemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  toolNames: string[];
  messages?: AgentMessage[];
  settings?: Partial<AgentSettings>;
  streamOptions?: PersistableStreamOptions;
  guardrails?: GuardrailNames;
  hasTurnCallbacks?: boolean;
  parentToolCallId?: string;
}

/** The context of an idle agent with nothing queued: defaults filled in, the transcript copied. */
export function initialAgentContext(start: AgentStart): AgentMachineContext {
  return {
    agentId: start.agentId ?? crypto.randomUUID(),
    systemPrompt: start.systemPrompt ?? "",
    model: start.model,
    thinkingLevel: start.thinkingLevel ?? "off",
    toolNames: [...start.toolNames],
    messages: [...(start.messages ?? [])],
    steering: [],
    followUp: [],
    settings: {
      toolExecution: "parallel",
      steering: "afterToolBatch",
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      maxTurns: undefined,
      ...start.settings,
    },
    streamOptions: { ...start.streamOptions },
    errorMessage: undefined,
    guardrails: start.guardrails ?? { input: [], output: [] },
    hasTurnCallbacks: start.hasTurnCallbacks ?? true,
    run: undefined,
    ...(start.parentToolCallId ? { parentToolCallId: start.parentToolCallId } : {}),
  };
}
