import { configDefaults, defineConfig } from "vitest/config";

/**
 * Suites that spawn processes, a browser or npm, or build the package: they hold most of the suite's
 * time, so `npm test` (the `fast` project) leaves them to `npm run test:all` (both projects; CI runs it).
 */
const SLOW = [
  "test/cli/cli.test.ts", // the CLI as a child process, one REPL per test
  "test/cli/cli-mcp.test.ts", // the CLI with MCP servers as children
  "test/cli/cli-otel.test.ts", // the CLI exporting to an OTLP receiver
  "test/cli/cli-approvals.test.ts", // the CLI in a pseudo-terminal, answering approval prompts
  "test/cli/cli-invalid-session.test.ts", // the CLI on malformed session files
  "test/cli/cli-provider-process.test.ts", // the CLI with --provider anthropic, as a child process
  "test/cli/subagent-cli.test.ts", // the CLI running sub-agents from agent files, in a pseudo-terminal too
  "test/storage/jsonl-lock.test.ts", // lock races: rounds of 8 processes taking over a stale lock
  "test/examples/**", // every example as its own process
  "test/harness/resume-after-kill.test.ts", // crash trials: SIGKILLed harness processes
  "test/storage/session-crash.test.ts", // crash trials: SIGKILLed session writers
  "test/replay/session-recording-crash.test.ts", // a SIGKILLed harness recording into its session
  "test/inspector/inspector.e2e.test.ts", // headless Chromium
  "test/inspector/recording-steps.e2e.test.ts", // headless Chromium: a recording stepped through
  "test/mcp/reference-servers.test.ts", // the official MCP reference servers
  "test/mcp/mcp-stdio.test.ts", // an SDK-written MCP server as a child process per test
  "test/packaging/**", // npm pack + npm install
  "test/docs/doc-snippets.test.ts", // builds the package, type-checks and runs the doc snippets
];

/** The `fast` project's files: `npm test`, and what mutation testing runs (vitest.mutation.config.ts). */
export const FAST_TESTS = {
  include: ["test/**/*.test.ts"],
  // The real-PostgreSQL suite needs a server: `npm run test:pg` (see vitest.pg.config.ts).
  exclude: [...configDefaults.exclude, "test/postgres-server/**", ...SLOW],
};

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: "fast", ...FAST_TESTS } },
      { extends: true, test: { name: "slow", include: SLOW } },
    ],
  },
});
