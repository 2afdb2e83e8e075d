// LangGraph.js (`@langchain/langgraph` 1.7.3 + `@langchain/core` 1.4.0) as a loop-bench runner:
// `createReactAgent` over a fake tool-calling chat model whose `_streamResponseChunks` turns the shared
// faux's answer into `AIMessageChunk`s (text, or `tool_call_chunks`) and reports each one through
// `handleLLMNewToken`, as LangChain's provider models do; all chunks follow one microtask.
//
// The graph is compiled once per script and reused: a compiled graph is a stateless template, and an
// "agent" (one conversation) is the message list passed to it, which is how LangGraph apps serve many
// conversations. Text deltas are counted on `streamMode: "messages"`; the conversation is the last
// `"values"` state. LangChain's background callbacks are turned off: with them on, concurrent graphs
// streaming "messages" lose tokens (bench/../PACKAGE-NOTES), and the delta check would fail.
import { z } from "zod";

import { emitAnswer, type Script, TOOL_NAMES } from "./faux.js";
import type { Runner } from "./loop-runners.js";
import { importPeer } from "./peer-modules.js";

export const LANGGRAPH = "LangGraph createReactAgent";

interface LangChainMessage {
  content: unknown;
  getType(): string;
}

interface ReactAgentGraph {
  stream(
    input: { messages: unknown[] },
    options: { streamMode: string[] },
  ): Promise<AsyncIterable<[string, any]>>;
}

interface LangGraphModules {
  createReactAgent: (params: { llm: unknown; tools: unknown[] }) => ReactAgentGraph;
  BaseChatModel: new (fields: object) => object;
  AIMessageChunk: (new (fields: object) => LangChainMessage) & { isInstance(value: unknown): boolean };
  HumanMessage: new (content: string) => LangChainMessage;
  ChatGenerationChunk: new (fields: { text: string; message: LangChainMessage }) => unknown;
  tool: (execute: () => Promise<string>, fields: object) => unknown;
}

async function loadLangGraph(): Promise<LangGraphModules> {
  process.env.LANGCHAIN_CALLBACKS_BACKGROUND = "false";
  const [prebuilt, chatModels, messages, outputs, tools] = await Promise.all([
    importPeer("@langchain/langgraph/prebuilt"),
    importPeer("@langchain/core/language_models/chat_models"),
    importPeer("@langchain/core/messages"),
    importPeer("@langchain/core/outputs"),
    importPeer("@langchain/core/tools"),
  ]);
  return {
    createReactAgent: prebuilt.createReactAgent,
    BaseChatModel: chatModels.BaseChatModel,
    AIMessageChunk: messages.AIMessageChunk,
    HumanMessage: messages.HumanMessage,
    ChatGenerationChunk: outputs.ChatGenerationChunk,
    tool: tools.tool,
  };
}

/** The faux's answer to `messages` as LangChain message chunks. */
function answerChunks(lc: LangGraphModules, script: Script, messages: LangChainMessage[]): unknown[] {
  const roles = messages.map((message) => ({ role: message.getType() === "human" ? "user" : "other" }));
  const chunks: unknown[] = [];
  const push = (text: string, fields: object) =>
    chunks.push(new lc.ChatGenerationChunk({ text, message: new lc.AIMessageChunk(fields) }));
  emitAnswer(script, roles, (event) => {
    if (event.type === "text_delta") push(event.delta, { content: event.delta });
    else if (event.type === "toolcall_start") {
      const call = event.partial.content[event.contentIndex];
      push("", {
        content: "",
        tool_call_chunks: [
          { type: "tool_call_chunk", id: call.id, name: call.name, args: "", index: event.contentIndex },
        ],
      });
    } else if (event.type === "toolcall_delta")
      push("", {
        content: "",
        tool_call_chunks: [{ type: "tool_call_chunk", args: event.delta, index: event.contentIndex }],
      });
    else if (event.type === "done")
      push("", {
        content: "",
        usage_metadata: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
        response_metadata: { finish_reason: event.reason === "toolUse" ? "tool_calls" : "stop" },
      });
  });
  return chunks;
}

/** A chat model class streaming the faux's answers (tools are bound by the graph, ignored here). */
function fauxChatModelClass(lc: LangGraphModules) {
  const Base = lc.BaseChatModel as new (fields: object) => any;
  return class FauxChatModel extends Base {
    readonly script: Script;
    constructor(script: Script) {
      super({});
      this.script = script;
    }
    _llmType() {
      return "faux";
    }
    bindTools() {
      return this;
    }
    _generate(): Promise<never> {
      return Promise.reject(new Error("the bench only streams"));
    }
    async *_streamResponseChunks(
      messages: LangChainMessage[],
      _options: unknown,
      runManager?: { handleLLMNewToken(...args: unknown[]): Promise<void> },
    ) {
      await undefined; // the whole answer arrives in one microtask, as for every runner
      for (const chunk of answerChunks(lc, this.script, messages)) {
        yield chunk;
        await runManager?.handleLLMNewToken(
          (chunk as { text: string }).text,
          undefined,
          undefined,
          undefined,
          undefined,
          {
            chunk,
          },
        );
      }
    }
  };
}

/**
 * The LangGraph runner: one compiled `createReactAgent` graph per script, one message list per agent,
 * `streamMode: ["messages", "values"]` read by the one subscriber (text chunks of the model counted).
 * Contract: async (loads LangGraph and LangChain core from bench/node_modules); rejects when missing.
 */
export async function langGraphRunner(): Promise<Runner> {
  const lc = await loadLangGraph();
  const FauxChatModel = fauxChatModelClass(lc);
  const tools = TOOL_NAMES.map((name) =>
    lc.tool(async () => "ok", {
      name,
      description: `The ${name} tool`,
      schema: z.object({ path: z.string() }),
    }),
  );
  const graphs = new Map<string, ReactAgentGraph>();
  const graphFor = (script: Script) => {
    const key = `${script.tools}/${script.deltas}`;
    let graph = graphs.get(key);
    if (!graph) {
      graph = lc.createReactAgent({ llm: new FauxChatModel(script), tools });
      graphs.set(key, graph);
    }
    return graph;
  };
  const isTextChunk = (message: LangChainMessage) =>
    lc.AIMessageChunk.isInstance(message) && typeof message.content === "string" && message.content !== "";
  return {
    name: LANGGRAPH,
    // human, then (AI message with the tool calls, one tool message per call), AI message
    messagesPerPrompt: (script) => 2 + (script.tools > 0 ? 1 + script.tools : 0),
    create({ script, history, onTextDelta }) {
      if (history?.length) throw new Error(`${LANGGRAPH}: prebuilt histories are not supported`);
      const graph = graphFor(script);
      let messages: unknown[] = [];
      return {
        async prompt(text) {
          const stream = await graph.stream(
            { messages: [...messages, new lc.HumanMessage(text)] },
            { streamMode: ["messages", "values"] },
          );
          for await (const [mode, payload] of stream) {
            if (mode === "messages") {
              if (isTextChunk(payload[0])) onTextDelta();
            } else messages = payload.messages;
          }
        },
        messageCount: () => messages.length,
      };
    },
  };
}
