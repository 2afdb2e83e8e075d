// Cost of recording the streaming reply's deltas (`createWorker({ recordDeltas })`, agentchart/postgres):
// two workers in this process, one recording, one not, on two schemas of the same server, serve the same
// prompt in alternating rounds; the scripted model streams a reply of --deltas text deltas at once.
// Per round: the reply's streaming time in the worker (message_start → message_end), the time from
// submit until the session is idle, and the change notices the session sent (one per delta batch, plus
// the entries' and run states': the difference between the two variants is the number of batches).
// Run: npx tsx bench/reply-deltas.bench.ts [--deltas N] [--rounds R] [--delay-ms D]   (uses AGENTCHART_TEST_DATABASE_URL,
// or starts a throwaway cluster with .ci/with-postgres.sh; prints a markdown table)
import pg from "pg";
import type { Model } from "../src/index.js";
import { CHANGE_CHANNEL } from "../src/postgres/postgres-schema.js";
import { createClient, createWorker } from "../src/postgres.js";
import { scriptedModel } from "../src/testing.js";
import { fmt, median, table } from "./common.js";
import { postgresUrl } from "./postgres-server.js";

const url = postgresUrl(import.meta.url);
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const DELTAS = flag("--deltas", 2_000);
const ROUNDS = flag("--rounds", 8);
/** Delay before each event of the reply (0: the whole reply in one burst; 1+: paced like a model). */
const DELAY_MS = flag("--delay-ms", 0);
const model: Model = {
  id: "simulated",
  api: "scripted",
  provider: "bench",
  contextWindow: 1e6,
  maxTokens: 4_096,
};
const reply = "abcd".repeat(DELTAS); // DELTAS deltas of 4 characters

interface Variant {
  name: string;
  schema: string;
  stream: number[];
  total: number[];
  notices: number[];
}

const listener = new pg.Client({ connectionString: url });
await listener.connect();
await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
const notices = new Map<string, number>();
listener.on("notification", (notice) => {
  if (notice.payload) notices.set(notice.payload, (notices.get(notice.payload) ?? 0) + 1);
});

async function setUp(
  name: string,
  recordDeltas: boolean,
): Promise<{ variant: Variant; stop(): Promise<void> }> {
  const schema = `bench_deltas_${process.pid}_${recordDeltas ? "on" : "off"}`;
  const client = await createClient({ connectionString: url, schema });
  const variant: Variant = { name, schema, stream: [], total: [], notices: [] };
  let replyStarted = 0;
  const worker = await createWorker({
    connectionString: url,
    schema,
    concurrency: 1,
    handleSignals: false,
    recordDeltas,
    harness: () => ({
      model,
      streamFn: scriptedModel(Array.from({ length: 100 }, () => ({ text: reply, delayMs: DELAY_MS }))),
    }),
    onHarness: (harness) =>
      harness.events$.subscribe((event) => {
        if (event.type === "message_start" && event.message.role === "assistant")
          replyStarted = performance.now();
        if (event.type === "message_end" && event.message.role === "assistant")
          variant.stream.push(performance.now() - replyStarted);
      }),
  });
  const round = async (index: number) => {
    const sessionId = `s${index}`;
    const started = performance.now();
    const { afterSeq } = await client.submit(sessionId, "go", { cwd: "/bench" });
    await new Promise<void>((resolve, reject) => {
      const subscription = client.watch(sessionId, { afterSeq }).subscribe({
        next: (update) => {
          if (update.type === "run_state" && update.state === "idle") {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    variant.total.push(performance.now() - started);
    variant.notices.push(notices.get(`${schema}/${sessionId}`) ?? 0);
  };
  (variant as Variant & { round: typeof round }).round = round;
  return {
    variant,
    stop: async () => {
      await worker.stop();
      await client.close();
    },
  };
}

const off = await setUp("no recording", false);
const on = await setUp("recording deltas", true);
const runRound = (variant: Variant, index: number) =>
  (variant as Variant & { round: (index: number) => Promise<void> }).round(index);
// One warm-up round each, then alternating measured rounds (the order swaps every round).
await runRound(off.variant, 0);
await runRound(on.variant, 0);
for (const variant of [off.variant, on.variant]) {
  variant.stream = [];
  variant.total = [];
  variant.notices = [];
}
for (let i = 1; i <= ROUNDS; i++) {
  const order = i % 2 === 0 ? [off.variant, on.variant] : [on.variant, off.variant];
  for (const variant of order) await runRound(variant, i);
}
await on.stop();
await off.stop();
await listener.end();
const admin = new pg.Pool({ connectionString: url, max: 1 });
for (const variant of [off.variant, on.variant]) {
  await admin.query(`DROP SCHEMA IF EXISTS "${variant.schema}" CASCADE`);
  await admin.query(`DROP SCHEMA IF EXISTS "${variant.schema}_jobs" CASCADE`);
}
await admin.end();

const perDelta = (values: number[]) => (median(values) * 1000) / DELTAS;
const batches = median(on.variant.notices) - median(off.variant.notices);
const pace = DELAY_MS > 0 ? `${DELAY_MS} ms before each` : "all at once";
console.log(
  `\nOne reply of ${DELTAS} text deltas (${pace}) per round, ${ROUNDS} rounds per variant (medians):\n`,
);
console.log(
  table(
    ["variant", "reply streaming (ms)", "per delta (µs)", "submit → idle (ms)", "change notices"],
    [off.variant, on.variant].map((variant) => [
      variant.name,
      fmt(median(variant.stream)),
      fmt(perDelta(variant.stream)),
      fmt(median(variant.total)),
      fmt(median(variant.notices)),
    ]),
  ),
);
console.log(
  `\nRecording: +${fmt(perDelta(on.variant.stream) - perDelta(off.variant.stream))} µs per delta while streaming, ` +
    `+${fmt(perDelta(on.variant.total) - perDelta(off.variant.total))} µs per delta submit → idle; ` +
    `≈ ${fmt(batches)} batches for ${DELTAS} deltas (≈ ${fmt(DELTAS / Math.max(1, batches))} deltas per INSERT).`,
);
