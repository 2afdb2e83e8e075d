import { HttpAgent } from "@ag-ui/client";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient } from "../../src/client/agent-client.js";
import type { AgentClientContext } from "../../src/client/agent-client-state.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { postRun, readRun, runInput, scriptedAgents, serveOnLoopback } from "../support/ag-ui-server.js";
import { cuttingFetch } from "../support/cutting-fetch.js";

const servers: { close(): Promise<void> }[] = [];
const clients: AgentClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: (threadId: string) => ScriptedReply[]) {
  const setup = scriptedAgents(script);
  const served = await serveOnLoopback(setup.handler);
  servers.push(served);
  return { ...setup, url: served.url };
}

function clientOf(url: string, threadId: string, fetchFn?: typeof fetch): AgentClient {
  const client = createAgentClient({ url, threadId, memory: null, ...(fetchFn ? { fetch: fetchFn } : {}) });
  clients.push(client);
  return client;
}

/** Resolves with the context once the run the client follows has ended; approves every waiting call. */
function settled(client: AgentClient): Promise<AgentClientContext> {
  return new Promise((resolve) => {
    const approved = new Set<string>();
    const check = ({ context }: { context: AgentClientContext }) => {
      for (const pending of context.awaitingApproval)
        if (!approved.has(pending.toolCallId)) {
          approved.add(pending.toolCallId);
          void client.command({ type: "APPROVE_TOOL", toolCallId: pending.toolCallId });
        }
      if (context.runId !== undefined && (context.status === "idle" || context.status === "error")) {
        subscription.unsubscribe();
        resolve(context);
      }
    };
    const subscription = client.subscribe(check);
  });
}

/** The parts of a context a cut may not change (the run id is random per client). */
const comparable = ({ runId: _runId, threadId: _threadId, ...rest }: AgentClientContext) => rest;

describe("the client store", () => {
  it("follows a run: streaming text, a tool call approved through its approve event, the final messages", async () => {
    const { url, agents } = await serve(() => [
      {
        text: "Let me reverse it.",
        toolCalls: [{ id: "call_c", name: "reverse", arguments: { text: "live" } }],
      },
      { text: "That is evil." },
    ]);
    const client = clientOf(url, "c1");
    const statuses = new Set<string>();
    const partials: string[] = [];
    client.subscribe(({ context }) => {
      for (const call of Object.values(context.toolCalls)) statuses.add(call.status);
      if (context.streaming?.role === "assistant") partials.push(context.streaming.content ?? "");
    });
    const done = settled(client);
    client.trigger.submit({ text: "Reverse live" });
    const context = await done;
    expect(context.status).toBe("idle");
    expect([...statuses]).toEqual(
      expect.arrayContaining(["streaming-args", "awaiting-approval", "running", "done"]),
    );
    expect(partials.length).toBeGreaterThan(2);
    expect(context.toolCalls.call_c).toMatchObject({
      name: "reverse",
      status: "done",
      result: "evil",
      args: '{"text":"live"}',
    });
    expect(context.messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "Reverse live"],
      ["assistant", "Let me reverse it."],
      ["tool", "evil"],
      ["assistant", "That is evil."],
    ]);
    expect(agents.get("c1")?.state.messages).toHaveLength(4);
  });

  it("sees the same run the official HttpAgent sees", async () => {
    const script = (): ScriptedReply[] => [
      {
        thinking: "Hm.",
        text: "Shouting.",
        toolCalls: [{ id: "call_u", name: "upper", arguments: { text: "yes" } }],
      },
      { text: "YES it is." },
    ];
    const { url } = await serve(script);
    const client = clientOf(url, "c2a");
    const done = settled(client);
    client.trigger.submit({ text: "Shout yes" });
    const ours = (await done).messages.filter((message) => message.role !== "reasoning");
    const official = new HttpAgent({ url, threadId: "c2b" });
    official.addMessage({ id: "x", role: "user", content: "Shout yes" });
    await official.runAgent({ runId: "r" });
    const theirs = official.messages.filter((message) => message.role !== "reasoning");
    expect(ours).toEqual(theirs.map((message) => JSON.parse(JSON.stringify(message))));
  });

  it("reconnects after a cut and ends in the state of the uncut run, for random scripts and cut points", async () => {
    const word = fc.stringMatching(/^[a-z]{1,12}( [a-z]{1,12}){0,4}$/);
    const turn = fc.record({
      text: word,
      thinking: fc.option(word, { nil: undefined }),
      call: fc.option(fc.record({ name: fc.constantFrom("upper", "reverse"), text: word }), {
        nil: undefined,
      }),
    });
    let thread = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 3 }), fc.nat(), async (turns, cutSeed) => {
        const replies: ScriptedReply[] = turns.map((step, index) => ({
          text: step.text,
          ...(step.thinking ? { thinking: step.thinking } : {}),
          ...(step.call && index < turns.length - 1
            ? {
                toolCalls: [
                  { id: `call_${index}`, name: step.call.name, arguments: { text: step.call.text } },
                ],
              }
            : {}),
        }));
        const { url } = await serve(() => replies);
        thread++;
        const uncut = clientOf(url, `p${thread}a`);
        const uncutDone = settled(uncut);
        uncut.trigger.submit({ text: "Go" });
        const expected = await uncutDone;
        const cutAfter = 1 + (cutSeed % Math.max(1, expected.lastEventId - 1));
        const fetchFn = cuttingFetch(cutAfter);
        const cut = clientOf(url, `p${thread}b`, fetchFn);
        const cutDone = settled(cut);
        cut.trigger.submit({ text: "Go" });
        const actual = await cutDone;
        expect(fetchFn.cuts).toBe(1);
        expect(comparable(actual)).toEqual(comparable(expected));
      }),
      { numRuns: 12 },
    );
  });

  it("joins a run by threadId and runId without starting it twice, replaying after Last-Event-ID", async () => {
    const { url, models } = await serve(() => [
      { text: "Only once, streamed slowly.", deltas: 10, delayMs: 2 },
    ]);
    const input = runInput("j1", "run-j", "Hi");
    const first = await readRun(await postRun(url, input));
    const joined = await readRun(await postRun(url, input));
    expect(joined).toEqual(first);
    const after = await readRun(await postRun(url, input, { lastEventId: 5 }));
    expect(after).toEqual(first.slice(5));
    expect(models.get("j1")?.calls).toHaveLength(1);
  });
});
