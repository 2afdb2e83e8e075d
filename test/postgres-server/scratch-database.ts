import pg from "pg";
import { DATABASE_URL_VARIABLE } from "./require-server.js";

/**
 * A database of its own on the test server, for a test that starts processes against it (a worker, the
 * CLI): `create()` makes it and returns its URL, `drop()` removes it (also when it was never made).
 */
export function scratchDatabase(name: string): { create(): Promise<string>; drop(): Promise<void> } {
  const serverUrl = process.env[DATABASE_URL_VARIABLE]!;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    async create() {
      await admin(`CREATE DATABASE ${name}`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
