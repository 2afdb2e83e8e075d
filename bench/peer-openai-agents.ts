// OpenAI Agents JS (`@openai/agents-core` 0.14.3) as a loop-bench runner: `Runner.run(agent, input,
// { stream: true })` over a custom `Model` whose `getStreamedResponse` turns the shared faux's answer
// into the SDK's stream events (`output_text_delta`, then `response_done` carrying the output items),
// all produced after one microtask. Tracing is off (`tracingDisabled`, no trace processors).
import { z } from "zod";

import { emitAnswer, type Script, TOOL_NAMES } from "./faux.js";
import type { Runner } from "./loop-runners.js";
import { importPeer } from "./peer-modules.js";

export const OPENAI_AGENTS = "OpenAI Agents Runner";

interface StreamedRun extends AsyncIterable<{ type: string; data?: { type?: string } }> {
  completed: Promise<void>;
  history: unknown[];
}

interface AgentsCoreModule {
  Agent: new (config: any) => unknown;
  Runner: new (
    config: any,
  ) => {
    run(agent: unknown, input: unknown[], options: { stream: true }): Promise<StreamedRun>;
  };
  tool: (definition: any) => unknown;
  setTraceProcessors: (processors: unknown[]) => void;
}

const usage = { inputTokens: 10, outputTokens: 20, totalTokens: 30 };
let responseCounter = 0;

/** The faux's answer to `input` as the SDK's model stream events. */
function streamEvents(script: Script, input: string | { role?: string }[]): unknown[] {
  const items = typeof input === "string" ? [{ role: "user" }] : input;
  const events: unknown[] = [];
  emitAnswer(script, items, (event) => {
    if (event.type === "start") events.push({ type: "response_started" });
    else if (event.type === "text_delta") events.push({ type: "output_text_delta", delta: event.delta });
    else if (event.type === "done") {
      const message = event.message;
      const output =
        event.reason === "toolUse"
          ? message.content.map((call: any) => ({
              type: "function_call",
              callId: call.id,
              name: call.name,
              arguments: JSON.stringify(call.arguments),
              status: "completed",
            }))
          : [
              {
                type: "message",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: message.content[0].text }],
              },
            ];
      events.push({ type: "response_done", response: { id: `resp_${++responseCounter}`, usage, output } });
    }
  });
  return events;
}

/** A custom `Model` streaming the faux's next answer. */
function fauxModel(script: Script) {
  return {
    getResponse: () => Promise.reject(new Error("the bench only streams")),
    async *getStreamedResponse(request: { input: string | { role?: string }[] }) {
      await undefined; // the whole answer arrives in one microtask, as for every runner
      yield* streamEvents(script, request.input);
    },
  };
}

/**
 * The OpenAI Agents runner: a fresh `Agent` per agent, one `Runner` (tracing disabled), the
 * conversation kept as the run's `history` items, the streamed run's events as the one subscriber.
 * Contract: async (loads `@openai/agents-core` from bench/node_modules); rejects when it is missing.
 */
export async function openAiAgentsRunner(): Promise<Runner> {
  const core = (await importPeer("@openai/agents-core")) as AgentsCoreModule;
  core.setTraceProcessors([]);
  const runner = new core.Runner({ tracingDisabled: true });
  const tools = TOOL_NAMES.map((name) =>
    core.tool({
      name,
      description: `The ${name} tool`,
      parameters: z.object({ path: z.string() }),
      execute: async () => "ok",
    }),
  );
  return {
    name: OPENAI_AGENTS,
    // user item, then (one function_call and one function_call_result item per call), assistant message
    messagesPerPrompt: (script) => 2 + 2 * script.tools,
    create({ script, history, onTextDelta }) {
      if (history?.length) throw new Error(`${OPENAI_AGENTS}: prebuilt histories are not supported`);
      const agent = new core.Agent({ name: "bench", instructions: "", model: fauxModel(script), tools });
      let items: unknown[] = [];
      return {
        async prompt(text) {
          const result = await runner.run(agent, [...items, { role: "user", content: text }], {
            stream: true,
          });
          for await (const event of result)
            if (event.type === "raw_model_stream_event" && event.data?.type === "output_text_delta")
              onTextDelta();
          await result.completed;
          items = result.history;
        },
        messageCount: () => items.length,
      };
    },
  };
}
