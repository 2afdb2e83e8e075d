import pg from "pg";

/** The variable naming the server the suite runs on. */
export const DATABASE_URL_VARIABLE = "AGENTCHART_TEST_DATABASE_URL";

/**
 * Refuses to run the suite without a reachable server, saying how to get one (a suite that silently
 * ran nothing would look green).
 */
export default async function requireServer(): Promise<void> {
  const url = process.env[DATABASE_URL_VARIABLE];
  if (!url) {
    throw new Error(
      `${DATABASE_URL_VARIABLE} is not set, so the real-PostgreSQL tests cannot run.\n` +
        "Start a throwaway PostgreSQL 15 cluster for them (Debian's postgresql-15 package, as root or any user):\n" +
        "  bash .ci/with-postgres.sh npm run test:pg\n" +
        `or point ${DATABASE_URL_VARIABLE} at a database you may create schemas in, e.g.\n` +
        `  ${DATABASE_URL_VARIABLE}=postgres://postgres@127.0.0.1:5432/postgres npm run test:pg`,
    );
  }
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(`Cannot reach the server at ${DATABASE_URL_VARIABLE} (${(error as Error).message}).`);
  } finally {
    await client.end().catch(() => {});
  }
}
