// @ts-check
/**
 * Mutation testing of the core rooms (StrykerJS with the vitest runner): `npm run test:mutation`, or
 * one room with `npm run test:mutation -- --mutate 'src/loop/**'`. Per-test coverage runs only the
 * tests that reach a mutant; one runner at a time, because the machines it runs on have two cores.
 * Not part of `npm test` or CI. Scores per room and the surviving mutants: docs/testing.md.
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  coverageAnalysis: "perTest",
  // Mutants in code run at import time would need the whole suite each; they are skipped.
  ignoreStatic: true,
  concurrency: 1,
  timeoutMS: 10_000,
  mutate: [
    "src/machines/**/*.ts",
    "src/loop/**/*.ts",
    "src/actors/**/*.ts",
    "src/agent/**/*.ts",
    "src/tools/**/*.ts",
    "src/storage/**/*.ts",
    "src/providers/**/*.ts",
  ],
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
};
