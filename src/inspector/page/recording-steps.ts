import type { JsonValue } from "../inspection-record.js";

/** One line of the recording panel: what happened before a step (a command, a model call, a tool call). */
export interface RecordingEntryView {
  kind: "command" | "model_call" | "tool_call";
  /** The agent path (`""` for the root agent). */
  agentPath: string;
  text: string;
}

/** A step of an opened recording, as the page shows it. */
export interface RecordingStepView {
  index: number;
  /** `turn_start`, `tools_settled`, `awaiting_human` or `run_end`. */
  step: string;
  /** The root agent's state value at the step (the diagram highlights it). */
  value: JsonValue;
  /** The recording's entries since the previous step, in order. */
  entries: RecordingEntryView[];
  /** The agent's transcript at the step (its persisted snapshot's `context.messages`). */
  messages: JsonValue[];
}

/**
 * The steps of a recording's JSONL text (a `*.recording.jsonl` file), each with the entries that led
 * to it. Entries after the last step (a run cut short) are not shown.
 *
 * Contract: pure; throws an Error naming the line for text that is not a recording (no recording
 * header first, a line that is not JSON).
 */
export function recordingSteps(text: string): RecordingStepView[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parsed = lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, JsonValue>;
    } catch {
      throw new Error(`line ${index + 1}: not JSON (a truncated or hand-edited recording?)`);
    }
  });
  if (parsed[0]?.format !== "agentchart.recording")
    throw new Error(
      'line 1: not a recording (its first line must be the header, "format": "agentchart.recording")',
    );
  const steps: RecordingStepView[] = [];
  let entries: RecordingEntryView[] = [];
  for (const entry of parsed.slice(1)) {
    if (entry.kind === "step") {
      steps.push({
        index: Number(entry.index),
        step: String(entry.step),
        value: entry.value ?? null,
        entries,
        messages: messagesOf(entry.snapshot),
      });
      entries = [];
    } else if (entry.kind === "command" || entry.kind === "model_call" || entry.kind === "tool_call") {
      entries.push({
        kind: entry.kind,
        agentPath: Array.isArray(entry.agentPath) ? entry.agentPath.join("/") : "",
        text: entryText(entry),
      });
    }
  }
  return steps;
}

/** The transcript in a step's snapshot: an `Agent`'s persisted format, or XState's own. */
function messagesOf(snapshot: JsonValue | undefined): JsonValue[] {
  const record = asRecord(snapshot);
  const machine = asRecord(record.snapshot ?? record);
  const messages = asRecord(machine.context).messages;
  return Array.isArray(messages) ? messages : [];
}

function entryText(entry: Record<string, JsonValue>): string {
  if (entry.kind === "command") {
    const command = asRecord(entry.command);
    return `${String(command.type)} (in ${JSON.stringify(entry.state)})`;
  }
  if (entry.kind === "tool_call") {
    const outcome =
      entry.error !== undefined ? `error: ${String(entry.error)}` : firstText(asRecord(entry.result).content);
    return `${String(entry.toolName)} ${JSON.stringify(entry.args)} → ${outcome}`;
  }
  const reply = asRecord(entry.reply);
  const content = Array.isArray(reply.content) ? reply.content.map(asRecord) : [];
  const calls = content.filter((block) => block.type === "toolCall").map((block) => String(block.name));
  const text = firstText(reply.content);
  const said = [text, ...(calls.length > 0 ? [`calls ${calls.join(", ")}`] : [])].filter(Boolean).join("; ");
  return `model → ${entry.error !== undefined ? `error: ${String(entry.error)}` : said || String(reply.stopReason)}`;
}

function firstText(content: JsonValue | undefined): string {
  const blocks = Array.isArray(content) ? content.map(asRecord) : [];
  const text = blocks.find((block) => block.type === "text")?.text;
  return typeof text === "string" ? (text.length > 80 ? `${text.slice(0, 79)}…` : text) : "";
}

function asRecord(value: JsonValue | undefined): Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}
