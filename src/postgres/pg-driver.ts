import type PgBoss from "pg-boss";
import { requireOptionalPeer } from "../types/optional-peer.js";

// `pg` and `pg-boss` are optional peers of agentchart: loaded when `agentchart/postgres` (or the CLI's
// `--database-url` and `worker`) is imported, which then fails with a message naming the package
// to install when one is missing.

/** The `pg` client library. */
export const pg = requireOptionalPeer<typeof import("pg")>("pg", "agentchart/postgres");

/** The pg-boss job queue class. */
export const PgBossQueue = requireOptionalPeer<typeof PgBoss>("pg-boss", "agentchart/postgres");
