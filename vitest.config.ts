import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-PostgreSQL suite needs a server: `npm run test:pg` (see vitest.pg.config.ts).
    exclude: [...configDefaults.exclude, "test/postgres-server/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
