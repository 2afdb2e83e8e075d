import { defineConfig } from "vitest/config";
import { FAST_TESTS } from "./vitest.config.js";

/**
 * What StrykerJS runs against each mutant (`npm run test:mutation`, see stryker.config.mjs): the fast
 * suite as one project, so no slow suite (child processes, a browser, npm) is ever started for a mutant.
 * Test files share one module graph (`isolate: false`): a mutant run imports the code once, not once
 * per test file, which is most of a run's time.
 */
export default defineConfig({
  test: { testTimeout: 20_000, hookTimeout: 20_000, isolate: false, ...FAST_TESTS },
});
