import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type CliSandbox, createCliSandbox, runTs } from "../support/cli-process.js";
import { OpenAITestServer } from "../support/openai-server.js";
import { recordedReply } from "../support/provider-streams.js";

// The CLI runs as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start({ anyPath: true });
});
afterAll(() => server.close());

describe("the agentchart command with --provider anthropic", () => {
  let sandbox: CliSandbox;
  beforeEach(() => {
    sandbox = createCliSandbox();
  });
  afterEach(() => sandbox.cleanup());

  it("answers a prompt through @ai-sdk/anthropic with ANTHROPIC_API_KEY set", async () => {
    server.enqueue(recordedReply("anthropic-text.sse", "whole"));
    const result = await runTs(
      "src/cli/main.ts",
      ["--provider", "anthropic", "--base-url", server.baseURL, "--no-session", "hello"],
      { cwd: sandbox.cwd, env: { ...sandbox.env, ANTHROPIC_API_KEY: "test-key-not-real" } },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("model claude-sonnet-4-5 via anthropic (AI SDK)");
    expect(result.stdout).toContain("Hello! I'm doing well, thank you for asking.");
    expect(server.requests.at(-1)!.headers["x-api-key"]).toBe("test-key-not-real");
  });

  it("exits 2 naming the variable when the key is not set", async () => {
    const env = { ...sandbox.env };
    delete env.ANTHROPIC_API_KEY;
    const result = await runTs("src/cli/main.ts", ["--provider", "anthropic", "--no-session", "hello"], {
      cwd: sandbox.cwd,
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No API key for anthropic: set ANTHROPIC_API_KEY");
  });
});
