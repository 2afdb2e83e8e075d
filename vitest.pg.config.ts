import { defineConfig } from "vitest/config";

/**
 * The suite that runs on a real PostgreSQL server: `npm run test:pg` with AGENTCHART_TEST_DATABASE_URL
 * set, or `bash .ci/with-postgres.sh npm run test:pg` to start a throwaway server for it (CI does).
 */
export default defineConfig({
  test: {
    include: ["test/postgres-server/**/*.test.ts"],
    globalSetup: ["test/postgres-server/require-server.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
