import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CliSandbox, createCliSandbox, runTs } from "../support/cli-process.js";
import { OtlpReceiver, type OtlpSpan } from "../support/otlp-receiver.js";

// The CLI runs as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

let sandbox: CliSandbox;
let receiver: OtlpReceiver;

beforeEach(() => {
  sandbox = createCliSandbox();
  receiver = new OtlpReceiver();
});
afterEach(async () => {
  sandbox.cleanup();
  await receiver.close();
});

/** Span names as an indented tree (children in the order of `spans`). */
function tree(spans: readonly OtlpSpan[], parent?: string, depth = 0): string[] {
  return spans
    .filter((span) => span.parentSpanId === parent)
    .flatMap((span) => [`${"  ".repeat(depth)}${span.name}`, ...tree(spans, span.spanId, depth + 1)]);
}

describe("agentchart --otel", () => {
  it("exports the run's spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const endpoint = await receiver.start();
    const result = await runTs("src/cli/main.ts", ["--otel", "what is in here?", "--no-session"], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "cli-test" },
    });
    expect(result.stderr).not.toContain("could not export");
    expect(result.code).toBe(0);
    // The CLI flushes before it exits: every span has arrived by now.
    await receiver.spansArrived(4);

    expect(receiver.contentTypes).toEqual(new Set(["application/json"]));
    expect(receiver.serviceNames).toEqual(new Set(["cli-test"]));
    const spans = [...receiver.spans].sort((a, b) => Number(a.startTime - b.startTime));
    expect(tree(spans)).toEqual([
      "invoke_agent agentchart",
      "  chat offline",
      "  execute_tool ls",
      "  chat offline",
    ]);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const run = spans.find((span) => span.name === "invoke_agent agentchart")!;
    expect(run.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    expect(typeof run.attributes["gen_ai.conversation.id"]).toBe("string");
    expect(run.eventNames).toContain("agentchart.state");
    const tool = spans.find((span) => span.name === "execute_tool ls")!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.name": "ls",
      "gen_ai.operation.name": "execute_tool",
    });
    const chat = spans.find((span) => span.name === "chat offline")!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.provider.name": "agentchart",
      "gen_ai.request.model": "offline",
    });
  });

  it("reports an unreachable receiver without failing the run", async () => {
    const endpoint = await receiver.start();
    await receiver.close();
    receiver = new OtlpReceiver();
    const result = await runTs("src/cli/main.ts", ["--otel", "hi", "--no-session"], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`could not export traces to ${endpoint}/v1/traces`);
  });
});
