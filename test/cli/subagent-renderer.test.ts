import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { EventRenderer } from "../../src/cli/event-renderer.js";
import { terminalStyle } from "../../src/cli/terminal-style.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { testModel } from "../support/loop-harness.js";

const CLEAR_LINE = "\r\x1b[2K";

/** A renderer writing into an array (plain style), and the text it wrote. */
function capture(isTTY: boolean) {
  const writes: string[] = [];
  const renderer = new EventRenderer(
    { write: (text: string) => writes.push(text), isTTY },
    terminalStyle({}),
  );
  return { renderer, writes, text: () => writes.join("") };
}

const look = defineTool({
  name: "look",
  description: "Looks around",
  parameters: z.object({}),
  execute: async () => ({ content: [{ type: "text", text: "a tidy folder" }] }),
});

/** Runs `agent` on `prompt`, rendering every event it emits; resolves with the rendered text. */
async function renderRun(agent: Agent, prompt: string): Promise<string> {
  const { renderer, text } = capture(false);
  agent.subscribe((event) => renderer.render(event));
  await agent.prompt(prompt);
  renderer.dispose();
  return text();
}

describe("event renderer: sub-agents", () => {
  it("draws a child's calls and text indented under the call that runs it, named after its agent tool", async () => {
    const reviewer = defineAgentTool({
      name: "reviewer",
      description: "Reviews",
      agent: {
        streamFn: scriptedModel([
          { toolCalls: [{ id: "c1", name: "look", arguments: {} }] },
          { text: "all good\nnothing to fix", deltas: 4 },
        ]),
        tools: [look],
      },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "r1", name: "reviewer", arguments: { task: "check" } }] },
        { text: "done" },
      ]),
      tools: [reviewer],
    });
    expect(await renderRun(agent, "review it")).toBe(
      [
        '⚙ reviewer {"task":"check"}',
        "  reviewer› ⚙ look {}",
        "  reviewer› ✓ look {} → 1 line",
        "  reviewer› all good",
        "  reviewer› nothing to fix",
        '✓ reviewer {"task":"check"} → 2 lines',
        "done",
        "",
      ].join("\n"),
    );
  });

  it("indents a grandchild one level deeper, under its parent's call", async () => {
    const billing = defineAgentTool({
      name: "billing",
      description: "Bills",
      agent: { streamFn: scriptedModel([{ text: "billed" }]) },
    });
    const support = defineAgentTool({
      name: "support",
      description: "Supports",
      agent: {
        streamFn: scriptedModel([
          { toolCalls: [{ id: "b1", name: "billing", arguments: { task: "bill" } }] },
          { text: "supported" },
        ]),
        tools: [billing],
      },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "s1", name: "support", arguments: { task: "help" } }] },
        { text: "ok" },
      ]),
      tools: [support],
    });
    expect((await renderRun(agent, "go")).split("\n")).toEqual([
      '⚙ support {"task":"help"}',
      '  support› ⚙ billing {"task":"bill"}',
      "    billing› billed",
      '  support› ✓ billing {"task":"bill"} → 1 line',
      "  support› supported",
      '✓ support {"task":"help"} → 1 line',
      "ok",
      "",
    ]);
  });

  it("keeps the streamed text of three parallel children attributable: every line is one child's", async () => {
    const words = { one: "alpha beta gamma delta", two: "red green blue", three: "north south east west" };
    const research = defineAgentTool({
      name: "research",
      description: "Researches",
      agent: ({ task }) => ({
        streamFn: scriptedModel([{ text: words[task as keyof typeof words], deltas: 6 }]),
      }),
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        {
          toolCalls: Object.keys(words).map((task, index) => ({
            id: `p${index}`,
            name: "research",
            arguments: { task },
          })),
        },
        { text: "merged" },
      ]),
      tools: [research],
    });
    const lines = (await renderRun(agent, "research")).split("\n");
    const childLines = lines.filter((line) => line.startsWith("  "));
    // Each child's lines, prefixes taken off, put back together are exactly its reply.
    const byChild = new Map<string, string>();
    for (const line of childLines) {
      const match = /^ {2}(research(?:#\d)?)› (.*)$/.exec(line);
      expect(match, line).not.toBeNull();
      byChild.set(match![1]!, (byChild.get(match![1]!) ?? "") + match![2]);
    }
    expect(Object.fromEntries(byChild)).toEqual({
      research: words.one,
      "research#2": words.two,
      "research#3": words.three,
    });
    expect(lines.filter((line) => line.startsWith("✓ research"))).toHaveLength(3);
  });
});

describe("event renderer: interleaved deltas and the spinner", () => {
  const textDelta = (delta: string, agentPath: string[]): HarnessEvent => ({
    type: "message_update",
    message: {} as AssistantMessage,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: {} as AssistantMessage },
    agentPath,
  });
  const start = (toolCallId: string, toolName: string, agentPath?: string[]): HarnessEvent => ({
    type: "tool_execution_start",
    toolCallId,
    toolName,
    args: {},
    ...(agentPath ? { agentPath } : {}),
  });
  const end = (toolCallId: string, toolName: string, agentPath?: string[]): HarnessEvent => ({
    type: "tool_execution_end",
    toolCallId,
    toolName,
    result: { content: [{ type: "text", text: "x" }] },
    isError: false,
    ...(agentPath ? { agentPath } : {}),
  });

  it("ends a child's open line when another child writes, and goes on with the first child's prefix", () => {
    const { renderer, text } = capture(false);
    renderer.render(start("a", "alpha"));
    renderer.render(start("b", "beta"));
    renderer.render(textDelta("one ", ["a"]));
    renderer.render(textDelta("two ", ["b"]));
    renderer.render(textDelta("three\nfour", ["a"]));
    renderer.render(textDelta("five", ["b"]));
    renderer.dispose();
    expect(text().split("\n")).toEqual([
      "⚙ alpha {}",
      "⚙ beta {}",
      "  alpha› one ",
      "  beta› two ",
      "  alpha› three",
      "  alpha› four",
      "  beta› five",
    ]);
  });

  it("on a terminal, clears the spinner before a child's text and never draws it over an open line", () => {
    const { renderer, writes } = capture(true);
    renderer.render(start("a", "alpha"));
    renderer.render(start("b", "beta"));
    const from = writes.length;
    renderer.render(textDelta("Hel", ["a"]));
    renderer.render(start("t1", "look", ["b"])); // redraws nothing over "Hel": the line ends first
    renderer.render(textDelta("lo", ["a"]));
    renderer.render(end("t1", "look", ["b"]));
    renderer.dispose();
    expect(writes.slice(from)).toEqual([
      CLEAR_LINE, // the spinner line gives way
      "  alpha› Hel",
      "\n", // beta's tool starts: alpha's line ends and the spinner comes back
      `${CLEAR_LINE}⠋ alpha {}, beta {}, look {}`,
      CLEAR_LINE,
      "  alpha› lo",
      "\n",
      "  beta› ✓ look {} → 1 line\n",
      `${CLEAR_LINE}⠋ alpha {}, beta {}`,
      CLEAR_LINE, // dispose stops the spinner
    ]);
  });
});
