import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { GUARDRAIL_ENTRY, OUTPUT_ENTRY } from "../../src/harness/session-recorder.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { createHarness, sessionMessages } from "../support/harness-support.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const Order = z.object({ id: z.string(), items: z.number().int() });

describe("the harness with typed output and guardrails", () => {
  it("passes output through, resolves with the typed value and the reply, and records the value in the session", async () => {
    const { harness, session, model } = await createHarness([
      { text: '{"id":"A-1"}' },
      { text: '{"id":"A-1","items":3}' },
    ]);
    const result = await harness.prompt("Read the order", { output: Order });
    expectTypeOf(result.output).toEqualTypeOf<{ id: string; items: number } | undefined>();
    expect(result).toMatchObject({ output: { id: "A-1", items: 3 }, stopReason: "stop" });
    expect(result.reply).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(model.calls[0]!.context.output).toMatchObject({ name: "final_answer" });
    const custom = session.getEntries().filter((entry) => entry.type === "custom");
    expect(custom).toMatchObject([{ customType: OUTPUT_ENTRY, data: { output: { id: "A-1", items: 3 } } }]);
    // The repair message is in the session like any other message; the custom entry is not sent to the model.
    expect(sessionMessages(session).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("keeps the schema across the harness's retry of a transient provider error", async () => {
    const { harness, model } = await createHarness([
      { error: "429 rate limited" },
      { text: '{"id":"B","items":1}' },
    ]);
    const result = await harness.prompt("Again", { output: Order });
    expect(result.output).toEqual({ id: "B", items: 1 });
    expect(model.calls[1]!.context.output).toMatchObject({ name: "final_answer" });
  });

  it("a prompt without output resolves with the reply as before", async () => {
    const { harness } = await createHarness([{ text: "plain" }]);
    const { reply } = await harness.prompt("hi");
    expectTypeOf(reply.role).toEqualTypeOf<"assistant">();
    expect(reply.content).toEqual([{ type: "text", text: "plain" }]);
  });

  it("passes guardrails through: a tripped reply is never in the session file, the trip is", async () => {
    const root = mkdtempSync(join(tmpdir(), "agentchart-guardrail-"));
    roots.push(root);
    const repo = new JsonlSessionRepo({ root });
    const session = await repo.create({ cwd: "/work" });
    const { harness } = await createHarness([{ text: "the code is 1234" }], {
      session,
      guardrails: { output: [{ name: "codes", check: ({ text }) => ({ tripwire: /\d{4}/.test(text) }) }] },
    });
    const { reply } = await harness.prompt("What is the code?");
    expect(reply.content).toEqual([
      { type: "text", text: '[This reply was withheld by the "codes" guardrail.]' },
    ]);
    await session.close();
    const reopened = await repo.open(session.id);
    expect(JSON.stringify(reopened.getEntries())).not.toContain("1234");
    expect(reopened.getEntries().filter((entry) => entry.type === "custom")).toMatchObject([
      { customType: GUARDRAIL_ENTRY, data: { guardrail: "codes", kind: "output" } },
    ]);
    await reopened.close();
  });
});
