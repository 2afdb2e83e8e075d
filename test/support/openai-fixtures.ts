import type { Message, UserMessage } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";
import type { LlmContext } from "../../src/types/stream.js";

/**
 * Scripted stream sequences modelled on what real servers send (shapes from their public docs,
 * contents made up). Chunk objects are built by small helpers so each sequence reads as a story.
 */

/** A chat model with prices, so cost can be asserted. */
export function chatModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "gpt-test",
    api: "openai-chat",
    provider: "openai",
    contextWindow: 128_000,
    maxTokens: 16_384,
    input: ["text", "image"],
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    ...overrides,
  };
}

let sequence = 0;
/** One `chat.completion.chunk` with a single choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return {
    id: `chatcmpl-${++sequence}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

/** The trailing usage chunk OpenAI sends with `stream_options.include_usage` (no choices). */
export function usageChunk(prompt: number, completion: number, cached = 0): Record<string, unknown> {
  return {
    id: `chatcmpl-${++sequence}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached },
    },
  };
}

/** OpenAI: a short text, then two tool calls whose argument deltas interleave, then usage. */
export function openAiToolCallChunks(): Record<string, unknown>[] {
  return [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: "Checking both " }),
    chunk({ content: "cities." }),
    chunk({
      tool_calls: [
        { index: 0, id: "call_paris", type: "function", function: { name: "weather", arguments: "" } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    chunk({
      tool_calls: [
        { index: 1, id: "call_rome", type: "function", function: { name: "weather", arguments: '{"ci' } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: 'ty":"Rome","unit":"C"}' } }] }),
    chunk({}, "tool_calls"),
    usageChunk(1200, 40, 1000),
  ];
}

/** Ollama: reasoning in the `reasoning` delta field, then the answer; usage rides on its own chunk. */
export function ollamaReasoningChunks(): Record<string, unknown>[] {
  return [
    chunk({ role: "assistant", content: "", reasoning: "The user wants " }),
    chunk({ content: "", reasoning: "a greeting." }),
    chunk({ content: "Hello" }),
    chunk({ content: " there!" }),
    chunk({ content: "" }, "stop"),
    usageChunk(30, 12),
  ];
}

/** llama.cpp / vLLM: reasoning in `reasoning_content`, multi-byte text, finish without usage. */
export function llamaCppReasoningChunks(): Record<string, unknown>[] {
  return [
    chunk({ role: "assistant", content: null, reasoning_content: "Think about café ☕ " }),
    chunk({ content: null, reasoning_content: "and 日本語." }),
    chunk({ content: "Naïve answer: " }),
    chunk({ content: "日本語 ☕ ok" }),
    chunk({}, "stop"),
  ];
}

/** vLLM-style tool call: id and name only in the first chunk; the arguments trickle in later. */
export function vllmToolCallChunks(): Record<string, unknown>[] {
  return [
    chunk({ role: "assistant", content: null }),
    chunk({
      tool_calls: [{ index: 0, id: "chatcmpl-tool-1", type: "function", function: { name: "read_file" } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path": ' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"src/é.ts"}' } }] }),
    chunk({}, "tool_calls"),
    usageChunk(88, 19),
  ];
}

let responseSequence = 0;
function responseObject(
  status: "in_progress" | "completed" | "incomplete" | "failed",
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "resp_test",
    object: "response",
    created_at: 1_700_000_000,
    model: "gpt-test",
    status,
    output: [],
    error: null,
    incomplete_details: null,
    usage: null,
    ...extra,
  };
}

function responseEvent(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { type, sequence_number: ++responseSequence, ...fields };
}

/** The Responses API: a reasoning summary in two parts, a message, one function call, usage. */
export function responsesEvents(): Record<string, unknown>[] {
  const call = {
    type: "function_call",
    id: "fc_1",
    call_id: "call_sum",
    name: "add",
    arguments: "",
    status: "in_progress",
  };
  return [
    responseEvent("response.created", { response: responseObject("in_progress") }),
    responseEvent("response.output_item.added", {
      output_index: 0,
      item: { type: "reasoning", id: "rs_1", summary: [] },
    }),
    responseEvent("response.reasoning_summary_part.added", {
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    }),
    responseEvent("response.reasoning_summary_text.delta", {
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      delta: "Adding numbers.",
    }),
    responseEvent("response.reasoning_summary_text.delta", {
      item_id: "rs_1",
      output_index: 0,
      summary_index: 1,
      delta: "Use the tool.",
    }),
    responseEvent("response.output_item.done", {
      output_index: 0,
      item: { type: "reasoning", id: "rs_1", summary: [] },
    }),
    responseEvent("response.output_item.added", {
      output_index: 1,
      item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
    }),
    responseEvent("response.output_text.delta", {
      item_id: "msg_1",
      output_index: 1,
      content_index: 0,
      delta: "Let me add ",
      logprobs: [],
    }),
    responseEvent("response.output_text.delta", {
      item_id: "msg_1",
      output_index: 1,
      content_index: 0,
      delta: "them — ✓",
      logprobs: [],
    }),
    responseEvent("response.output_item.done", {
      output_index: 1,
      item: { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [] },
    }),
    responseEvent("response.output_item.added", { output_index: 2, item: call }),
    responseEvent("response.function_call_arguments.delta", {
      item_id: "fc_1",
      output_index: 2,
      delta: '{"a":2,',
    }),
    responseEvent("response.function_call_arguments.delta", {
      item_id: "fc_1",
      output_index: 2,
      delta: '"b":3}',
    }),
    responseEvent("response.output_item.done", {
      output_index: 2,
      item: { ...call, arguments: '{"a":2,"b":3}', status: "completed" },
    }),
    responseEvent("response.completed", {
      response: responseObject("completed", {
        usage: {
          input_tokens: 500,
          input_tokens_details: { cached_tokens: 100 },
          output_tokens: 60,
          output_tokens_details: { reasoning_tokens: 20 },
          total_tokens: 560,
        },
      }),
    }),
  ];
}

/** A Responses stream cut by `max_output_tokens`. */
export function responsesIncompleteEvents(): Record<string, unknown>[] {
  return [
    responseEvent("response.created", { response: responseObject("in_progress") }),
    responseEvent("response.output_text.delta", {
      item_id: "msg_2",
      output_index: 0,
      content_index: 0,
      delta: "Once upon",
    }),
    responseEvent("response.incomplete", {
      response: responseObject("incomplete", { incomplete_details: { reason: "max_output_tokens" } }),
    }),
  ];
}

/** A user message for provider tests. */
export const user = (content: UserMessage["content"]): Message => ({ role: "user", content, timestamp: 1 });

/** A provider request context: a terse system prompt, the messages, no tools unless given. */
export const context = (messages: Message[] = [user("hi")], extra: Partial<LlmContext> = {}): LlmContext => ({
  systemPrompt: "You are terse.",
  messages,
  tools: [],
  ...extra,
});
