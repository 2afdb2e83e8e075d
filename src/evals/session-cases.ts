import type { Session } from "../storage/session.js";
import type { EvalCase } from "./eval-case.js";
import { evalRunOf } from "./eval-run.js";

/**
 * Makes eval cases from a stored session (JSONL or PostgreSQL): one case per user prompt of the
 * branch ending at `leafId` (default: the current leaf). A case's input is the conversation up to and
 * including that prompt; its expected trajectory and output are what the session's agent did next (its
 * tool calls, and the text of its last reply before the next prompt). So a conversation that went well
 * becomes a regression test for the next model or prompt.
 *
 * Contract: pure (reads the session in memory); case ids are `<session id>#<n>` (n from 1); metadata
 * holds `session` and `turn`; prompts with no reply after them get no expected output.
 *
 * @example
 * ```ts
 * const session = await repo.open("support-2026-05-01");
 * const cases = evalCasesFromSession(session);
 * await session.close();
 * ```
 */
export function evalCasesFromSession(
  session: Pick<Session, "id" | "buildContext">,
  leafId?: string,
): EvalCase[] {
  const { messages } = session.buildContext(leafId);
  const prompts = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
  return prompts.map((start, turn) => {
    const end = prompts[turn + 1] ?? messages.length;
    const replies = evalRunOf("", messages.slice(start + 1, end));
    return {
      id: `${session.id}#${turn + 1}`,
      input: messages.slice(0, start + 1),
      ...(replies.usage.modelCalls > 0 ? { expectedOutput: replies.text } : {}),
      expectedTrajectory: replies.toolCalls,
      metadata: { session: session.id, turn: turn + 1 },
    };
  });
}
