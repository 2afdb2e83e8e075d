/** An error the CLI reports as `agentchart: <message>` and exits with `exitCode` (no stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}
