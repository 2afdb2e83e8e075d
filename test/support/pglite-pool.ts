import { PGlite } from "@electric-sql/pglite";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "../../src/postgres.js";

/**
 * A `pg`-shaped pool over one in-memory PGlite database. PGlite has a single connection, so a
 * checked-out client holds it exclusively until `release()`: pool queries made meanwhile wait, the
 * way they would wait for a connection of a one-connection `pg` pool.
 */
export class PglitePool implements PostgresPool {
  readonly db: PGlite;
  private turn: Promise<void> = Promise.resolve();

  constructor(db = new PGlite()) {
    this.db = db;
  }

  async query<TRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<PostgresQueryResult<TRow>> {
    const client = await this.connect();
    try {
      return await client.query<TRow>(text, values);
    } finally {
      client.release();
    }
  }

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const previous = this.turn;
    this.turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    let released = false;
    return {
      query: async <TRow>(text: string, values?: unknown[]) => {
        const result = await this.db.query<TRow>(text, values);
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      },
      release: () => {
        if (released) return;
        released = true;
        release();
      },
    };
  }

  /** Closes the database. */
  close(): Promise<void> {
    return this.db.close();
  }
}
