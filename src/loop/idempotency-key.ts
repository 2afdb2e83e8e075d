/**
 * The idempotency key of a tool call of an agent: `agentId:toolCallId` (a harness's agent id is its
 * session's id), the same across persist and restore.
 *
 * Contract: pure; never throws.
 *
 * ```ts
 * idempotencyKeyOf("session-1", "call_1"); // "session-1:call_1"
 * ```
 */
export function idempotencyKeyOf(agentId: string, toolCallId: string): string {
  return `${agentId}:${toolCallId}`;
}
