/**
 * The demo agent as an eval suite, for `agentchart eval examples/evals/demo.jsonl --agent
 * examples/evals/demo-suite.ts` (or `npm run cli -- eval …`): the demo's `ls` and `read` tools in this
 * repository, offline on the CLI's scripted model (it calls the tool the prompt names, then answers from
 * the result); with OPENAI_API_KEY (and OPENAI_BASE_URL for any OpenAI-compatible server) on that model.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OFFLINE_MODEL, offlineModel } from "../../src/cli/offline-model.js";
import {
  createScorer,
  type EvalSuite,
  entersBefore,
  statePath,
  trajectoryMatch,
  withinBudget,
} from "../../src/evals.js";
import { lsTool, readTool } from "../../src/node-tools.js";
import { openai } from "../../src/openai.js";
import type { Model } from "../../src/types/model.js";
import type { StreamFn } from "../../src/types/stream.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function chooseModel(): { model: Model; streamFn: StreamFn } {
  if (!process.env.OPENAI_API_KEY) return { model: OFFLINE_MODEL, streamFn: offlineModel() };
  const baseURL = process.env.OPENAI_BASE_URL;
  return {
    model: {
      id: process.env.AGENTCHART_MODEL ?? "gpt-4o-mini",
      api: "openai-chat",
      provider: "openai",
      baseUrl: baseURL,
      contextWindow: 128_000,
      maxTokens: 4_096,
    },
    streamFn: openai({ baseURL }),
  };
}

/** Every text of the case's `metadata.mentions` is in the final answer (the share found is the score). */
const mentions = createScorer({
  name: "mentions",
  score(run, evalCase) {
    const wanted = (evalCase.metadata?.mentions ?? []) as string[];
    if (wanted.length === 0) return null;
    const missing = wanted.filter((text) => !run.text.includes(text));
    return {
      score: (wanted.length - missing.length) / wanted.length,
      reason: missing.length === 0 ? "mentions everything" : `does not mention ${JSON.stringify(missing)}`,
    };
  },
});

const { model, streamFn } = chooseModel();

const suite: EvalSuite = {
  name: "demo agent",
  agent: () => ({
    model,
    streamFn,
    systemPrompt: "You explore a software project with the ls and read tools, then answer briefly.",
    tools: [lsTool, readTool],
    toolContext: { cwd: projectRoot },
  }),
  scorers: [
    trajectoryMatch({ mode: "strict", arguments: true }),
    mentions,
    statePath("each tool call is prepared before it runs", entersBefore("preparing", "executing")),
    withinBudget({ maxModelCalls: 3, maxToolCalls: 2 }),
  ],
};

export default suite;
