/**
 * Why the testing kit refused a model or a path failed:
 * - `invalid_script`: the scripted model's replies name a tool the agent lacks, or are not replies;
 * - `unsupported_agent`: the agent uses what the kit cannot drive yet (sequential tool execution,
 *   sub-agent or handoff tools, between-turn callbacks);
 * - `path_bound_exceeded`: exploration found more paths (or longer ones) than its bound allows;
 * - `path_failed`: a step of a path did not lead where the model said, or an invariant broke.
 */
export type AgentTestErrorCode =
  | "invalid_script"
  | "unsupported_agent"
  | "path_bound_exceeded"
  | "path_failed";

/** Error thrown by `createAgentTestModel` and by a failing path. Match on `code`. */
export class AgentTestError extends Error {
  override readonly name = "AgentTestError";
  readonly code: AgentTestErrorCode;

  constructor(code: AgentTestErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
