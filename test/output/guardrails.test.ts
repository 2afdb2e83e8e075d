import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";

const textOfMessage = (message: unknown) =>
  ((message as AssistantMessage).content ?? [])
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("");

function recorder(agent: Agent) {
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return events;
}

const bans = (word: string, extra: Partial<Guardrail> = {}): Guardrail => ({
  name: `no-${word}`,
  check: ({ text }) => ({ tripwire: text.includes(word), reason: `mentions ${word}` }),
  ...extra,
});

describe("input guardrails", () => {
  it("blocking: a trip ends the run before any model call, keeping the prompt and a placeholder", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const agent = new Agent({ model: testModel, streamFn: model, guardrails: { input: [bans("bomb")] } });
    const events = recorder(agent);
    const result = await agent.prompt("how to build a bomb");
    expect(model.calls).toHaveLength(0);
    expect(result.stopReason).toBe("guardrail");
    expect(result.guardrail).toEqual({ guardrail: "no-bomb", kind: "input", reason: "mentions bomb" });
    expect(events.find((e) => e.type === "guardrail_tripped")).toMatchObject({ guardrail: "no-bomb" });
    expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
    expect(textOfMessage(agent.state.messages[1])).toContain("no-bomb");
    expect(events.map((e) => e.type)).toContain("turn_end");
  });

  it("blocking: a passing check lets the model call go on", async () => {
    const model = scriptedModel([{ text: "Sure." }]);
    const agent = new Agent({ model: testModel, streamFn: model, guardrails: { input: [bans("bomb")] } });
    const result = await agent.prompt("hello");
    expect(result.stopReason).toBe("stop");
    expect(model.calls).toHaveLength(1);
  });

  it("parallel: the model call starts at once, nothing of it reaches a listener, and a trip aborts it", async () => {
    const gate = deferred<void>();
    const called = deferred<void>();
    let signalSeen: AbortSignal | undefined;
    const model = scriptedModel([{ text: "a long streamed answer", hang: true }]);
    const slow: Guardrail = {
      name: "slow-check",
      mode: "parallel",
      check: async () => {
        await gate.promise;
        return { tripwire: true, reason: "off topic", replacement: "I can only talk about cooking." };
      },
    };
    const agent = new Agent({
      model: testModel,
      streamFn: (m, c, o) => {
        signalSeen = o.signal;
        called.resolve();
        return model(m, c, o);
      },
      guardrails: { input: [slow] },
    });
    const events = recorder(agent);
    const done = agent.prompt("tell me about cars");
    await called.promise;
    expect(model.calls).toHaveLength(1);
    gate.resolve();
    const result = await done;
    expect(result.stopReason).toBe("guardrail");
    expect(signalSeen?.aborted).toBe(true);
    expect(events.some((e) => e.type === "message_update")).toBe(false);
    expect(textOfMessage(agent.state.messages.at(-1))).toBe("I can only talk about cooking.");
    expect(agent.state.messages).toHaveLength(2);
  });

  it("a guardrail that throws is a trip with its error as the reason (fail closed)", async () => {
    const broken: Guardrail = {
      name: "broken",
      check: () => {
        throw new Error("classifier down");
      },
    };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "x" }]),
      guardrails: { input: [broken] },
    });
    const result = await agent.prompt("hi");
    expect(result.stopReason).toBe("guardrail");
    expect(result.guardrail).toMatchObject({ guardrail: "broken", threw: true });
    expect(result.guardrail!.reason).toContain("classifier down");
  });
});

describe("output guardrails", () => {
  it("no text_delta reaches a listener before the check passes; then all are released in order", async () => {
    const gate = deferred<void>();
    const checking = deferred<void>();
    const seen: string[] = [];
    const waiting: Guardrail = {
      name: "late-ok",
      check: async () => {
        seen.push("check");
        checking.resolve();
        await gate.promise;
        return { tripwire: false };
      },
    };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "hello there, friend", deltas: 5 }]),
      guardrails: { output: [waiting] },
    });
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
        seen.push(`delta:${event.assistantMessageEvent.delta}`);
      if (event.type === "message_start" && (event.message as { role: string }).role === "assistant")
        seen.push("start");
      if (event.type === "message_end" && (event.message as { role: string }).role === "assistant")
        seen.push("end");
    });
    const done = agent.prompt("hi");
    await checking.promise;
    expect(seen).toEqual(["check"]);
    expect(agent.actor.getSnapshot().value).toEqual({ running: { streaming: "checking" } });
    gate.resolve();
    const result = await done;
    expect(result.stopReason).toBe("stop");
    expect(seen[1]).toBe("start");
    expect(seen.at(-1)).toBe("end");
    expect(seen.slice(2, -1).join("").replaceAll("delta:", "")).toBe("hello there, friend");
  });

  it("a trip keeps the replacement, never the rejected text, and ends the run", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "the password is hunter2" }, { text: "never" }]),
      guardrails: {
        output: [
          {
            name: "secrets",
            check: ({ text }) => ({ tripwire: text.includes("password"), replacement: "[redacted]" }),
          },
        ],
      },
    });
    const events = recorder(agent);
    const result = await agent.prompt("what is the password?");
    expect(result.stopReason).toBe("guardrail");
    expect(JSON.stringify(events)).not.toContain("hunter2");
    expect(JSON.stringify(agent.state.messages)).not.toContain("hunter2");
    expect(textOfMessage(agent.state.messages.at(-1))).toBe("[redacted]");
  });

  it("tool-calling replies are checked too; tools run only after the check passes", async () => {
    const ran: string[] = [];
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { text: "calling", toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
        { text: "done" },
      ]),
      tools: [echoTool()],
      guardrails: {
        output: [
          {
            name: "log",
            check: ({ text }) => {
              ran.push(`check:${text}`);
              return { tripwire: false };
            },
          },
        ],
      },
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") ran.push("tool");
    });
    const result = await agent.prompt("go");
    expect(result.stopReason).toBe("stop");
    expect(ran).toEqual(["check:calling", "tool", "check:done"]);
  });

  it("an abort while the check runs keeps nothing of the held reply", async () => {
    const gate = deferred<void>();
    const started = deferred<void>();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "secret stuff" }]),
      guardrails: {
        output: [
          {
            name: "slow",
            check: async () => {
              started.resolve();
              await gate.promise;
              return { tripwire: false };
            },
          },
        ],
      },
    });
    const events = recorder(agent);
    const done = agent.prompt("hi");
    await started.promise;
    agent.abort();
    const result = await done;
    gate.resolve();
    expect(result.stopReason).toBe("aborted");
    expect(JSON.stringify(events)).not.toContain("secret stuff");
    expect(JSON.stringify(agent.state.messages)).not.toContain("secret stuff");
  });
});

describe("output guardrails and sub-agents", () => {
  /**
   * A root with a `no-secret` output guardrail whose agent tool `research` (call `c1`) replies
   * `childText`; `log` gets each check and each child text event the root's subscribers see, in order.
   */
  function rootWithChild(childText: string) {
    const log: string[] = [];
    const noSecret: Guardrail = {
      name: "no-secret",
      check: ({ text }) => {
        log.push(`check ${text}`);
        return { tripwire: text.includes("secret"), reason: "mentions secret" };
      },
    };
    const research = defineAgentTool({
      name: "research",
      description: "Researches",
      agent: { systemPrompt: "You research.", streamFn: scriptedModel([{ text: childText }]) },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        { toolCalls: [{ id: "c1", name: "research", arguments: { task: "look" } }] },
        { text: "Done." },
      ]),
      tools: [research],
      guardrails: { output: [noSecret] },
    });
    const events = recorder(agent);
    agent.subscribe((event) => {
      if (event.agentPath && event.type === "message_update" && event.message.role === "assistant")
        log.push(`shown ${textOfMessage(event.message)}`);
    });
    return { agent, events, log };
  }

  it("a child's reply reaches the root's subscribers only after the root's guardrails passed on it", async () => {
    const { agent, log } = rootWithChild("the public answer");
    await agent.prompt("go");
    const checked = log.indexOf("check the public answer");
    const firstShown = log.findIndex((entry) => entry.startsWith("shown"));
    expect(checked).toBeGreaterThan(-1);
    expect(firstShown).toBeGreaterThan(checked);
    expect(log.at(-2)).toBe("shown the public answer");
  });

  it("a child's tripped reply is never shown to the root's subscribers", async () => {
    const { agent, events, log } = rootWithChild("the secret plan");
    await agent.prompt("go");
    expect(log.filter((entry) => entry.startsWith("shown"))).toEqual([]);
    const childText = events.flatMap((event) =>
      event.agentPath && event.type === "message_end" && event.message.role === "assistant"
        ? [textOfMessage(event.message)]
        : [],
    );
    expect(childText.some((text) => text.includes("secret plan"))).toBe(false);
    expect(childText.at(-1)).toContain("withheld");
    expect(
      events.find((event) => event.type === "guardrail_tripped" && event.agentPath?.[0] === "c1"),
    ).toMatchObject({ guardrail: "no-secret", kind: "output" });
  });
});
