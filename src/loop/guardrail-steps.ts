import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { AssistantMessage } from "../types/messages.js";
import { emptyUsage } from "../types/messages.js";
import type { GuardrailTrip } from "../types/output.js";
import { Step, type StepResult } from "./run-steps.js";

/** The text the transcript keeps for a tripped turn when the guardrail gives no replacement. */
export function withheldText(trip: GuardrailTrip): string {
  return trip.kind === "input"
    ? `[The request was blocked by the "${trip.guardrail}" guardrail.]`
    : `[This reply was withheld by the "${trip.guardrail}" guardrail.]`;
}

/**
 * A guardrail tripped (pure): `guardrail_tripped`, then the turn ends with a placeholder assistant
 * message (the guardrail's `replacement`, else `withheldText`) in place of anything the turn's reply
 * said; the run records the trip (the machine ends it next). `reply`: the rejected reply, whose
 * model and usage the placeholder keeps (the tokens were spent).
 */
export function tripGuardrail(
  ctx: AgentMachineContext,
  trip: GuardrailTrip,
  replacement: string | undefined,
  reply?: AssistantMessage,
): StepResult {
  const step = new Step(ctx);
  step.emit({ type: "guardrail_tripped", ...trip });
  step.openTurn();
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: replacement ?? withheldText(trip) }],
    api: reply?.api ?? ctx.model.api,
    provider: reply?.provider ?? ctx.model.provider,
    model: reply?.model ?? ctx.model.id,
    usage: reply?.usage ?? emptyUsage(),
    stopReason: "stop",
    timestamp: reply?.timestamp ?? Date.now(),
  };
  step.append(message);
  step.emit({ type: "turn_end", message, toolResults: [] });
  step.setRun({ turnOpen: false, tripped: trip, heldReply: undefined, inputCheck: undefined });
  return step.result();
}
