/** What a query returns: the rows and, for writes, how many rows changed. */
export interface PostgresQueryResult<TRow> {
  rows: TRow[];
  rowCount: number | null;
}

/** Something that runs one SQL statement with `$1…` parameters (a `pg` client or pool). */
export interface PostgresQueryable {
  query<TRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PostgresQueryResult<TRow>>;
}

/** A connection checked out of a pool; `release()` hands it back. */
export interface PostgresPoolClient extends PostgresQueryable {
  release(error?: Error | boolean): void;
}

/**
 * The part of a `pg` `Pool` the Postgres session repo uses: a `pg.Pool` fits as is, and so does any
 * adapter that runs statements on one PostgreSQL-compatible database and hands out connections for
 * transactions.
 */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
}

/**
 * Runs `work` in one transaction on a connection of `pool`: committed when it resolves, rolled back
 * (and the error re-thrown) when it throws.
 */
export async function inTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresQueryable) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      broken = rollbackError as Error; // the connection is unusable: the pool must drop it
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
