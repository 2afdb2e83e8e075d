import type { PostgresSessionRepo } from "../postgres/postgres-session-repo.js";
import { parseSessionText } from "../storage/session-file.js";
import type { SessionsCommandContext } from "./sessions-command.js";
import type { TerminalStyle } from "./terminal-style.js";

/** The connection string with its password hidden, for messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "the database";
  }
}

/**
 * The `sessions` context on a Postgres session repo; `close()` ends the repo's own connections.
 * `where` names the database in messages.
 */
export function postgresSessionsContext(
  repo: PostgresSessionRepo,
  where: string,
  print: (line: string) => void,
  style: TerminalStyle,
): SessionsCommandContext {
  return {
    repo,
    where,
    read: async (info) => parseSessionText(await repo.exportJsonl(info.id)),
    exportJsonl: (info) => repo.exportJsonl(info.id),
    importJsonl: async (file) => (await repo.importJsonl(file)).id,
    print,
    style,
    close: () => repo.close(),
  };
}

/**
 * The `sessions` context for `--database-url`: `agentchart/postgres` is loaded only when asked for,
 * so that other commands do not load `pg`.
 */
export async function databaseSessionsContext(
  url: string,
  print: (line: string) => void,
  style: TerminalStyle,
): Promise<SessionsCommandContext> {
  const { PostgresSessionRepo } = await import("../postgres/postgres-session-repo.js");
  return postgresSessionsContext(
    new PostgresSessionRepo({ connectionString: url }),
    redactDatabaseUrl(url),
    print,
    style,
  );
}
