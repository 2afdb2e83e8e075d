import type { AgentMachineContext } from "../machines/agent/agent.context.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../types/messages.js";
import {
  FINAL_ANSWER_TOOL,
  issuesLine,
  type OutputIssue,
  OutputValidationError,
  type RunOutputState,
} from "../types/output.js";
import { errorToolResult, messagesText, userMessage } from "./messages.js";
import { endToolCall, Step, type StepResult, settleRemaining, startToolCall } from "./run-steps.js";

// Typed output, as pure functions of the agent's context: which reply carries the value, what the
// request asks for, and how a validation's verdict changes the run (see docs/output-and-guardrails.md).

/** What a reply offers as the run's output, before schema validation. */
export type OutputCandidate =
  /** The reply called the final-answer tool: its arguments (unwrapped for a non-object schema). */
  | { via: "tool"; call: ToolCall; value: unknown; raw: string }
  /** The reply's text: its JSON value, or why it is not JSON. */
  | { via: "text"; value: unknown; parseError?: string; raw: string };

/** What the validation of a candidate found. */
export type OutputVerdict = { ok: true; value: unknown } | { ok: false; issues: OutputIssue[] };

/** The run's expected output while it is still to come (none once accepted or failed). */
export function pendingOutput(ctx: AgentMachineContext): RunOutputState | undefined {
  const output = ctx.run?.output;
  return output && !output.accepted && !output.failure ? output : undefined;
}

/** Whether the request offers the final-answer tool (tools are active) rather than a response format. */
export function outputViaTool(ctx: AgentMachineContext): boolean {
  return ctx.toolNames.length > 0;
}

/**
 * The candidate output of `reply`: the final-answer call's arguments, or — for a reply without tool
 * calls — its text. Undefined when the run expects no output or the reply carries none (it called
 * other tools only, or failed).
 */
export function outputCandidate(
  ctx: AgentMachineContext,
  reply: AssistantMessage,
): OutputCandidate | undefined {
  const output = pendingOutput(ctx);
  if (!output || reply.stopReason === "error" || reply.stopReason === "aborted") return undefined;
  const calls = reply.content.filter((block): block is ToolCall => block.type === "toolCall");
  const final = calls.find((call) => call.name === FINAL_ANSWER_TOOL);
  if (final) {
    const args = final.arguments as Record<string, unknown>;
    return { via: "tool", call: final, value: output.wrapped ? args.value : args, raw: JSON.stringify(args) };
  }
  if (calls.length > 0) return undefined;
  const raw = messagesText([reply]);
  const json = unfenced(raw);
  try {
    return { via: "text", value: JSON.parse(json), raw };
  } catch (error) {
    return { via: "text", value: undefined, parseError: (error as Error).message, raw };
  }
}

/** The JSON inside a Markdown code fence (models add them despite instructions), else the text. */
function unfenced(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}

/** The text that tells the model what failed and what to do. */
export function repairText(
  issues: readonly OutputIssue[],
  via: "tool" | "text",
  toolsActive: boolean,
): string {
  const what = `The output did not match its schema: ${issuesLine(issues)}.`;
  if (via === "tool") return `${what} Call the ${FINAL_ANSWER_TOOL} tool again with corrected arguments.`;
  return toolsActive
    ? `${what} When you are done, call the ${FINAL_ANSWER_TOOL} tool with the answer as its arguments.`
    : `${what} Reply again with only the corrected JSON value.`;
}

/** The result text of an accepted final-answer call. */
export const FINAL_ANSWER_ACCEPTED_TEXT = "Final answer accepted.";

/** How a verdict changes the run: the output state, and what else it adds. */
export interface OutputDecision {
  output: RunOutputState;
  /** A repair message for the next turn (text road). */
  repair?: AgentMessage;
  /** The final-answer call's result (tool road). */
  callResult?: { call: ToolCall; text: string; isError: boolean };
}

/**
 * Applies a verdict (pure): accepted, or one more repair, or — past `maxRepairs` — failed with the
 * issues and raw text. A candidate that is not JSON fails with that as its issue.
 */
export function decideOutput(
  ctx: AgentMachineContext,
  candidate: OutputCandidate,
  verdict: OutputVerdict,
): OutputDecision {
  const output = ctx.run!.output!;
  if (verdict.ok) {
    const accepted = { ...output, accepted: true, value: verdict.value };
    return candidate.via === "tool"
      ? {
          output: accepted,
          callResult: { call: candidate.call, text: FINAL_ANSWER_ACCEPTED_TEXT, isError: false },
        }
      : { output: accepted };
  }
  const text = repairText(verdict.issues, candidate.via, outputViaTool(ctx));
  if (output.repairs >= output.maxRepairs) {
    const failed = { ...output, failure: { issues: verdict.issues, raw: candidate.raw } };
    return candidate.via === "tool"
      ? { output: failed, callResult: { call: candidate.call, text, isError: true } }
      : { output: failed };
  }
  const repaired = { ...output, repairs: output.repairs + 1 };
  return candidate.via === "tool"
    ? { output: repaired, callResult: { call: candidate.call, text, isError: true } }
    : { output: repaired, repair: userMessage(text) };
}

/** The issue of a text that is not JSON. */
export function notJsonIssue(parseError: string): OutputIssue {
  return { path: [], message: `the reply is not a JSON value (${parseError})` };
}

/** What the calls of a reply that also carried an output that never validated get. */
export const OUTPUT_FAILED_CALL_TEXT =
  "Tool call not executed: the run ended because its output did not match the schema.";

/** The reply a validation looked at: the current batch's, else the run's last assistant message. */
export function validatedReply(ctx: AgentMachineContext): AssistantMessage | undefined {
  const run = ctx.run;
  return (
    run?.batch?.message ??
    run?.newMessages.findLast((m): m is AssistantMessage => (m as AssistantMessage).role === "assistant")
  );
}

/**
 * Applies the validation's verdict on the reply just recorded (pure): the output state; the
 * final-answer call's result (tool road); a repair message for the next turn (text road); when the
 * output failed for good, every other call of the reply answered without running.
 */
export function applyOutputVerdict(ctx: AgentMachineContext, verdict: OutputVerdict): StepResult {
  const step = new Step(ctx);
  const reply = validatedReply(ctx);
  const candidate = reply && outputCandidate(ctx, reply);
  if (!candidate) return step.result();
  const decision = decideOutput(ctx, candidate, verdict);
  step.setRun({ output: decision.output });
  if (decision.callResult) {
    const { call, text, isError } = decision.callResult;
    startToolCall(step, call);
    endToolCall(step, { toolCall: call, result: errorToolResult(text), isError });
  }
  if (decision.repair) step.setRun({ inbox: [...step.run.inbox, { message: decision.repair }] });
  if (decision.output.failure) {
    settleRemaining(step, OUTPUT_FAILED_CALL_TEXT);
    const { issues, raw } = decision.output.failure;
    step.set({ errorMessage: new OutputValidationError(issues, raw).message });
  }
  return step.result();
}
