// @vitest-environment happy-dom
import { act, render } from "@testing-library/react";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { type AgentClient, createAgentClient } from "../../src/client/agent-client.js";
import { useAgent } from "../../src/react/use-agent.js";

interface Counted {
  client: AgentClient;
  renders: { count: number };
}

function Status({ client, renders }: Counted) {
  renders.count++;
  return createElement(
    "p",
    { "data-testid": "status" },
    useAgent(client, (context) => context.status),
  );
}

function Streaming({ client, renders }: Counted) {
  renders.count++;
  const text = useAgent(client, (context) => context.streaming?.content ?? "");
  return createElement("p", { "data-testid": "text" }, text);
}

function Whole({ client, seen }: { client: AgentClient; seen: unknown[] }) {
  seen.push(useAgent(client));
  return null;
}

const clientFor = (threadId: string) =>
  createAgentClient({ url: "http://127.0.0.1:9/unused", threadId, memory: null });

describe("useAgent", () => {
  it("re-renders a component only when its selected slice changes while text streams", () => {
    const client = clientFor("r1");
    const status = { count: 0 };
    const text = { count: 0 };
    const view = render(
      createElement(
        "div",
        null,
        createElement(Status, { client, renders: status }),
        createElement(Streaming, { client, renders: text }),
      ),
    );
    const send = (event: Parameters<typeof client.trigger.received>[0]["event"]) =>
      act(() => client.trigger.received({ event }));
    send({ type: "RUN_STARTED", threadId: "r1", runId: "run" });
    send({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" });
    const deltas = 200;
    for (let index = 0; index < deltas; index++)
      send({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "x" });
    expect(view.getByTestId("text").textContent).toBe("x".repeat(deltas));
    expect(view.getByTestId("status").textContent).toBe("running");
    send({ type: "TEXT_MESSAGE_END", messageId: "m1" });
    send({ type: "RUN_FINISHED", threadId: "r1", runId: "run" });
    expect(view.getByTestId("status").textContent).toBe("idle");
    // Initial render, "running", "idle": the 200 deltas did not re-render the status line.
    expect(status.count).toBe(3);
    expect(text.count).toBeGreaterThanOrEqual(deltas);
    expect(text.count).toBeLessThanOrEqual(deltas + 3);
    view.unmount();
  });

  it("returns the whole context without a selector", () => {
    const client = clientFor("r2");
    const seen: unknown[] = [];
    render(createElement(Whole, { client, seen }));
    expect(seen.at(-1)).toBe(client.getSnapshot().context);
  });
});
