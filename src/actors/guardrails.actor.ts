import { fromPromise } from "xstate";
import { messagesText } from "../loop/messages.js";
import {
  type AgentImplementations,
  type AgentView,
  callbackContextOf,
} from "../machines/agent/agent.implementations.js";
import { errorText } from "../types/error-text.js";
import type { Guardrail, GuardrailContext, GuardrailOutcome, GuardrailVerdict } from "../types/guardrail.js";
import type { AgentContext } from "../types/loop.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";

export type { GuardrailOutcome };

/**
 * Runs `guardrails` on `context` side by side; resolves with the first trip (the others are told to
 * stop through their signal) or with no trip once all passed. A guardrail that throws, rejects or
 * answers something other than a verdict trips with that as its reason (fail closed).
 *
 * Contract: never rejects; an abort of `signal` resolves at once with no trip (the run is ending).
 */
export function runGuardrails(
  guardrails: readonly Guardrail[],
  context: GuardrailContext,
  signal: AbortSignal,
): Promise<GuardrailOutcome> {
  if (guardrails.length === 0) return Promise.resolve({});
  const local = new AbortController();
  const onAbort = () => local.abort();
  signal.addEventListener("abort", onAbort);
  return new Promise<GuardrailOutcome>((resolve) => {
    let open = guardrails.length;
    let done = false;
    const finish = (outcome: GuardrailOutcome) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      local.abort();
      resolve(outcome);
    };
    if (signal.aborted) return finish({});
    local.signal.addEventListener("abort", () => finish({}));
    for (const guardrail of guardrails) {
      const trip = (reason: string, threw: boolean, replacement?: string) =>
        finish({
          trip: { guardrail: guardrail.name, kind: context.kind, reason, ...(threw ? { threw } : {}) },
          ...(replacement !== undefined ? { replacement } : {}),
        });
      const judge = (verdict: unknown) => {
        if (!isVerdict(verdict))
          return trip(`Guardrail "${guardrail.name}" answered something other than a verdict`, true);
        if (verdict.tripwire) return trip(verdict.reason ?? "tripped", false, verdict.replacement);
        if (--open === 0) finish({});
      };
      const failed = (error: unknown) =>
        trip(`Guardrail "${guardrail.name}" failed: ${errorText(error)}`, true);
      try {
        Promise.resolve(guardrail.check(context, local.signal)).then(judge, failed);
      } catch (error) {
        failed(error);
      }
    }
  });
}

function isVerdict(value: unknown): value is GuardrailVerdict {
  return (
    typeof value === "object" && value !== null && typeof (value as GuardrailVerdict).tripwire === "boolean"
  );
}

/** What a guardrail check of the agent machine is asked to look at (data). */
export type GuardrailCheck =
  /** The run's prompt messages, with the blocking input guardrails. */
  | { kind: "input"; messages: AgentMessage[]; agent: AgentView }
  /** A held reply, with every output guardrail; `output`: the value it carries, if the run expects one. */
  | { kind: "output"; reply: AssistantMessage; output?: unknown; agent: AgentView };

/**
 * The guardrails actor invoked by `preparingTurn.checkingInput` (blocking input guardrails) and
 * `streaming.checking` (output guardrails), provided by `createAgentMachine`: runs the agent's
 * guardrails on the check; a stop aborts them.
 */
export function guardrailsActor(implementations: AgentImplementations) {
  return fromPromise<GuardrailOutcome, GuardrailCheck>(({ input, signal }) => {
    const agent = callbackContextOf(implementations, input.agent);
    if (input.kind === "input") {
      const blocking = implementations.guardrails.input.filter(
        (guardrail) => (guardrail.mode ?? "blocking") === "blocking",
      );
      return runGuardrails(blocking, inputCheckContext(agent, input.messages), signal);
    }
    const messages = [input.reply];
    return runGuardrails(
      implementations.guardrails.output,
      {
        kind: "output",
        messages,
        text: messagesText(messages),
        reply: input.reply,
        ...(input.output !== undefined ? { output: input.output } : {}),
        agent,
      },
      signal,
    );
  });
}

/** The context input guardrails see for `messages`. */
export function inputCheckContext(agent: AgentContext, messages: AgentMessage[]): GuardrailContext {
  return { kind: "input", messages, text: messagesText(messages), agent };
}
