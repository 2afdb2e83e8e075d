// @vitest-environment happy-dom
import { act, render } from "@testing-library/react";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { createAgentClient } from "../../src/client/agent-client.js";
import { useAgent } from "../../src/react/use-agent.js";

type Client = ReturnType<typeof createAgentClient>;
const renders = { root: 0, child: 0 };

function RootText({ client }: { client: Client }) {
  renders.root++;
  const count = useAgent(client, (context) => context.messages.length);
  return createElement("p", { "data-testid": "root" }, String(count));
}

function ChildText({ client }: { client: Client }) {
  renders.child++;
  const child = useAgent(client, (context) => context.subAgents.s1);
  return createElement("p", { "data-testid": "child" }, child ? `${child.name}: ${child.text}` : "");
}

describe("useAgent with sub-agents", () => {
  it("shows a sub-agent's streaming text while the root's view does not re-render for it", () => {
    const client = createAgentClient({ url: "http://127.0.0.1:9/unused", threadId: "r1", memory: null });
    const view = render(
      createElement("div", null, createElement(RootText, { client }), createElement(ChildText, { client })),
    );
    const send = (event: Parameters<typeof client.trigger.received>[0]["event"]) =>
      act(() => client.trigger.received({ event }));
    send({ type: "RUN_STARTED", threadId: "r1", runId: "run" });
    send({ type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "research", parentToolCallId: "s1" });
    send({ type: "TEXT_MESSAGE_START", messageId: "s1:m1", role: "assistant", subagentRunId: "s1" });
    const rootRenders = renders.root;
    for (const delta of ["Look", "ing ", "it up"])
      send({ type: "TEXT_MESSAGE_CONTENT", messageId: "s1:m1", delta, subagentRunId: "s1" });
    expect(view.getByTestId("child").textContent).toBe("research: Looking it up");
    // The child's deltas touch neither the root's messages nor its streaming message.
    expect(renders.root).toBe(rootRenders);
    expect(view.getByTestId("root").textContent).toBe("0");
    send({ type: "TEXT_MESSAGE_END", messageId: "s1:m1", subagentRunId: "s1" });
    send({ type: "SUBAGENT_FINISHED", subagentRunId: "s1", outcome: { type: "success" } });
    expect(client.getSnapshot().context.subAgents.s1?.status).toBe("done");
    expect(client.getSnapshot().context.messages).toEqual([]);
    client.close();
  });
});
