/**
 * Cost per streamed delta of `fromAiSdk` (agentchart/ai-sdk) against the `openai()` provider.
 *
 * Both StreamFns read the same 5,000-chunk Chat Completions reply (one short text delta per chunk,
 * then a tool call whose JSON arguments arrive in 5,000 deltas) from a loopback server:
 * `openai()` decodes it itself, `fromAiSdk` through `@ai-sdk/openai`'s chat model. The AI SDK's
 * own `doStream` read by an empty loop is the floor of the adapter, and the ratio column compares
 * the adapter with `openai()`. A last pair replays Anthropic's recorded stream
 * (`test/fixtures/provider-streams/anthropic-text.sse`) with its text delta event repeated 5,000
 * times, through `@ai-sdk/anthropic`: its floor and `fromAiSdk`. Every event is consumed. Runs
 * alternate; the table shows the median of the measured runs. Run: `npx tsx bench/ai-sdk.bench.ts [runs]`.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { fromAiSdk } from "../src/ai-sdk.js";
import { openai } from "../src/openai.js";
import type { LlmContext } from "../src/types/stream.js";
import { chatModel } from "../test/support/openai-fixtures.js";
import { OpenAITestServer } from "../test/support/openai-server.js";
import { recordedBody } from "../test/support/provider-streams.js";
import { median } from "./common.js";
import { textReplyBody, writeCallReplyBody } from "./openai-reply-bodies.js";

const CHUNKS = 5_000;
const WARMUP = 3;
const RUNS = Number(process.argv[2] ?? 9);

/** anthropic-text.sse with its second text delta event repeated until the reply has CHUNKS deltas. */
function anthropicBody(): string {
  const events = recordedBody("anthropic-text.sse").split("\n\n");
  const delta = events.findIndex((event) => event.includes('"text_delta"'));
  const repeated = Array<string>(CHUNKS).fill(events[delta + 1]!);
  return [...events.slice(0, delta), ...repeated, ...events.slice(delta + 6)].join("\n\n");
}

type Variant = {
  name: string;
  body: Buffer;
  run: () => Promise<number>;
  floor?: boolean;
  baseline?: boolean;
};

async function main(): Promise<void> {
  const server = await OpenAITestServer.start({ anyPath: true });
  const model = chatModel({ id: "gpt-test" });
  const context: LlmContext = {
    systemPrompt: "",
    messages: [{ role: "user", content: "go", timestamp: 0 }],
    tools: [],
  };
  const viaOpenAI = openai({ baseURL: server.baseURL, apiKey: "bench", maxRetries: 0 });
  const chatLanguageModel = createOpenAI({ baseURL: server.baseURL, apiKey: "bench" }).chat("gpt-test");
  const viaAiSdk = fromAiSdk(chatLanguageModel, { maxRetries: 0 });
  const claude = createAnthropic({ baseURL: server.baseURL, apiKey: "bench" })("claude-sonnet-4-5");
  const viaAnthropic = fromAiSdk(claude, { maxRetries: 0 });

  const send = (body: Buffer) => server.enqueue({ kind: "stream", pieces: [body] });
  /** The AI SDK model's own stream, read by an empty loop. */
  const floor = (languageModel: LanguageModelV3, body: Buffer) => async () => {
    send(body);
    const start = performance.now();
    const { stream } = await languageModel.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    });
    const reader = stream.getReader();
    while (!(await reader.read()).done) {
      // the floor: decode and drop
    }
    return performance.now() - start;
  };
  /** Every event of a StreamFn. */
  const consume =
    (
      streamFn: (m: typeof model, c: LlmContext) => AsyncIterable<{ type: string }>,
      body: Buffer,
      m = model,
    ) =>
    async () => {
      send(body);
      const start = performance.now();
      let events = 0;
      let last = "";
      for await (const event of streamFn(m, context)) {
        events++;
        last = event.type;
      }
      const elapsed = performance.now() - start;
      if (last !== "done" || events < CHUNKS)
        throw new Error(`unexpected stream end: ${last} after ${events} events`);
      return elapsed;
    };

  const text = Buffer.from(textReplyBody(CHUNKS));
  const toolCall = Buffer.from(writeCallReplyBody(CHUNKS));
  const anthropic = Buffer.from(anthropicBody());
  const variants: Variant[] = [
    { name: "text: openai() StreamFn", body: text, run: consume(viaOpenAI, text), baseline: true },
    {
      name: "text: @ai-sdk/openai doStream (floor)",
      body: text,
      run: floor(chatLanguageModel, text),
      floor: true,
    },
    { name: "text: fromAiSdk(@ai-sdk/openai)", body: text, run: consume(viaAiSdk.streamFn, text) },
    {
      name: "tool call: openai() StreamFn",
      body: toolCall,
      run: consume(viaOpenAI, toolCall),
      baseline: true,
    },
    {
      name: "tool call: @ai-sdk/openai doStream (floor)",
      body: toolCall,
      run: floor(chatLanguageModel, toolCall),
      floor: true,
    },
    {
      name: "tool call: fromAiSdk(@ai-sdk/openai)",
      body: toolCall,
      run: consume(viaAiSdk.streamFn, toolCall),
    },
    {
      name: "Anthropic recorded text: @ai-sdk/anthropic doStream (floor)",
      body: anthropic,
      run: floor(claude, anthropic),
      floor: true,
    },
    {
      name: "Anthropic recorded text: fromAiSdk(@ai-sdk/anthropic)",
      body: anthropic,
      run: consume(viaAnthropic.streamFn, anthropic, viaAnthropic.model),
    },
  ];
  for (let i = 0; i < WARMUP; i++) for (const variant of variants) await variant.run();
  const times = variants.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    for (let v = 0; v < variants.length; v++) times[v]!.push(await variants[v]!.run());
  }
  await server.close();

  console.log(
    `fromAiSdk vs openai(), ${CHUNKS} deltas per reply, median of ${RUNS} runs (Node ${process.version})\n`,
  );
  console.log("| path | ms per reply | µs per delta | ratio to openai() | ratio to its floor |");
  console.log("|---|---:|---:|---:|---:|");
  let baselineMs = 0;
  let floorMs = 0;
  for (let v = 0; v < variants.length; v++) {
    const variant = variants[v]!;
    const ms = median(times[v]!);
    if (variant.baseline) baselineMs = ms;
    if (variant.floor) floorMs = ms;
    const perDelta = ((ms / CHUNKS) * 1000).toFixed(2);
    const toBaseline = variant.name.startsWith("Anthropic") ? "—" : `${(ms / baselineMs).toFixed(2)}×`;
    const toFloor = variant.baseline || variant.floor ? "—" : `${(ms / floorMs).toFixed(2)}×`;
    console.log(`| ${variant.name} | ${ms.toFixed(1)} | ${perDelta} | ${toBaseline} | ${toFloor} |`);
  }
}

await main();
