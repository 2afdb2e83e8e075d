import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { repoRoot, runTs } from "../support/cli-process.js";
import { chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";
import { recordedReply } from "../support/provider-streams.js";

// Each example runs as its own process, the way a reader runs it (`npx tsx examples/<name>.ts`).
vi.setConfig({ testTimeout: 90_000 });

async function runExample(name: string): Promise<string> {
  const env = { ...process.env };
  for (const key of [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "AGENTCHART_PROVIDER",
  ]) {
    delete env[key];
  }
  const result = await runTs(`examples/${name}.ts`, [], { cwd: repoRoot, env });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result.stdout;
}

describe("examples", () => {
  it("demo and examples/ai-sdk-anthropic.ts run on Claude when ANTHROPIC_API_KEY is set", async () => {
    const server = await OpenAITestServer.start({ anyPath: true });
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ANTHROPIC_API_KEY: "test-key-not-real",
        ANTHROPIC_BASE_URL: server.baseURL,
      };
      for (const key of [
        "OPENAI_API_KEY",
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "AGENTCHART_PROVIDER",
        "AGENTCHART_MODEL",
      ]) {
        delete env[key];
      }
      server.enqueue(recordedReply("anthropic-text.sse", "whole"));
      const demo = await runTs("examples/demo.ts", [], { cwd: repoRoot, env });
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain("model claude-sonnet-4-5 via anthropic (AI SDK)");
      expect(demo.stdout).toContain("Hello! I'm doing well");

      server.enqueue(
        recordedReply("anthropic-tool-use.sse", "whole"),
        recordedReply("anthropic-text.sse", "whole"),
      );
      const example = await runTs("examples/ai-sdk-anthropic.ts", [], { cwd: repoRoot, env });
      expect(example.stderr).toBe("");
      expect(example.stdout).toContain('⚙ get_weather({"location":"Paris"})');
      expect(example.stdout).toContain("stop: 12 in, 0 cache read, 0 cache write, 30 out");
      const second = server.requests.at(-1)!.body as {
        messages: { role: string; content: Record<string, unknown>[] }[];
      };
      expect(second.messages.at(-1)!.content[0]).toMatchObject({
        type: "tool_result",
        tool_use_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      });
    } finally {
      await server.close();
    }
  });

  it("the Google and OpenAI AI SDK examples say which key to set when it is missing", async () => {
    expect(await runExample("ai-sdk-google")).toBe("Set GOOGLE_GENERATIVE_AI_API_KEY to run this example.\n");
    expect(await runExample("ai-sdk-openai")).toBe("Set OPENAI_API_KEY to run this example.\n");
  });

  it("demo (npm run demo) talks to an OpenAI-compatible server when OPENAI_API_KEY is set", async () => {
    const server = await OpenAITestServer.start();
    try {
      server.enqueue(
        streamReply([
          chunk({ role: "assistant", content: "Reading it." }),
          chunk({
            tool_calls: [
              { index: 0, id: "call_r", type: "function", function: { name: "read", arguments: "" } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"package.json"}' } }] }),
          chunk({}, "tool_calls"),
          usageChunk(300, 12),
        ]),
        streamReply([
          chunk({ role: "assistant", content: "It is agentchart." }),
          chunk({}, "stop"),
          usageChunk(900, 6),
        ]),
      );
      const env = {
        ...process.env,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: server.baseURL,
        AGENTCHART_MODEL: "served",
      };
      const result = await runTs("examples/demo.ts", [], { cwd: repoRoot, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`model served via ${server.baseURL}`);
      expect(result.stdout).toContain('⚙ read({"path":"package.json"})');
      expect(result.stdout).toContain("It is agentchart.");
      expect(server.requests.map((request) => request.body.model)).toEqual(["served", "served"]);
      expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
      const toolMessage = server.requests[1]?.body.messages.find(
        (message: { role: string }) => message.role === "tool",
      );
      expect(toolMessage.content).toContain('"name": "agentchart"');
    } finally {
      await server.close();
    }
  });

  it("demo (npm run demo): explores this repository offline, printing tools and state transitions", async () => {
    const output = await runExample("demo");
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    expect(output).toContain("offline scripted model");
    expect(output).toContain("⚙ ls(");
    expect(output).toContain("⚙ read(");
    for (const state of ["preparingTurn", "streaming", "executingTools", "idle"]) {
      expect(output).toMatch(new RegExp(`\\[agent\\] → (running\\.)?${state}`));
    }
    expect(output).toMatch(/\[tool call_\d+\] → settled/);
    // The answer is built from what the tools really returned.
    expect(output).toContain(`This is **${pkg.name}@${pkg.version}**`);
    expect(output).toMatch(/5 messages, stop reason stop/);
  });

  it("quick-start: the README's code adds 2 + 3 with a tool and ends with 4 messages", async () => {
    expect(await runExample("quick-start")).toBe("2 + 3 = 5\n4\n");
  });

  it("quick-start.ts is the README quick start (imports aside)", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const block = /## Quick start\n\n(?:<!--[^\n]*-->\n)?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const example = readFileSync(join(repoRoot, "examples", "quick-start.ts"), "utf8");
    const body = (text: string) =>
      text
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith("import ") && !line.startsWith("//"))
        .join("\n");
    expect(block).not.toBe("");
    expect(body(example)).toBe(body(block));
  });

  it("minimal-loop: the agentLoop Observable emits the run's events in order and completes", async () => {
    const lines = (await runExample("minimal-loop")).trim().split("\n");
    expect(lines[0]).toBe("agent_start");
    expect(lines).toContain('tool_execution_start clock({"city":"Lisbon"})');
    expect(lines.at(-2)).toBe("agent_end");
    expect(lines.at(-1)).toBe("answer: The clock tool says: It is 09:30 in Lisbon.");
  });

  it("agent-tools-steering: a message steered during a tool run reaches the model in the same run", async () => {
    const output = await runExample("agent-tools-steering");
    expect(output).toContain("tool search ended (queued steering: 1)");
    expect(output).toContain('user message delivered: "only the summary, please"');
    expect(output).toContain("transcript: user → assistant → toolResult → user → assistant");
    expect(output).toContain('You also said: "only the summary, please"');
  });

  it("sessions: persists, reopens, branches with moveTo and forks", async () => {
    const output = await runExample("sessions");
    expect(output).toMatch(/created [\w-]+: 5 lines/);
    expect(output).toContain("  assistant: About 2.1 million.");
    expect(output).toContain(
      "current branch: user: What is the capital of France? | assistant: Paris. | user: And of Italy? | assistant: Rome.",
    );
    expect(output).toContain(
      "      user: How many people live there?\n        assistant: About 2.1 million.\n      user: And of Italy?",
    );
    expect(output).toContain(
      "fork has a new id, context: user: What is the capital of France? | assistant: Paris. | user: How many people live there? | assistant: About 2.1 million.",
    );
    expect(output).toContain("sessions stored: 2");
  });

  it("harness-sessions-skills: template, skill, blocking hook, compaction, same context after reopening", async () => {
    const output = await runExample("harness-sessions-skills");
    expect(output).toContain("skills: cleanup; templates: review");
    expect(output).toContain('template → app.ts says: console.log("hello");');
    expect(output).toContain('hook: blocked bash "rm -rf build"');
    expect(output).toContain(
      "skill → Not done: recursive deletes are not allowed here (build folder still there: true)",
    );
    expect(output).toMatch(/compacted: \d+ tokens before/);
    expect(output).toContain("summary: ## Goal | - review app.ts | - clean the build folder");
    expect(output).toContain(
      'after compaction → I see 3 messages, the first: "The conversation history before this point was compacted',
    );
    expect(output).toMatch(
      /reopened \w{8}: same context: true \(compactionSummary → assistant → user → assistant\)/,
    );
  });

  it("tracing: prints the run's span tree, the tool's own span nested under execute_tool", async () => {
    expect((await runExample("tracing")).trim().split("\n")).toEqual([
      "invoke_agent dictionary-agent states running.preparingTurn.deciding → running.preparingTurn.injecting → running.streaming.released → running.executingTools.working → running.preparingTurn.deciding → running.preparingTurn.injecting → running.streaming.released → running.preparingTurn.deciding → idle",
      "  chat scripted-1 tokens 40/12",
      "  execute_tool lookup states preparing.ready → executing → settled",
      "    query span",
      "  chat scripted-1 tokens 60/9",
    ]);
  });

  it("approval: approved calls run, a denied call gets an error result with the reason", async () => {
    const output = await runExample("approval");
    expect(output).not.toContain("approval requested for delete_file(tmp/cache.bin)");
    expect(output).toContain('tool-call actor call_notes is in state "awaitingApproval"');
    expect(output).toContain("call_tmp: done (deleted tmp/cache.bin)");
    expect(output).toContain("call_notes: done (deleted notes.md)");
    expect(output).toContain("call_env: refused (Tool call denied: secrets stay where they are)");
  });

  it("typed-output: a reply is repaired until it validates, and an output guardrail replaces a tripped reply", async () => {
    const output = await runExample("typed-output");
    expect(output).toContain("output: Lisbon 21.5 °C (stop)");
    expect(output).toContain("repair asked: The output did not match its schema: celsius:");
    expect(output).toContain('partial: {"city":"Lisbon","celsius":21.5}');
    expect(output).toContain("guardrail no-insults tripped: an insult");
    expect(output).toContain('stopReason: guardrail; kept: [{"type":"text","text":"[removed]"}]');
    expect(output).not.toContain("idiot");
  });

  it("persist-restore: an agent persisted while it waits for approval is restored, approved and finishes", async () => {
    const output = await runExample("persist-restore");
    expect(output).toMatch(
      /persisted \d+ bytes while \{"running":\{"executingTools":"awaitingHuman"\}\} waits for approval/,
    );
    expect(output).toContain("resumed from executingTools");
    expect(output).toContain("paid 120 for INV-7 (key accounts-bot:call_pay)");
    expect(output).toContain("answer: INV-7 is paid.");
  });

  it("subagents: three parallel children, a grandchild's approval persisted, restored and approved by path", async () => {
    const output = await runExample("subagents");
    for (const id of ["research_1", "research_2", "research_3"])
      expect(output).toContain(`  [${id}] agent_end (stop)`);
    expect(output).toContain("    [support_1 › billing_1] asks approval for refund");
    expect(output).toContain("restored: refund waits at support_1 › billing_1");
    expect(output).toContain("refunds run: 1 — A-17 (key root/support_1/billing_1:refund_1)");
    expect(output).toContain("support's result: The customer got the refund.");
    // support 30+5+50+7 and billing 40+8+60+6 tokens
    expect(output).toContain("support's tokens, its descendants included: 206");
    expect(output).toContain(
      'last reply: [{"type":"text","text":"Researched three topics and refunded A-17."}]',
    );
  });

  it("mcp-filesystem: the official filesystem server's tools list and read a folder through the harness", async () => {
    const output = await runExample("mcp-filesystem");
    expect(output).toContain("fs: connected");
    expect(output).toContain("fs__list_directory → [FILE] todo.txt");
    expect(output).toContain("fs__read_text_file → write the docs | ship it");
    expect(output).toContain("You have two things to do.");
  });

  it("mcp-filesystem: a server that fails to start is reported with its reason, and the example exits 1", async () => {
    const missing = join(repoRoot, "test", "fixtures", "no-such-mcp-server.js");
    const env = { ...process.env };
    delete env.OPENAI_API_KEY;
    const result = await runTs("examples/mcp-filesystem.ts", [missing], { cwd: repoRoot, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("fs: failed, 0 tools");
    // The reason, with the server's own stderr: node cannot find the script.
    expect(result.stderr).toContain('fs: MCP server "fs" failed to start');
    expect(result.stderr).toContain(`Cannot find module '${missing}'`);
    expect(result.stdout).not.toContain("fs__list_directory →");
  });

  it("embedded-inspect: the app, the loop and the tool-call child show up in @statelyai/inspect", async () => {
    const output = await runExample("embedded-inspect");
    expect(output).toContain("answer: Porto will be sunny: pack sunglasses.");
    expect(output).toContain("event PROMPT: seen");
    expect(output).toContain("event xstate.done.actor.call_weather: seen");
    expect(output).toContain('tool-call child "call_weather": seen');
    expect(Number(/actors seen: (\d+)/.exec(output)?.[1])).toBeGreaterThanOrEqual(3);
  });

  it("model-based-test: every path the kit generates for the payments agent passes", async () => {
    const output = await runExample("model-based-test");
    const summary = /(\d+)\/(\d+) paths passed\n/.exec(output);
    expect(summary?.[1]).toBe(summary?.[2]);
    expect(Number(summary?.[2])).toBeGreaterThanOrEqual(100);
    expect(output).not.toContain("✗");
    // Approvals either way, a guardrail trip, a model error, aborts in every state kind.
    for (const path of [
      "PROMPT → ABORT while streaming",
      "PROMPT → reply 1 (call_1, call_2) → guardrail trips",
      "PROMPT → reply 1 (call_1, call_2) → guardrail passes → approve call_2 → call_1 done → call_2 done → reply 2 (text) → guardrail passes",
      "PROMPT → reply 1 (call_1, call_2) → guardrail passes → deny call_2 → call_1 done → model error",
      "PROMPT → reply 1 (call_1, call_2) → guardrail passes → approve call_2 → call_1 done → ABORT while executing tools",
    ])
      expect(output).toContain(`✓ ${path}\n`);
    expect(Number(/charges made along the way: (\d+)/.exec(output)?.[1])).toBeGreaterThan(0);
    expect(output).toMatch(/^agent machine: states \d+\/\d+, transitions \d+\/\d+/m);
  });
});
