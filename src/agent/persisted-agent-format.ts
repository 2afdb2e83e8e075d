import { z } from "zod";

// The persisted agent format (`agentchart.agent`) as a contract: a zod schema of what `persist()`
// writes, the state values it may hold listed one by one, and a migration for every older version.
// Renaming a state of `agentMachine` or `toolCallMachine`, or changing the context's shape, is a
// version bump here with a migration of the versions before it (test/agent/persisted-format.test.ts
// restores the snapshots 0.2.0 wrote, in test/fixtures/persisted/0.2.0/).

/** The versions this agentchart reads; the last one is what it writes. */
export const SUPPORTED_AGENT_SNAPSHOT_VERSIONS = [1, 2, 3, 4, 5] as const;

/** Every state value of the agent actor a snapshot may hold (version 5: a run's states are `running`'s). */
export const AGENT_STATE_VALUES = [
  "idle",
  { running: { preparingTurn: "deciding" } },
  { running: { preparingTurn: "injecting" } },
  { running: { preparingTurn: "checkingInput" } },
  { running: { preparingTurn: "reserving" } },
  { running: { preparingTurn: "budgetExceeded" } },
  { running: { streaming: "released" } },
  { running: { streaming: "held" } },
  { running: { streaming: "checking" } },
  { running: "validatingOutput" },
  { running: { executingTools: "working" } },
  { running: { executingTools: "awaitingHuman" } },
  { running: { executingTools: "budgetExceeded" } },
] as const;

/**
 * Every state value of a tool-call child a snapshot may hold (versions 2 to 4; the agent tools'
 * `startingAgent`, `delegating` and `collecting` since 4); `settled` calls are not kept.
 */
export const TOOL_CALL_STATE_VALUES = [
  { preparing: "validating" },
  { preparing: "checkingHook" },
  { preparing: "ready" },
  "awaitingApproval",
  "awaitingClient",
  "executing",
  "startingAgent",
  "delegating",
  "collecting",
  "finalizing",
] as const;

type StateValue = string | { readonly [key: string]: StateValue };

const stateValueSchema = (value: StateValue): z.ZodType =>
  typeof value === "string"
    ? z.literal(value)
    : z.object(
        Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, stateValueSchema(inner)])),
      );

const stateValue = (values: readonly StateValue[]) =>
  z.union(values.map(stateValueSchema) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);

const message = z
  .object({ role: z.string() })
  .passthrough()
  .refine((m) => m.role !== "assistant" || Array.isArray((m as { content?: unknown }).content), {
    message: "an assistant message needs a content array",
  });

const toolCall = z.object({ type: z.literal("toolCall"), id: z.string(), name: z.string() }).passthrough();

const toolCallContext = z
  .object({
    toolCall,
    assistantMessage: message,
    idempotencyKey: z.string(),
    agent: z
      .object({ agentId: z.string(), systemPrompt: z.string(), path: z.array(z.string()) })
      .passthrough(),
    approved: z.boolean().optional(),
    needsApproval: z.boolean(),
    client: z.boolean(),
    afterHook: z.boolean(),
  })
  .passthrough();

const toolBatch = z
  .object({
    message,
    calls: z.array(toolCall),
    sequential: z.boolean(),
    phases: z.record(z.string(), z.enum(["pending", "preparing", "prepared", "executing", "settled"])),
    outcomes: z.record(z.string(), z.unknown()),
    results: z.array(message),
    pollingSteering: z.boolean(),
    approved: z.array(z.string()),
  })
  .passthrough();

const runState = z
  .object({
    newMessages: z.array(message),
    inbox: z.array(z.object({ message }).passthrough()),
    turns: z.number(),
    turnOpen: z.boolean(),
    batch: toolBatch.optional(),
    toolsWantReply: z.boolean(),
    steeringSpent: z.boolean(),
    failure: z.string().optional(),
    output: z
      .object({
        request: z.object({
          name: z.string(),
          schema: z.record(z.string(), z.unknown()),
          strict: z.boolean(),
        }),
        wrapped: z.boolean(),
        maxRepairs: z.number(),
        repairs: z.number(),
        accepted: z.boolean(),
      })
      .passthrough()
      .optional(),
    inputCheck: z.enum(["blocking", "parallel"]).optional(),
    heldReply: z.object({ message, sequential: z.boolean(), events: z.array(z.unknown()) }).optional(),
  })
  .passthrough();

const agentContext = z
  .object({
    agentId: z.string(),
    systemPrompt: z.string(),
    model: z.object({ id: z.string() }).passthrough(),
    thinkingLevel: z.string(),
    toolNames: z.array(z.string()),
    messages: z.array(message),
    steering: z.array(message),
    followUp: z.array(message),
    settings: z.object({ toolExecution: z.string(), steering: z.string() }).passthrough(),
    streamOptions: z.record(z.string(), z.unknown()),
    guardrails: z.object({
      input: z.array(z.object({ name: z.string(), mode: z.enum(["blocking", "parallel"]) })),
      output: z.array(z.string()),
    }),
    run: runState.optional(),
  })
  .passthrough();

const child = z
  .object({
    src: z.literal("toolCall"),
    snapshot: z
      .object({
        status: z.literal("active"),
        value: stateValue(TOOL_CALL_STATE_VALUES),
        context: toolCallContext,
        // A call of an agent tool that is `delegating`: its child agent, persisted the same way.
        get children() {
          return z.object({ agent: subAgent.optional() }).optional();
        },
      })
      .passthrough(),
  })
  .passthrough();

const subAgent = z
  .object({
    src: z.literal("subAgent"),
    get snapshot() {
      return persistedAgentMachineSchema;
    },
  })
  .passthrough();

/** The schema of a version-5 persisted agent's `snapshot` (XState's persisted snapshot, step actors left out). */
export const persistedAgentMachineSchema = z
  .object({
    status: z.literal("active"),
    value: stateValue(AGENT_STATE_VALUES),
    context: agentContext,
    children: z.record(z.string(), child),
  })
  .passthrough();

/** A readable list of what a zod check found: `path: message` per issue. */
export function issuesText(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

type Json = Record<string, unknown>;

/**
 * Version 1 (agentchart 0.2.0) → 2: `preparingTurn.awaitingCallbacks` became `preparingTurn.deciding`
 * (the callbacks run in an actor the restore re-invokes); the run gained `failure`, tool batches
 * `approved`; tool-call children gained `client` and `afterHook` (true: the finalizing actor is a no-op
 * when no hook is set) and their `finalizing.*` sub-states became one `finalizing`.
 *
 * Contract: pure; returns a new object; never throws (a malformed input is left to the schema).
 */
export function migrateV1toV2(snapshot: Json): Json {
  const value = snapshot.value as unknown;
  const migratedValue =
    typeof value === "object" && value !== null && (value as Json).preparingTurn === "awaitingCallbacks"
      ? { preparingTurn: "deciding" }
      : value;
  const context = (snapshot.context ?? {}) as Json;
  const run = context.run as Json | undefined;
  const batch = run?.batch as Json | undefined;
  const children: Json = {};
  for (const [id, entry] of Object.entries((snapshot.children ?? {}) as Record<string, Json>)) {
    const childSnapshot = (entry.snapshot ?? {}) as Json;
    const childValue = childSnapshot.value;
    children[id] = {
      ...entry,
      snapshot: {
        ...childSnapshot,
        value:
          typeof childValue === "object" && childValue !== null && "finalizing" in childValue
            ? "finalizing"
            : childValue,
        context: { client: false, afterHook: true, ...((childSnapshot.context ?? {}) as Json) },
      },
    };
  }
  return {
    ...snapshot,
    value: migratedValue,
    context: {
      ...context,
      run: run && {
        failure: undefined,
        ...run,
        batch: batch && { approved: [], ...batch },
      },
    },
    children,
  };
}

/**
 * Version 2 (agentchart 0.3.0 before typed output) → 3: `streaming` became a compound state
 * (`released`, `held`, `checking`; a version-2 stream was always released) and the context gained
 * `guardrails` (none).
 *
 * Contract: pure; returns a new object; never throws (a malformed input is left to the schema).
 */
export function migrateV2toV3(snapshot: Json): Json {
  const context = (snapshot.context ?? {}) as Json;
  return {
    ...snapshot,
    value: snapshot.value === "streaming" ? { streaming: "released" } : snapshot.value,
    context: { guardrails: { input: [], output: [] }, ...context },
  };
}

/**
 * Version 4 (agentchart 0.3.0) → 5 (the statechart as the contract): a run's states moved into the
 * compound `running`, `executingTools` has `working` and `awaitingHuman` (its batch lists the calls
 * waiting for a person or the client); a tool call's context holds what its hooks see of its agent (`agent`), a
 * sub-agent's context its place in the tree (`place`), a held reply its events (none: 0.3.0 kept them
 * in memory only). Applies to the nested sub-agents too.
 *
 * Contract: pure; returns a new object; never throws (a malformed input is left to the schema).
 */
export function migrateV4toV5(snapshot: Json, path: string[] = []): Json {
  const value = snapshot.value;
  const context = (snapshot.context ?? {}) as Json;
  const run = context.run as Json | undefined;
  const heldReply = run?.heldReply as Json | undefined;
  const calling = {
    systemPrompt: context.systemPrompt,
    messages: context.messages,
    toolNames: context.toolNames,
    agentId: context.agentId,
    model: context.model,
    path,
  };
  const children: Json = {};
  const waiting: string[] = [];
  for (const [id, entry] of Object.entries((snapshot.children ?? {}) as Record<string, Json>)) {
    const callSnapshot = (entry.snapshot ?? {}) as Json;
    if (callSnapshot.value === "awaitingApproval" || callSnapshot.value === "awaitingClient")
      waiting.push(id);
    const callContext = (callSnapshot.context ?? {}) as Json;
    const agent = ((callSnapshot.children ?? {}) as Json).agent as Json | undefined;
    const toolCall = (callContext.toolCall ?? {}) as Json;
    const place = { path: [...path, id], args: callContext.args, toolName: toolCall.name };
    const migratedAgent = agent && {
      ...agent,
      snapshot: migrateV4toV5(
        {
          ...((agent.snapshot ?? {}) as Json),
          context: { place, ...(((agent.snapshot ?? {}) as Json).context as Json) },
        },
        place.path,
      ),
    };
    children[id] = {
      ...entry,
      snapshot: {
        ...callSnapshot,
        context: { agent: calling, ...callContext },
        ...(migratedAgent ? { children: { agent: migratedAgent } } : {}),
      },
    };
  }
  const batch = run?.batch as Json | undefined;
  const inRun =
    value === "executingTools" ? { executingTools: waiting.length > 0 ? "awaitingHuman" : "working" } : value;
  return {
    ...snapshot,
    value: value === "idle" || value === undefined ? value : { running: inRun },
    context: {
      ...context,
      formatVersion: 5,
      run: run && {
        ...run,
        heldReply: heldReply && { events: [], ...heldReply },
        batch: batch && { waiting, ...batch },
      },
    },
    children,
  };
}
