import { createInterface } from "node:readline";
import type { Subscription } from "rxjs";
import type { AgentSurface } from "../harness/agent-surface.js";
import { AgentPathLabels, agentPathOf } from "./agent-path-labels.js";
import { unansweredApprovalReason } from "./builtin-tool-approvals.js";
import { abbreviate } from "./event-renderer.js";
import { sendCommand } from "./send-command.js";

/** Asks one question and resolves with the answer line, or `undefined` when input has ended. */
export type AskLine = (question: string) => Promise<string | undefined>;

/**
 * Answers the harness's `tool_approval_request`s by asking, one at a time: `y`/`yes` sends
 * `APPROVE_TOOL`, any other answer `DENY_TOOL`, and no answer (input ended) `DENY_TOOL` with a hint
 * about `--yes` and `trust`. A sub-agent's request is asked the same way, naming the sub-agents it
 * comes from (`allow bash {…} (sub-agent code-reviewer)?`), and answered with its `agentPath`. An
 * answer the harness refuses (the call stopped waiting meanwhile: the run was aborted) is reported
 * on `report` as one line.
 *
 * Contract: never throws; one command per request.
 *
 * ```ts
 * const approvals = askForToolApprovals(harness, async () => "y", (line) => console.error(line));
 * approvals.unsubscribe();
 * ```
 */
export function askForToolApprovals(
  surface: AgentSurface,
  ask: AskLine,
  report: (line: string) => void,
): Subscription {
  let queue: Promise<void> = Promise.resolve();
  const labels = new AgentPathLabels();
  return surface.events$.subscribe((event) => {
    labels.observe(event);
    if (event.type !== "tool_approval_request") return;
    const agentPath = agentPathOf(event);
    const where = agentPath.length === 0 ? "" : ` (sub-agent ${labels.trail(agentPath)})`;
    const call = {
      toolCallId: event.toolCallId,
      ...(agentPath.length === 0 ? {} : { agentPath: [...agentPath] }),
    };
    queue = queue.then(async () => {
      const args = abbreviate(JSON.stringify(event.args), 120);
      const answer = await ask(`allow ${event.toolName} ${args}${where}? [y/N] `);
      const command =
        answer !== undefined && /^y(es)?$/i.test(answer.trim())
          ? ({ type: "APPROVE_TOOL", ...call } as const)
          : ({
              type: "DENY_TOOL",
              ...call,
              reason:
                answer === undefined
                  ? unansweredApprovalReason(event.toolName)
                  : "The user denied this tool call",
            } as const);
      sendCommand(surface, command, report);
    });
  });
}

/**
 * An {@link AskLine} over a stream nobody else reads (one-shot and `--json` runs): the question goes
 * to `output`, the answer is the next line of `input`. `close()` stops reading.
 */
export function lineAsker(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): { ask: AskLine; close(): void } {
  let reader: ReturnType<typeof createInterface> | undefined;
  let lines: AsyncIterator<string> | undefined;
  return {
    ask: async (question) => {
      output.write(question);
      reader ??= createInterface({ input, terminal: false });
      lines ??= reader[Symbol.asyncIterator]();
      const next = await lines.next();
      return next.done ? undefined : next.value;
    },
    close: () => reader?.close(),
  };
}
