import type { Recording } from "../replay/recording.js";
import type { AssistantMessage } from "../types/messages.js";
import type { EvalCase } from "./eval-case.js";
import { evalRunOf } from "./eval-run.js";

/**
 * Eval cases from a recorded run: one case per prompt of the top-level agent (a `PROMPT` command), its
 * input the prompt's messages after the transcript the agent had, its expectations what the recorded
 * agent did next — its tool calls and the text of its last reply before the next prompt. So a run that
 * went well becomes a regression test, like `evalCasesFromSession` does for a stored session.
 *
 * Contract: pure; case ids are `<id>#<n>` (n from 1); metadata holds `recording` (the id) and `turn`.
 *
 * @example
 * ```ts
 * import { readRecordingFile } from "agentchart/node";
 * const cases = evalCasesFromRecording(await readRecordingFile("run.recording.jsonl"), "checkout");
 * ```
 */
export function evalCasesFromRecording(recording: Recording, id = "recording"): EvalCase[] {
  const entries = recording.entries;
  const prompts = entries.flatMap((entry, index) =>
    entry.kind === "command" && entry.agentPath.length === 0 && entry.command.type === "PROMPT"
      ? [index]
      : [],
  );
  return prompts.map((start, turn) => {
    const end = prompts[turn + 1] ?? entries.length;
    const replies: AssistantMessage[] = [];
    for (const entry of entries.slice(start, end))
      if (entry.kind === "model_call" && entry.agentPath.length === 0 && entry.reply)
        replies.push(entry.reply);
    const prompt = entries[start];
    const input =
      prompt?.kind === "command" && prompt.command.type === "PROMPT" ? prompt.command.messages : [];
    const run = evalRunOf("", replies);
    return {
      id: `${id}#${turn + 1}`,
      input: [...transcriptBefore(recording, start), ...input],
      ...(replies.length > 0 ? { expectedOutput: run.text } : {}),
      expectedTrajectory: run.toolCalls,
      metadata: { recording: id, turn: turn + 1 },
    };
  });
}

/** The top-level agent's transcript when the entry at `index` arrived: the messages of its latest model request. */
function transcriptBefore(recording: Recording, index: number) {
  const earlier = recording.entries
    .slice(0, index)
    .findLast((entry) => entry.kind === "model_call" && entry.agentPath.length === 0);
  if (earlier?.kind !== "model_call") return [];
  return [...earlier.request.messages, ...(earlier.reply ? [earlier.reply] : [])];
}
