import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";

// The states of typed output and guardrails (`preparingTurn.checkingInput`, `streaming.held` and
// `streaming.checking`, `validatingOutput`) crossed along every transition, each with the run's
// invariants checked at the end, and persisted/restored in each of the states that wait.

const City = z.object({ city: z.string() });

type Inspect = (event: InspectionEvent) => void;

function gatedGuardrail(name: string, verdict: { tripwire: boolean }, mode?: "parallel") {
  const gate = deferred<void>();
  const started = deferred<void>();
  const guardrail: Guardrail = {
    name,
    ...(mode ? { mode } : {}),
    check: async () => {
      started.resolve();
      await gate.promise;
      return verdict;
    },
  };
  return { guardrail, gate, started };
}

/** An agent on a scripted model, recording its events. */
function agentOf(inspect: Inspect, script: ScriptedReply[], options: Partial<AgentOptions> = {}) {
  const events: AgentEvent[] = [];
  const agent = new Agent({ model: testModel, streamFn: scriptedModel(script), inspect, ...options });
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, events };
}

/** Every run ends idle, with every tool call answered once, and a transcript that alternates sanely. */
function expectFinished(agent: Agent, events: AgentEvent[]) {
  expect(agent.actor.getSnapshot().value).toBe("idle");
  const calls = agent.state.messages.flatMap((m) =>
    (m as { role: string }).role === "assistant"
      ? ((m as { content: { type: string; id?: string }[] }).content ?? [])
          .filter((b) => b.type === "toolCall")
          .map((b) => b.id)
      : [],
  );
  const results = agent.state.messages.flatMap((m) =>
    (m as { role: string }).role === "toolResult" ? [(m as { toolCallId: string }).toolCallId] : [],
  );
  expect(results.sort()).toEqual(calls.sort());
  expect(events.filter((e) => e.type === "agent_start")).toHaveLength(
    events.filter((e) => e.type === "agent_end").length,
  );
  expect(events.filter((e) => e.type === "turn_start")).toHaveLength(
    events.filter((e) => e.type === "turn_end").length,
  );
}

export function describeOutputAndGuardrailPaths(inspect: Inspect) {
  describe("agentMachine: input guardrails", () => {
    it("injecting → checkingInput → (pass) streaming, and persist/restore in checkingInput", async () => {
      const { guardrail, gate, started } = gatedGuardrail("gate", { tripwire: false });
      const { agent } = agentOf(inspect, [{ text: "x" }], { guardrails: { input: [guardrail] } });
      const done = agent.prompt("hi");
      await started.promise;
      expect(agent.actor.getSnapshot().value).toEqual({ running: { preparingTurn: "checkingInput" } });
      const saved = JSON.stringify(agent.persist());
      agent.abort();
      gate.resolve();
      await done;
      const again = Agent.restore(saved, {
        streamFn: scriptedModel([{ text: "after restore" }]),
        guardrails: { input: [{ name: "gate", check: () => ({ tripwire: false }) }] },
        inspect,
      });
      const events: AgentEvent[] = [];
      again.subscribe((event) => {
        events.push(event);
      });
      await again.waitForIdle();
      expect(events.map((e) => e.type)).toContain("agent_resume");
      expect(again.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
      expect(again.state.messages.filter((m) => (m as { role: string }).role === "user")).toHaveLength(1);
    });

    it("checkingInput → (trip) idle", async () => {
      const { agent, events } = agentOf(inspect, [{ text: "x" }], {
        guardrails: { input: [{ name: "no", check: () => ({ tripwire: true, reason: "no" }) }] },
      });
      expect((await agent.prompt("hi")).stopReason).toBe("guardrail");
      expectFinished(agent, events);
    });

    it("streaming (parallel input guardrail trips) → idle", async () => {
      const { guardrail, gate } = gatedGuardrail("later", { tripwire: true }, "parallel");
      const { agent, events } = agentOf(inspect, [{ text: "hidden", hang: true }], {
        guardrails: { input: [guardrail] },
      });
      const done = agent.prompt("hi");
      gate.resolve();
      expect((await done).stopReason).toBe("guardrail");
      expect(events.some((e) => e.type === "message_update")).toBe(false);
      expectFinished(agent, events);
    });
  });

  describe("agentMachine: output guardrails (held streaming)", () => {
    const passes: Guardrail = { name: "ok", check: () => ({ tripwire: false }) };

    it("released → held → checking → (pass) preparingTurn / executingTools / validatingOutput", async () => {
      const { agent, events } = agentOf(
        inspect,
        [{ toolCalls: [{ name: "echo", arguments: { text: "a" } }] }, { text: "plain" }],
        { tools: [echoTool()], guardrails: { output: [passes] } },
      );
      await agent.prompt("go");
      expectFinished(agent, events);
      const typed = agentOf(inspect, [{ text: '{"city":"Nice"}' }], { guardrails: { output: [passes] } });
      expect((await typed.agent.prompt("?", { output: City })).output).toEqual({ city: "Nice" });
      expectFinished(typed.agent, typed.events);
    });

    it("checking → (trip) idle", async () => {
      const { agent, events } = agentOf(inspect, [{ text: "bad" }], {
        guardrails: { output: [{ name: "no", check: () => ({ tripwire: true }) }] },
      });
      expect((await agent.prompt("go")).stopReason).toBe("guardrail");
      expectFinished(agent, events);
    });

    it("checking —ABORT / FAIL→ idle, nothing of the held reply kept; persist/restore in checking re-makes the call", async () => {
      for (const end of ["abort", "fail", "persist"] as const) {
        const { guardrail, gate, started } = gatedGuardrail("slow", { tripwire: false });
        const { agent, events } = agentOf(inspect, [{ text: "held text" }], {
          guardrails: { output: [guardrail] },
        });
        const done = agent.prompt("go");
        await started.promise;
        expect(agent.actor.getSnapshot().value).toEqual({ running: { streaming: "checking" } });
        const saved = JSON.stringify(agent.persist());
        if (end === "fail") agent.fail(new Error("hook failed"));
        else agent.abort();
        gate.resolve();
        const result = await done;
        expect(result.stopReason).toBe(end === "fail" ? "error" : "aborted");
        expect(JSON.stringify(agent.state.messages)).not.toContain("held text");
        expect(JSON.stringify(events)).not.toContain("held text");
        expectFinished(agent, events);
        if (end !== "persist") continue;
        expect(saved).not.toContain("held text".replace(" ", "\\u0020"));
        const model = scriptedModel([{ text: "second try" }]);
        const again = Agent.restore(saved, { streamFn: model, guardrails: { output: [passes] }, inspect });
        await again.waitForIdle();
        expect(model.calls).toHaveLength(1);
        expect(again.state.messages.at(-1)).toMatchObject({ role: "assistant" });
        expect(JSON.stringify(again.state.messages)).toContain("second try");
      }
    });
  });

  describe("agentMachine: validatingOutput", () => {
    it("streaming → validatingOutput → preparingTurn (repair) / idle (failed for good) / executingTools (final-answer call)", async () => {
      const repair = agentOf(inspect, [{ text: "{}" }, { text: '{"city":"Metz"}' }]);
      expect((await repair.agent.prompt("?", { output: City })).output).toEqual({ city: "Metz" });
      expectFinished(repair.agent, repair.events);
      const failed = agentOf(inspect, [{ text: "{}" }]);
      const result = await failed.agent.prompt("?", { output: City, maxOutputRepairs: 0 });
      expect(result.stopReason).toBe("error");
      expectFinished(failed.agent, failed.events);
      const viaTool = agentOf(
        inspect,
        [
          {
            toolCalls: [
              { name: "echo", arguments: { text: "side" } },
              { name: "final_answer", arguments: { city: "Caen" } },
            ],
          },
        ],
        { tools: [echoTool()] },
      );
      expect((await viaTool.agent.prompt("?", { output: City })).output).toEqual({ city: "Caen" });
      expect(viaTool.events.filter((e) => e.type === "tool_execution_end")).toHaveLength(2);
      expectFinished(viaTool.agent, viaTool.events);
    });

    it("validatingOutput —ABORT / FAIL→ idle, and persist/restore (RESUME) validates again", async () => {
      for (const end of ["abort", "fail", "persist"] as const) {
        const gate = deferred<void>();
        const started = deferred<void>();
        const Slow = City.refine(async () => {
          started.resolve();
          await gate.promise;
          return true;
        });
        const { agent, events } = agentOf(inspect, [{ text: '{"city":"Pau"}' }]);
        const done = agent.prompt("?", { output: Slow });
        await started.promise;
        expect(agent.actor.getSnapshot().value).toEqual({ running: "validatingOutput" });
        const saved = JSON.stringify(agent.persist());
        if (end === "fail") agent.fail("stop");
        else agent.abort();
        gate.resolve();
        const result = await done;
        expect(result.stopReason).toBe(end === "fail" ? "error" : "aborted");
        expect(result.output).toBeUndefined();
        expectFinished(agent, events);
        if (end !== "persist") continue;
        const again = Agent.restore(saved, { streamFn: scriptedModel([]), output: City, inspect });
        const resumed: AgentEvent[] = [];
        again.subscribe((event) => {
          resumed.push(event);
        });
        await again.waitForIdle();
        expect(resumed[0]).toEqual({ type: "agent_resume", from: "validatingOutput" });
        expect(resumed.at(-1)).toMatchObject({
          type: "agent_end",
          output: { city: "Pau" },
          stopReason: "stop",
        });
      }
    });

    it("a restore given no zod schema validates with the persisted JSON Schema", async () => {
      const gate = deferred<void>();
      const started = deferred<void>();
      const Slow = City.refine(async () => {
        started.resolve();
        await gate.promise;
        return true;
      });
      const { agent } = agentOf(inspect, [{ text: '{"city":"Albi","extra":1}' }]);
      const done = agent.prompt("?", { output: Slow, maxOutputRepairs: 0 });
      await started.promise;
      const saved = JSON.stringify(agent.persist());
      agent.abort();
      gate.resolve();
      await done;
      const again = Agent.restore(saved, { streamFn: scriptedModel([]), inspect });
      const end = new Promise<AgentEvent>((resolve) =>
        again.subscribe((event) => {
          if (event.type === "agent_end") resolve(event);
        }),
      );
      // The JSON Schema forbids the extra key (zod's object strips it instead): the rebuilt schema checked.
      expect(await end).toMatchObject({
        stopReason: "error",
        outputFailure: { raw: '{"city":"Albi","extra":1}' },
      });
    });
  });
}
