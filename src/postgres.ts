// Node-only: sessions in PostgreSQL (`agentchart/postgres`), on the `pg` client.

export type { AgentClient, ClientOptions, SessionEntryUpdate, Submitted } from "./postgres/client.js";
export { createClient } from "./postgres/client.js";
export type { ClientRun } from "./postgres/client-runs.js";
export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresQueryResult,
} from "./postgres/postgres-pool.js";
export { PostgresSession } from "./postgres/postgres-session.js";
export type {
  ImportedSession,
  ListPageOptions,
  PostgresConnection,
  PostgresSessionRepoOptions,
  SessionPage,
} from "./postgres/postgres-session-repo.js";
export { PostgresSessionRepo } from "./postgres/postgres-session-repo.js";
export type { ParkedRun, RunState } from "./postgres/run-store.js";
export { COMMAND_ENTRY_TYPE, COMMAND_REFUSED_ENTRY_TYPE } from "./postgres/session-run.js";
export type { SessionUpdate } from "./postgres/session-watch.js";
export type {
  AgentWorker,
  WorkerHarnessOptions,
  WorkerJobReport,
  WorkerOptions,
} from "./postgres/worker.js";
export { createWorker } from "./postgres/worker.js";
export type { ReplyDelta } from "./storage/reply-delta.js";
