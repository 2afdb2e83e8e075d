import { AgUiError } from "./ag-ui-error.js";
import type { RunAgentInput } from "./ag-ui-events.js";
import { checkId, checkTextLength, type ResolvedAgUiLimits } from "./request-limits.js";

/**
 * Checks the fields of a `RunAgentInput` the endpoint reads and the request limits: ids, messages
 * (each with an id and a role, a tool message with its `toolCallId`, at most `maxMessages`, each text
 * at most `maxTextLength`), `resume` entries (each an `interruptId` and a `status` of `resolved` or
 * `cancelled`). A sub-agent's messages (with `subagentRunId`, as a client keeps the subagent events it
 * was sent) are the server's own output, never a prompt nor an answer of the client: left out.
 *
 * Contract: synchronous, pure; throws `AgUiError` `invalid_request` naming the first bad field, or
 * `limit_exceeded` naming the limit passed.
 *
 * ```ts
 * declare const limits: Parameters<typeof parseRunInput>[1]; // the handler's limits, resolved
 * const input = parseRunInput(JSON.parse(await request.text()), limits);
 * ```
 */
export function parseRunInput(body: Record<string, unknown>, limits: ResolvedAgUiLimits): RunAgentInput {
  checkId(body.threadId, "RunAgentInput.threadId");
  checkId(body.runId, "RunAgentInput.runId");
  if (!Array.isArray(body.messages))
    throw new AgUiError("invalid_request", "RunAgentInput.messages must be an array");
  if (body.messages.length > limits.maxMessages)
    throw new AgUiError(
      "limit_exceeded",
      `RunAgentInput.messages has ${body.messages.length} messages, more than maxMessages (${limits.maxMessages})`,
    );
  for (const message of body.messages as unknown[]) {
    const { id, role, content } = (message ?? {}) as { id?: unknown; role?: unknown; content?: unknown };
    if (typeof id !== "string" || typeof role !== "string")
      throw new AgUiError(
        "invalid_request",
        "Every message of RunAgentInput.messages needs an id and a role",
      );
    const { toolCallId } = message as { toolCallId?: unknown };
    if (role === "tool" && (typeof toolCallId !== "string" || toolCallId === ""))
      throw new AgUiError("invalid_request", `Tool message ${id} needs a toolCallId (the call it answers)`);
    checkTextLength(content, `Message ${id}`, limits);
  }
  if (body.resume !== undefined) {
    if (!Array.isArray(body.resume))
      throw new AgUiError("invalid_request", "RunAgentInput.resume must be an array");
    body.resume.forEach((entry: unknown, index) => {
      const { interruptId, status } = (entry ?? {}) as { interruptId?: unknown; status?: unknown };
      if (
        typeof interruptId !== "string" ||
        interruptId === "" ||
        (status !== "resolved" && status !== "cancelled")
      )
        throw new AgUiError(
          "invalid_request",
          `RunAgentInput.resume[${index}] needs an interruptId (a non-empty string) and a status ("resolved" or "cancelled")`,
        );
    });
  }
  const messages = (body.messages as { subagentRunId?: unknown }[]).filter(
    (message) => message.subagentRunId === undefined || message.subagentRunId === null,
  );
  return { ...body, messages } as unknown as RunAgentInput;
}
