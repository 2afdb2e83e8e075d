import type { AgentContext } from "./loop.js";
import type { AgentMessage, AssistantMessage } from "./messages.js";
import type { GuardrailTrip } from "./output.js";

/** What a guardrail looks at. */
export interface GuardrailContext {
  kind: "input" | "output";
  /** Input: the run's prompt messages. Output: the reply, not yet released. */
  messages: AgentMessage[];
  /** The text of those messages (their text blocks, joined with blank lines). */
  text: string;
  /** Output guardrails: the reply being checked. */
  reply?: AssistantMessage;
  /**
   * Output guardrails of a run that expects typed output: the value the reply carries (its JSON text
   * parsed, or the final-answer tool's arguments), before schema validation; `undefined` if none.
   */
  output?: unknown;
  /** The agent: system prompt, transcript (without the checked reply), active tools. */
  agent: AgentContext;
}

/** A guardrail's answer: `tripwire: true` stops the run. */
export interface GuardrailVerdict {
  tripwire: boolean;
  /** Why it tripped (on `guardrail_tripped` and the run result). */
  reason?: string;
  /** The text the transcript keeps instead of the rejected reply (default: a placeholder naming the guardrail). */
  replacement?: string;
}

/**
 * A check of a run's input or of a reply before it is released (see docs/output-and-guardrails.md).
 *
 * Contract: `check` may be async and may throw; a throw (or rejection, or an answer that is not a
 * verdict) is a trip with the error as its reason — guardrails fail closed. `signal` aborts when the
 * run is aborted or another guardrail tripped.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * const noSecrets: Guardrail = {
 *   name: "no-secrets",
 *   check: ({ text }) => ({ tripwire: /sk-[A-Za-z0-9]{20}/.test(text), reason: "an API key" }),
 * };
 * new Agent({ model, streamFn, guardrails: { output: [noSecrets] } });
 * ```
 */
export interface Guardrail {
  name: string;
  /**
   * Input guardrails only. `blocking` (default): the model call waits for the check. `parallel`: the
   * model call starts at once; its events are held until the check passes, and a trip aborts it.
   */
  mode?: "blocking" | "parallel";
  check(context: GuardrailContext, signal: AbortSignal): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** Input and output guardrails of an agent. */
export interface Guardrails {
  input?: Guardrail[];
  output?: Guardrail[];
}

/** Which guardrails an agent has, as data (in the machine's context, so guards can see them). */
export interface GuardrailNames {
  input: { name: string; mode: "blocking" | "parallel" }[];
  output: string[];
}

/** What a set of guardrails found: nothing, or the first trip (with the guardrail's replacement). */
export interface GuardrailOutcome {
  trip?: GuardrailTrip;
  replacement?: string;
}
