// A zero-latency faux LLM that depends on no library: it produces pi-ai protocol events
// (`AssistantMessageEvent`) into a plain callback. Every runner (agentchart, pi, bare) is fed by this
// one function, so all of them see the same event sequence; only the transport differs.

/** What the faux answers. */
export interface Script {
  /** Tool calls in the answer to a user message (0: answer with text). */
  tools: number;
  /** Text deltas of a text answer (to a user message, or after tool results). */
  deltas: number;
}

export const FAUX_MODEL = {
  id: "faux-1",
  name: "faux-1",
  api: "faux",
  provider: "faux",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 8_192,
} as const;

export const TOOL_NAMES = ["read_file", "list_dir", "grep", "stat"] as const;

const DELTA = "abcd";
let callCounter = 0;

function usage() {
  return {
    input: 10,
    output: 20,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 30,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * Emits one whole answer synchronously: after a user message the scripted first answer (text or tool
 * calls), after a tool result a text answer. One mutable message is passed as `partial`, as pi-ai's
 * providers do. Text deltas are 4 characters; a tool call is start, 3 deltas, end.
 */
export function emitAnswer(
  script: Script,
  messages: readonly { role?: string }[],
  push: (event: any) => void,
): void {
  const last = messages[messages.length - 1];
  const toolTurn = script.tools > 0 && last?.role === "user";
  const message: any = {
    role: "assistant",
    content: [],
    api: FAUX_MODEL.api,
    provider: FAUX_MODEL.provider,
    model: FAUX_MODEL.id,
    usage: usage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  push({ type: "start", partial: message });
  if (toolTurn) {
    for (let index = 0; index < script.tools; index++) {
      const name = TOOL_NAMES[index % TOOL_NAMES.length]!;
      const toolCall = { type: "toolCall", id: `call_${++callCounter}`, name, arguments: {} as object };
      message.content.push(toolCall);
      push({ type: "toolcall_start", contentIndex: index, partial: message });
      push({ type: "toolcall_delta", contentIndex: index, delta: '{"path":', partial: message });
      push({ type: "toolcall_delta", contentIndex: index, delta: `"/tmp/f${index}"`, partial: message });
      push({ type: "toolcall_delta", contentIndex: index, delta: "}", partial: message });
      toolCall.arguments = { path: `/tmp/f${index}` };
      push({ type: "toolcall_end", contentIndex: index, toolCall, partial: message });
    }
    message.stopReason = "toolUse";
    push({ type: "done", reason: "toolUse", message });
    return;
  }
  const part = { type: "text", text: "" };
  message.content.push(part);
  push({ type: "text_start", contentIndex: 0, partial: message });
  for (let index = 0; index < script.deltas; index++) {
    part.text += DELTA;
    push({ type: "text_delta", contentIndex: 0, delta: DELTA, partial: message });
  }
  push({ type: "text_end", contentIndex: 0, content: part.text, partial: message });
  push({ type: "done", reason: "stop", message });
}

/** Text deltas a runner's subscriber should count for one prompt of this script. */
export function deltasPerPrompt(script: Script): number {
  return script.deltas;
}

/**
 * A prebuilt transcript of `count` messages (alternating user / assistant, ~140-character texts,
 * distinct strings per `seed`), in the pi-ai / agentchart message shape.
 */
export function buildHistory(count: number, seed: number): any[] {
  const messages: any[] = [];
  const pad =
    "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore";
  for (let index = 0; index < count; index++) {
    const text = `${seed}:${index} ${pad} ${index * 7 + seed}`;
    if (index % 2 === 0) messages.push({ role: "user", content: text, timestamp: 1_700_000_000_000 + index });
    else
      messages.push({
        role: "assistant",
        content: [{ type: "text", text }],
        api: FAUX_MODEL.api,
        provider: FAUX_MODEL.provider,
        model: FAUX_MODEL.id,
        usage: usage(),
        stopReason: "stop",
        timestamp: 1_700_000_000_000 + index,
      });
  }
  return messages;
}
