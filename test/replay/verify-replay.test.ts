import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { ReplayDivergenceError } from "../../src/replay/replay-divergence-error.js";
import { verifyReplay } from "../../src/replay/verify/verify-replay.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import { testModel } from "../support/loop-harness.js";
import { deleteTool, signaturesOf, weatherTool, withoutTimestamps } from "./support.js";

/** Records a live run of `options` driven by `drive`, then re-runs it with `verifyReplay` on `replayed` (default: the same options). */
async function recordAndVerify(
  options: AgentOptions,
  drive: (agent: Agent) => Promise<unknown>,
  replayed: Omit<AgentOptions, "streamFn"> = options,
) {
  const agent = new Agent({ ...options, record: true });
  const live = signaturesOf(agent);
  await drive(agent);
  await agent.waitForIdle();
  const { streamFn: _streamFn, ...rest } = replayed as AgentOptions;
  const verdict = await verifyReplay(agent.recording!, { agent: rest });
  return { agent, live, verdict };
}

describe("verifyReplay", () => {
  it("re-runs an approval, a denial and its transcript offline: same transcript, no tool side effect", async () => {
    const streamFn = scriptedModel([
      {
        toolCalls: [
          { id: "call_d1", name: "delete_file", arguments: { path: "a.txt" } },
          { id: "call_d2", name: "delete_file", arguments: { path: "b.txt" } },
        ],
      },
      { text: "Deleted a.txt only." },
    ]);
    const options = { model: testModel, streamFn, tools: [deleteTool] };
    const { agent, verdict } = await recordAndVerify(options, async (agent) => {
      agent.subscribe((event) => {
        if (event.type !== "tool_approval_request") return;
        if (event.toolCallId === "call_d1") agent.approveToolCall("call_d1");
        else agent.denyToolCall("call_d2", "keep b");
      });
      await agent.prompt("Delete a and b");
    });
    expect(verdict.firstDivergence).toBeUndefined();
    expect(verdict.ok).toBe(true);
    const commands = agent.recording!.commands.map((entry) => entry.command.type);
    expect(commands).toEqual(expect.arrayContaining(["PROMPT", "APPROVE_TOOL", "DENY_TOOL"]));
    expect(withoutTimestamps(verdict.agent.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
  });

  it("applies a steer at its recorded state and an abort where the recorded reply was cut", async () => {
    const streamFn = scriptedModel([
      { text: "First answer, rather long.", deltas: 6 },
      { text: "Second answer, cut midway by an abort.", deltas: 8 },
    ]);
    const options = { model: testModel, streamFn };
    let deltas = 0;
    const { agent, verdict, live } = await recordAndVerify(options, async (agent) => {
      agent.subscribe((event) => {
        if (event.type !== "message_update" || event.assistantMessageEvent.type !== "text_delta") return;
        deltas++;
        if (deltas === 2) agent.steer("Be brief.");
        if (deltas === 9) agent.abort();
      });
      await agent.prompt("Tell me");
    });
    expect(agent.state.messages.at(-1)).toMatchObject({ stopReason: "aborted" });
    expect(agent.recording!.commands.map((entry) => entry.command.type)).toEqual([
      "PROMPT",
      "STEER",
      "ABORT",
    ]);
    expect(verdict.firstDivergence).toBeUndefined();
    const replayed = verdict.agent.state.messages;
    expect(withoutTimestamps(replayed)).toEqual(withoutTimestamps(agent.state.messages));
    expect(live.length).toBeGreaterThan(0);
  });

  it("replays a sub-agent's model calls and tools with its agent path", async () => {
    const { tool, executions } = weatherTool();
    const researcher = defineAgentTool({
      name: "research",
      description: "Researches a question",
      agent: { systemPrompt: "You research.", tools: [tool] },
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_r1", name: "research", arguments: { task: "Weather in Oslo" } }] },
      { toolCalls: [{ id: "call_w9", name: "weather", arguments: { city: "Oslo" } }] },
      { text: "Oslo: 21°C." },
      { text: "It is 21°C in Oslo." },
    ]);
    const options = { model: testModel, streamFn, tools: [researcher] };
    const { agent, verdict } = await recordAndVerify(options, (agent) => agent.prompt("Oslo?"));
    const recording = agent.recording!;
    expect(recording.modelCalls.map((call) => call.agentPath)).toEqual([[], ["call_r1"], ["call_r1"], []]);
    expect(recording.toolCalls).toMatchObject([{ agentPath: ["call_r1"], toolCallId: "call_w9" }]);
    expect(verdict.firstDivergence).toBeUndefined();
    expect(executions).toEqual(["Oslo"]);
    expect(withoutTimestamps(verdict.agent.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
  });

  it("re-applies an approval of a sub-agent's call at its agent path", async () => {
    const cleaner = defineAgentTool({
      name: "clean",
      description: "Cleans up",
      agent: { systemPrompt: "You clean.", tools: [deleteTool] },
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_c1", name: "clean", arguments: { task: "Remove tmp.txt" } }] },
      { toolCalls: [{ id: "call_d7", name: "delete_file", arguments: { path: "tmp.txt" } }] },
      { text: "Removed." },
      { text: "Cleaned up." },
    ]);
    const { agent, verdict } = await recordAndVerify(
      { model: testModel, streamFn, tools: [cleaner] },
      async (agent) => {
        agent.subscribe((event) => {
          if (event.type === "tool_approval_request")
            agent.approveToolCall(event.toolCallId, { agentPath: event.agentPath });
        });
        await agent.prompt("Clean up");
      },
    );
    expect(agent.recording!.commands).toMatchObject([
      { command: { type: "PROMPT" }, agentPath: [] },
      { command: { type: "APPROVE_TOOL", toolCallId: "call_d7" }, agentPath: ["call_c1"] },
    ]);
    expect(verdict.firstDivergence).toBeUndefined();
    expect(withoutTimestamps(verdict.agent.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
  });

  it("reports a command whose recorded state the re-run never reaches, without hanging", async () => {
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_d1", name: "delete_file", arguments: { path: "a.txt" } }] },
      { text: "Done." },
    ]);
    const recorded = await recordAndVerify(
      { model: testModel, streamFn, tools: [deleteTool] },
      async (agent) => {
        agent.subscribe((event) => {
          if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
        });
        await agent.prompt("Delete a.txt");
      },
    );
    // The code under test no longer asks for approval: the recorded approval finds no waiting call.
    const unguarded = { ...deleteTool, requiresApproval: false };
    const verdict = await verifyReplay(recorded.agent.recording!, {
      agent: { model: testModel, tools: [unguarded] },
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.firstDivergence).toMatchObject({
      what: "state",
      expected: { running: { executingTools: "awaitingHuman" } },
    });
  });

  it("names a recorded tool the code under test no longer has", async () => {
    const { tool } = weatherTool();
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Paris" } }] },
      { text: "21°C." },
    ]);
    const { verdict } = await recordAndVerify(
      { model: testModel, streamFn, tools: [tool] },
      (agent) => agent.prompt("Paris?"),
      {
        model: testModel,
        tools: [deleteTool],
      },
    );
    expect(verdict.firstDivergence?.differences).toEqual([
      'tool spec "weather": removed',
      'tool spec "delete_file": added',
    ]);
  });

  it('"verify" tools run live and report a result that differs from the recorded one; "live" tools just run', async () => {
    const { tool } = weatherTool();
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Paris" } }] },
      { text: "21°C." },
    ]);
    const recorded = await recordAndVerify({ model: testModel, streamFn, tools: [tool] }, (agent) =>
      agent.prompt("Paris?"),
    );
    const recording = recorded.agent.recording!;
    const warmer = {
      ...tool,
      execute: async () => ({ content: [{ type: "text" as const, text: "Paris: 30°C" }] }),
    };
    const verified = await verifyReplay(recording, {
      agent: { model: testModel, tools: [warmer] },
      tools: "verify",
    });
    expect(verified.firstDivergence).toMatchObject({
      what: "tool_result",
      step: 3,
      expected: { content: [{ text: "Paris: 21°C" }] },
    });
    const live = weatherTool();
    const lively = await verifyReplay(recording, {
      agent: { model: testModel, tools: [live.tool] },
      tools: "live",
    });
    expect(lively.ok).toBe(true);
    expect(live.executions).toEqual(["Paris"]);
  });

  it("replays a handoff, a typed output repair and a guardrail trip", async () => {
    const { tool } = weatherTool();
    const toForecaster = defineHandoff({
      agent: { name: "forecaster", systemPrompt: "You forecast.", tools: [tool] },
    });
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_h1", name: toForecaster.name, arguments: {} }] },
      { toolCalls: [{ id: "call_w2", name: "weather", arguments: { city: "Rome" } }] },
      { text: '{"celsius": "warm"}' },
      { text: '{"celsius": 21}' },
    ]);
    const bans: Guardrail = {
      name: "no-bomb",
      check: ({ text }) => ({ tripwire: text.includes("bomb"), reason: "bomb" }),
    };
    const options = { model: testModel, streamFn, tools: [toForecaster], guardrails: { input: [bans] } };
    const { agent, verdict } = await recordAndVerify(options, async (agent) => {
      await agent.prompt("Rome?", { output: z.object({ celsius: z.number() }) });
      await agent.prompt("a bomb?");
    });
    expect(agent.state.messages.some((message) => message.role === "user")).toBe(true);
    expect(verdict.firstDivergence).toBeUndefined();
    expect(withoutTimestamps(verdict.agent.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
  });

  it("names the step, the path and the tool spec whose description changed", async () => {
    const { tool } = weatherTool("The weather in a city");
    const changed = weatherTool("Today's weather in a city, in °C").tool;
    const streamFn = scriptedModel([
      { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Paris" } }] },
      { text: "21°C." },
    ]);
    const options = { model: testModel, streamFn, tools: [tool] };
    const { verdict } = await recordAndVerify(options, (agent) => agent.prompt("Paris?"), {
      model: testModel,
      tools: [changed],
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.firstDivergence).toMatchObject({
      what: "model_request",
      step: 1,
      agentPath: [],
      differences: [
        'tool spec "weather" description: "The weather in a city" → "Today\'s weather in a city, in °C"',
      ],
    });
    // The run ended with the divergence as a failed reply; no recorded reply was played past it.
    const last = verdict.agent.state.messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "error" });
    expect((last as { errorMessage?: string }).errorMessage).toMatch(
      /Replay diverged at step 1 .*tool spec "weather" description/,
    );
    expect(verdict.agent.state.messages).toHaveLength(2);
  });

  it("names the message and the argument that changed, and throws ReplayDivergenceError from the replayed model", async () => {
    const streamFn = scriptedModel([{ text: "Hello." }]);
    const { verdict } = await recordAndVerify(
      { model: testModel, streamFn, systemPrompt: "Be kind." },
      (agent) => agent.prompt("Hi"),
      { model: testModel, systemPrompt: "Be terse." },
    );
    expect(verdict.firstDivergence?.differences).toEqual(['system prompt: "Be kind." → "Be terse."']);
    expect(verdict.firstDivergence?.expected).toMatchObject({ systemPrompt: "Be kind." });
    expect(new ReplayDivergenceError(verdict.firstDivergence!).code).toBe("replay_divergence");
  });
});
