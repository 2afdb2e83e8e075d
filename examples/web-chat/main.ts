// The web chat page: the agentchart client store and the useAgent hook, without JSX or a build step.
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";
import { createAgentClient, type FrontendTool } from "../../src/client/agent-client.js";
import type { ClientToolCall } from "../../src/client/agent-client-state.js";
import { useAgent } from "../../src/react/use-agent.js";

const threadId =
  new URLSearchParams(location.search).get("thread") ??
  localStorage.getItem("web-chat.thread") ??
  crypto.randomUUID();
localStorage.setItem("web-chat.thread", threadId);
/** A frontend tool: the model asks, the page shows the choices, the user's click is the answer. */
const pickColour: FrontendTool = {
  name: "pick_colour",
  description: "Asks the user to pick one of the colours in `choices`",
  parameters: {
    type: "object",
    properties: { choices: { type: "array", items: { type: "string" } } },
    required: ["choices"],
  },
};
const client = createAgentClient({ url: "/agent", threadId, tools: [pickColour] });

function Messages() {
  const messages = useAgent(client, (context) => context.messages);
  return h(
    "div",
    { "data-testid": "messages" },
    messages
      .filter((message) => message.role === "user" || (message.role === "assistant" && message.content))
      .map((message) =>
        h(
          "div",
          { key: message.id, className: `message ${message.role}`, "data-role": message.role },
          message.content,
        ),
      ),
  );
}

function Streaming() {
  const streaming = useAgent(client, (context) => context.streaming);
  if (!streaming || streaming.role === "tool") return null;
  return h("div", { className: "message assistant", "data-testid": "streaming" }, streaming.content);
}

/** The choices of a `pick_colour` call (its arguments are JSON text). */
function choicesOf(call: ClientToolCall): string[] {
  try {
    const { choices } = JSON.parse(call.args) as { choices?: unknown };
    return Array.isArray(choices) ? choices.filter((choice) => typeof choice === "string") : [];
  } catch {
    return [];
  }
}

/** The card of a `pick_colour` call waiting for the user: a button per colour; a click answers the call. */
function ColourPicker({ call }: { call: ClientToolCall }) {
  return h(
    "div",
    { "data-testid": "colour-picker" },
    choicesOf(call).map((colour) =>
      h(
        "button",
        {
          key: colour,
          type: "button",
          className: "colour",
          style: { background: colour },
          onClick: () => client.trigger.answerTool({ toolCallId: call.id, result: colour }),
        },
        colour,
      ),
    ),
  );
}

function ToolCard({ call }: { call: ClientToolCall }) {
  return h(
    "div",
    { className: "tool", "data-testid": `tool-${call.name}`, "data-status": call.status },
    h("div", null, `${call.name} ${call.args} — ${call.status}`),
    call.result ? h("div", null, call.result) : null,
    call.status === "awaiting-approval"
      ? h(
          "div",
          null,
          h(
            "button",
            {
              type: "button",
              onClick: () => void client.command({ type: "APPROVE_TOOL", toolCallId: call.id }),
            },
            "Approve",
          ),
          h(
            "button",
            {
              type: "button",
              onClick: () =>
                void client.command({ type: "DENY_TOOL", toolCallId: call.id, reason: "The user said no" }),
            },
            "Deny",
          ),
        )
      : null,
    call.status === "awaiting-client" && call.name === pickColour.name ? h(ColourPicker, { call }) : null,
  );
}

function ToolCalls() {
  const toolCalls = useAgent(client, (context) => context.toolCalls);
  return h(
    "div",
    null,
    Object.values(toolCalls).map((call) => h(ToolCard, { key: call.id, call })),
  );
}

function Composer() {
  const status = useAgent(client, (context) => context.status);
  const error = useAgent(client, (context) => context.error);
  const [text, setText] = useState("");
  const busy = status === "running" || status === "waiting";
  return h(
    "form",
    {
      onSubmit: (event: { preventDefault(): void }) => {
        event.preventDefault();
        if (!text.trim() || busy) return;
        client.trigger.submit({ text });
        setText("");
      },
    },
    h("input", {
      value: text,
      placeholder: 'Try "deploy", "pick a colour" or "tell a story"',
      onChange: (event: { target: { value: string } }) => setText(event.target.value),
    }),
    h("button", { type: "submit", disabled: busy }, "Send"),
    h(
      "button",
      { type: "button", disabled: !busy, onClick: () => void client.command({ type: "ABORT" }) },
      "Stop",
    ),
    h("span", { "data-testid": "status" }, status),
    error ? h("span", { "data-testid": "error" }, ` ${error}`) : null,
  );
}

function App() {
  return h(
    "main",
    null,
    h("h1", null, "agentchart web chat"),
    h(Messages),
    h(Streaming),
    h(ToolCalls),
    h(Composer),
  );
}

const root = document.getElementById("root");
if (root) createRoot(root).render(h(App));
