import pg from "pg";
import { afterAll } from "vitest";
import { DATABASE_URL_VARIABLE } from "./require-server.js";

/**
 * A `pg` pool on the test server for one test file, ended after it, and fresh schema names that are
 * dropped after the file (each file uses its own prefix, so files may run in parallel).
 */
export function serverPool(prefix: string): { pool: pg.Pool; schema: () => string } {
  const pool = new pg.Pool({ connectionString: process.env[DATABASE_URL_VARIABLE], max: 8 });
  const schemas: string[] = [];
  const run = `${prefix}_${process.pid}`;
  afterAll(async () => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  return {
    pool,
    schema: () => {
      const schema = `${run}_${schemas.length + 1}`;
      schemas.push(schema);
      return schema;
    },
  };
}
