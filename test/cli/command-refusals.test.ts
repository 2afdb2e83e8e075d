/**
 * The CLI's answers are commands sent to a real AgentHarness; one the harness refuses (a call that
 * no longer waits: answered already, or its run aborted) is reported as one line naming the command
 * and the call, and changes nothing — never a silent no-op, never a thrown error.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CliHarness } from "../../src/cli/cli-harness.js";
import { sendCommand } from "../../src/cli/send-command.js";
import { askForToolApprovals } from "../../src/cli/tool-approvals.js";
import type { Model } from "../../src/index.js";
import { scriptedModel } from "../../src/testing.js";
import { defineTool } from "../../src/tools/define-tool.js";

const model: Model = {
  id: "m1",
  api: "scripted",
  provider: "local",
  contextWindow: 100_000,
  maxTokens: 1_000,
};

/** A harness whose model calls `refund` (asking approval) once, then answers. */
async function refundHarness() {
  const refunds: string[] = [];
  const refund = defineTool({
    name: "refund",
    description: "Refunds an order",
    requiresApproval: true,
    parameters: z.object({ order: z.string() }),
    execute: async ({ order }) => {
      refunds.push(order);
      return { content: [{ type: "text", text: `refunded ${order}` }] };
    },
  });
  const cli = await CliHarness.open({
    model,
    streamFn: scriptedModel([
      { toolCalls: [{ id: "r1", name: "refund", arguments: { order: "A-17" } }] },
      { text: "Done." },
    ]),
    tools: [refund],
  });
  return { cli, harness: cli.current, refunds };
}

describe("a command the harness refuses, in the CLI", () => {
  it("an approval answered twice: the second answer is one line naming DENY_TOOL and the call", async () => {
    const { cli, harness, refunds } = await refundHarness();
    const lines: string[] = [];
    // Approved elsewhere (another client) while the question was open; the person then says no.
    const approvals = askForToolApprovals(
      harness,
      async () => {
        harness.send({ type: "APPROVE_TOOL", toolCallId: "r1" });
        return "n";
      },
      (line) => lines.push(line),
    );
    const { reply } = await harness.prompt("refund A-17");
    approvals.unsubscribe();
    expect(reply.stopReason).toBe("stop");
    expect(refunds).toEqual(["A-17"]);
    expect(lines).toEqual(['not applied (not_waiting): DENY_TOOL: no tool call "r1" is awaiting approval']);
    await cli.close();
  });

  it("an approval given after the run was aborted: one line, and the tool never runs", async () => {
    const { cli, harness, refunds } = await refundHarness();
    const lines: string[] = [];
    const approvals = askForToolApprovals(
      harness,
      async () => {
        harness.send({ type: "ABORT" });
        await harness.waitForIdle();
        return "y";
      },
      (line) => lines.push(line),
    );
    await harness.prompt("refund A-17");
    await harness.waitForIdle();
    approvals.unsubscribe();
    expect(harness.state.awaitingApproval).toEqual([]);
    expect(refunds).toEqual([]);
    expect(lines).toEqual([
      'not applied (not_waiting): APPROVE_TOOL: no tool call "r1" is awaiting approval',
    ]);
    await cli.close();
  });

  it("a budget answer when no run waits, and a command to a sub-agent that does not run", async () => {
    const { cli, harness } = await refundHarness();
    const lines: string[] = [];
    expect(sendCommand(harness, { type: "CONTINUE_ONCE" }, (line) => lines.push(line))).toBe(false);
    expect(
      sendCommand(harness, { type: "APPROVE_TOOL", toolCallId: "x1", agentPath: ["s1"] }, (line) =>
        lines.push(line),
      ),
    ).toBe(false);
    expect(lines).toEqual([
      "not applied (not_waiting): CONTINUE_ONCE: the agent is not waiting at a budget limit",
      "not applied (no_agent): APPROVE_TOOL: no sub-agent runs at s1",
    ]);
    await cli.close();
  });
});
