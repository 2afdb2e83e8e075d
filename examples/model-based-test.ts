/**
 * Model-based testing of your agent with the kit of `agentchart/testing`.
 *
 * The agent under test: a payments assistant with two tools — `lookup` (runs at once) and `charge`
 * (needs a human's approval) — and an output guardrail that withholds replies mentioning a password.
 * Its model is scripted: the first reply calls both tools, the second answers in text.
 *
 * `createAgentTestModel` builds the abstract model of what can happen from outside — the prompt, each
 * reply or a model error, the guardrail's verdict, approving or denying `charge`, each tool finishing
 * or throwing, an abort in every state (steering and follow-up messages are switched off here) — and generates its paths with
 * xstate/graph: the shortest path to every state, then every complete run. Each path drives the real
 * agent machine; after every step the kit checks that the agent is where the model says, the
 * built-in invariants (every call answered once, no tool before its approval, no text before the
 * guardrail passed, a transcript valid for the provider, the run ends), the invariant of this file
 * (one charge per run at most), and that the agent persisted and restored there goes on the same
 * way. In a vitest file, `testAgentPaths(model, test)` makes each path its own test.
 *
 *   npx tsx examples/model-based-test.ts
 */
import { z } from "zod";
import { defineTool, type Guardrail } from "../src/index.js";
import { createAgentTestModel, formatAgentTestCoverage } from "../src/testing.js";

const charged: number[] = [];
const charge = defineTool({
  name: "charge",
  description: "Charges the customer's card",
  parameters: z.object({ amount: z.number() }),
  requiresApproval: true,
  execute: async ({ amount }) => {
    charged.push(amount);
    return { content: [{ type: "text", text: `charged ${amount}` }] };
  },
});
const lookup = defineTool({
  name: "lookup",
  description: "Looks up the customer's balance",
  parameters: z.object({ customer: z.string() }),
  execute: async ({ customer }) => ({ content: [{ type: "text", text: `${customer}: 40 EUR` }] }),
});
const noPasswords: Guardrail = {
  name: "no-passwords",
  check: ({ text }) => ({ tripwire: /password/i.test(text), reason: "mentions a password" }),
};

const model = createAgentTestModel({
  agent: { tools: [charge, lookup], guardrails: { output: [noPasswords] } },
  script: [
    {
      text: "Let me check and charge.",
      toolCalls: [
        { name: "lookup", arguments: { customer: "ada" } },
        { name: "charge", arguments: { amount: 5 } },
      ],
    },
    { text: "Done: charged 5 EUR." },
  ],
  explore: { steer: false, followUp: false },
  invariants: [
    {
      name: "one charge per run at most",
      check: ({ executions }) =>
        executions.filter((run) => run.toolName === "charge").length > 1 ? "charged twice" : undefined,
    },
  ],
});

const { paths, exceeded } = model.explore();
let passed = 0;
for (const path of paths) {
  try {
    await model.runPath(path);
    passed++;
    console.log(`✓ ${path.name}`);
  } catch (error) {
    console.log(`✗ ${path.name}\n    ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(`${passed}/${paths.length} paths passed${exceeded ? " (the exploration hit its bounds)" : ""}`);
console.log(`charges made along the way: ${charged.length}`);
console.log(formatAgentTestCoverage(model.coverage()));
if (passed !== paths.length || exceeded) process.exitCode = 1;
