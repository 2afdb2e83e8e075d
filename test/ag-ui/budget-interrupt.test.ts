/**
 * A run held at a budget limit over AG-UI: a CUSTOM `agentchart.budget_exceeded` event, the shared
 * state `waiting` with the pause in `awaitingBudget` and the run's budget usage, answered by a
 * `RAISE_BUDGET` / `CONTINUE_ONCE` command or by a resume entry (`interruptId: "budget"`) of the
 * next request; a budget command to a run that does not wait gets the CommandError, 409 `not_waiting`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import type { BudgetPause, SharedAgentState } from "../../src/ag-ui/shared-state.js";
import { Agent } from "../../src/agent/agent.js";
import { createAgentClient } from "../../src/client/agent-client.js";
import type { AgentClientContext } from "../../src/client/agent-client-state.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentBudget } from "../../src/types/budget.js";
import type { AgentTool } from "../../src/types/tool.js";
import {
  postCommand,
  postRun,
  readRun,
  runInput,
  serveOnLoopback,
  upperTool,
} from "../support/ag-ui-server.js";
import { deferred, testModel } from "../support/loop-harness.js";

const servers: { close(): Promise<void> }[] = [];
const inFlight: Promise<unknown>[] = [];
const later = (work: Promise<unknown>) => void inFlight.push(work);
afterEach(async () => {
  await Promise.all(inFlight.splice(0));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** An endpoint whose agents call `upper` once, then answer, under `budget`. */
async function serveWithBudget(budget: AgentBudget, tool: AgentTool = upperTool) {
  const agents = new Map<string, Agent>();
  const handler = createAgUiHandler({
    agentFor: (threadId) => {
      const agent = new Agent({
        model: testModel,
        streamFn: scriptedModel([
          {
            toolCalls: [{ id: "call_u", name: "upper", arguments: { text: "hi" } }],
            usage: { input: 5, output: 2 },
          },
          { text: "It is HI.", usage: { input: 9, output: 3 } },
        ]),
        tools: [tool],
        budget,
      });
      agents.set(threadId, agent);
      return agent;
    },
  });
  const served = await serveOnLoopback(handler);
  servers.push(served);
  return { url: served.url, agents };
}

describe("a budget pause over AG-UI", () => {
  it("is a CUSTOM event and a waiting state; the RAISE_BUDGET command lets the run finish", async () => {
    const { url, agents } = await serveWithBudget({ maxModelCalls: 1 });
    const states: SharedAgentState[] = [];
    const events = await readRun(await postRun(url, runInput("b1", "r1", "Shout hi")), (event) => {
      if (event.type === "STATE_SNAPSHOT") states.push(event.snapshot as SharedAgentState);
      if (event.type === "CUSTOM" && event.name === "agentchart.budget_exceeded")
        later(
          postCommand(url, "b1", { type: "RAISE_BUDGET", limits: { maxModelCalls: 2 } }).then(
            async (response) => expect(await response.json()).toEqual({ ok: true, runId: "r1" }),
          ),
        );
    });
    const custom = events.find(({ event }) => event.type === "CUSTOM")?.event;
    expect(custom).toMatchObject({
      name: "agentchart.budget_exceeded",
      value: { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" },
    });
    const waiting = states.find((state) => state.phase === "waiting");
    expect(waiting?.awaitingBudget).toEqual([
      { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" },
    ]);
    expect(waiting?.budget).toMatchObject({
      limits: { maxModelCalls: 1 },
      usage: { modelCalls: 1, tokens: 7 },
    });
    expect(states.at(-1)?.phase).toBe("idle");
    expect(events.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(agents.get("b1")?.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("answers a budget command to a run that does not wait with 409 not_waiting, and bad limits with 400 invalid_command", async () => {
    // The tool runs until the test lets it finish: the run is busy, not paused, meanwhile.
    const release = deferred<void>();
    const blocking = defineTool({
      name: "upper",
      description: "Upper-cases a text, when released",
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        await release.promise;
        return { content: [{ type: "text", text: text.toUpperCase() }] };
      },
    });
    const { url } = await serveWithBudget({ maxModelCalls: 1 }, blocking as AgentTool);
    await readRun(await postRun(url, runInput("b2", "r1", "Shout hi")), (event) => {
      if (event.type === "TOOL_CALL_END")
        later(
          postCommand(url, "b2", { type: "CONTINUE_ONCE" }).then(async (response) => {
            expect(response.status).toBe(409);
            expect(await response.json()).toEqual({
              error: {
                code: "not_waiting",
                message: "CONTINUE_ONCE: the agent is not waiting at a budget limit",
                command: "CONTINUE_ONCE",
                agentPath: [],
              },
            });
            release.resolve();
          }),
        );
      if (event.type === "CUSTOM" && event.name === "agentchart.budget_exceeded")
        later(
          postCommand(url, "b2", { type: "RAISE_BUDGET", limits: { maxModelCalls: -3 } }).then(
            async (response) => {
              expect(response.status).toBe(400);
              expect(await response.json()).toMatchObject({
                error: { code: "invalid_command", command: "RAISE_BUDGET" },
              });
              // 0.2's spelling of CONTINUE_ONCE, still read for one minor release.
              await postCommand(url, "b2", { type: "continuePastBudget" });
            },
          ),
        );
    });
  });

  it("is answered by a resume entry of the next request (interruptId budget), which joins the run", async () => {
    const { url, agents } = await serveWithBudget({ maxModelCalls: 1 });
    // The client reads until the pause, then stops reading (the run waits on the server).
    await readRun(
      await postRun(url, runInput("b3", "r1", "Shout hi")),
      (event) => event.type === "CUSTOM" && event.name === "agentchart.budget_exceeded",
    );
    const resumed = await readRun(
      await postRun(url, {
        ...runInput("b3", "r2", "unused"),
        messages: [],
        resume: [{ interruptId: "budget", status: "resolved", payload: { limits: { maxModelCalls: 5 } } }],
      }),
    );
    expect(resumed.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: "r1" });
    expect(agents.get("b3")?.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("a cancelled resume entry stops the run", async () => {
    const { url, agents } = await serveWithBudget({ maxModelCalls: 1 });
    await readRun(
      await postRun(url, runInput("b4", "r1", "Shout hi")),
      (event) => event.type === "CUSTOM" && event.name === "agentchart.budget_exceeded",
    );
    await readRun(
      await postRun(url, {
        ...runInput("b4", "r2", "unused"),
        messages: [],
        resume: [{ interruptId: "budget", status: "cancelled" }],
      }),
    );
    await agents.get("b4")!.waitForIdle();
    expect(agents.get("b4")?.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
    });
  });

  it("the client store answers it: RAISE_BUDGET when its shared state lists the pause", async () => {
    const { url, agents } = await serveWithBudget({ maxModelCalls: 1 });
    const client = createAgentClient({ url, threadId: "b5", memory: null });
    const seen: BudgetPause[] = [];
    const done = new Promise<AgentClientContext>((resolve) => {
      const subscription = client.subscribe(({ context }) => {
        const pauses = (context.state as SharedAgentState | undefined)?.awaitingBudget ?? [];
        for (const pause of pauses)
          if (seen.length === 0) {
            seen.push(pause);
            void client.command({ type: "RAISE_BUDGET", limits: { maxModelCalls: 3 } });
          }
        if (context.runId !== undefined && context.status === "idle" && seen.length > 0) {
          subscription.unsubscribe();
          resolve(context);
        }
      });
    });
    client.trigger.submit({ text: "Shout hi" });
    await done;
    client.close();
    expect(seen).toEqual([
      { budget: "maxModelCalls", limit: 1, used: 1, action: "pause", before: "modelCall" },
    ]);
    expect(agents.get("b5")?.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});
