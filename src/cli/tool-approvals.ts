import { createInterface } from "node:readline";
import type { Subscription } from "rxjs";
import { AgentPathLabels, agentPathOf } from "./agent-path-labels.js";
import { unansweredApprovalReason } from "./builtin-tool-approvals.js";
import { abbreviate } from "./event-renderer.js";
import type { AgentRunner } from "./runner.js";

/** Asks one question and resolves with the answer line, or `undefined` when input has ended. */
export type AskLine = (question: string) => Promise<string | undefined>;

/**
 * Answers the runner's `tool_approval_request`s by asking, one at a time: `y`/`yes` approves, any
 * other answer denies, and no answer (input ended) denies with a hint about `--yes` and `trust`. An answer for a
 * call that stopped waiting meanwhile (the run was aborted) is dropped. A sub-agent's request is asked
 * the same way, naming the sub-agents it comes from (`allow bash {…} (sub-agent code-reviewer)?`), and
 * answered with its `agentPath`.
 */
export function askForToolApprovals(runner: AgentRunner, ask: AskLine): Subscription {
  let queue: Promise<void> = Promise.resolve();
  const labels = new AgentPathLabels();
  return runner.events$.subscribe((event) => {
    labels.observe(event);
    if (event.type !== "tool_approval_request") return;
    const agentPath = agentPathOf(event);
    const where = agentPath.length === 0 ? "" : ` (sub-agent ${labels.trail(agentPath)})`;
    const path = agentPath.length === 0 ? undefined : { agentPath };
    queue = queue.then(async () => {
      const args = abbreviate(JSON.stringify(event.args), 120);
      const answer = await ask(`allow ${event.toolName} ${args}${where}? [y/N] `);
      try {
        if (answer === undefined) {
          runner.denyToolCall(event.toolCallId, unansweredApprovalReason(event.toolName), path);
        } else if (/^y(es)?$/i.test(answer.trim())) runner.approveToolCall(event.toolCallId, path);
        else runner.denyToolCall(event.toolCallId, "The user denied this tool call", path);
      } catch {
        // The call no longer waits (aborted): nothing to answer.
      }
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
