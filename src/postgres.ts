// Node-only: sessions in PostgreSQL (`agentchart/postgres`), on the `pg` client.

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
