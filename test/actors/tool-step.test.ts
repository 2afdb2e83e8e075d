/**
 * The tool step actors on their own (`src/actors/tool-step.actors.ts`): the validation action sending
 * `VALIDATED`/`REJECTED` to a recording actor, the before hook, the execution and the after hook each
 * run with `createActor` (or invoked by a recording parent), with real tools made by `defineTool` and
 * the agent's implementations made by `agentImplementations`, as `createAgentMachine` makes them.
 */
import { describe, expect, it } from "vitest";
import { createActor, toPromise } from "xstate";
import { z } from "zod";
import {
  afterToolCallActor,
  beforeToolCallActor,
  checkBeforeToolCall,
  executeToolActor,
  executeToolCall,
  requiresApprovalOf,
  validateCall,
  validationErrorText,
} from "../../src/actors/tool-step.actors.js";
import type { ToolCallOutcome } from "../../src/machines/agent/agent.context.js";
import {
  type AgentMachineOptions,
  agentImplementations,
  callbackContextOf,
} from "../../src/machines/agent/agent.implementations.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AfterToolCallContext, BeforeToolCallContext } from "../../src/types/loop.js";
import type { ToolCall } from "../../src/types/messages.js";
import type { AgentTool, ToolExecutionContext } from "../../src/types/tool.js";
import { callingAgent, eventRecorder, invokeActor, toolStepInput } from "../support/actor-harness-b.js";
import { deferred, echoTool } from "../support/loop-harness.js";

const streamFn = scriptedModel([]);
const implementationsOf = (options: Partial<AgentMachineOptions> = {}) =>
  agentImplementations({ streamFn, ...options });

function callOf(name: string, args: Record<string, unknown> = {}, patch: Partial<ToolCall> = {}): ToolCall {
  return { type: "toolCall", id: `call-${name}`, name, arguments: args, ...patch };
}

const textOf = (outcome: ToolCallOutcome) =>
  outcome.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

/** A tool that deletes a path and asks for approval when `approval` says so. */
function deleteTool(approval?: AgentTool["requiresApproval"]) {
  return defineTool({
    name: "delete",
    description: "Deletes a path",
    parameters: z.object({ path: z.string(), force: z.boolean().default(false) }),
    ...(approval !== undefined ? { requiresApproval: approval } : {}),
    execute: async ({ path }) => ({ content: [{ type: "text", text: `deleted ${path}` }] }),
  });
}

/** What `validateCall` sends for `toolCall` with `options`' tools and callbacks. */
function validationOf(toolCall: ToolCall, options: Partial<AgentMachineOptions> = {}) {
  const { self, received } = eventRecorder();
  validateCall(implementationsOf(options), self, toolCall);
  expect(received).toHaveLength(1);
  return received[0]!;
}

describe("validateCall (preflight of a tool call)", () => {
  it("validates the arguments with the zod schema and reports what the next states need", () => {
    const event = validationOf(callOf("delete", { path: "/tmp/x" }), { tools: [deleteTool()] });
    expect(event).toEqual({
      type: "VALIDATED",
      args: { path: "/tmp/x", force: false },
      needsApproval: false,
      beforeHook: false,
      afterHook: false,
      client: false,
      agentTool: false,
    });
  });

  it("reports the hooks that are set, an approval the tool asks for, a client tool and an agent tool", () => {
    const hooks = { beforeToolCall: () => undefined, afterToolCall: () => undefined };
    expect(
      validationOf(callOf("delete", { path: "/" }), { tools: [deleteTool(true)], ...hooks }),
    ).toMatchObject({
      type: "VALIDATED",
      needsApproval: true,
      beforeHook: true,
      afterHook: true,
    });
    const client: AgentTool = { ...deleteTool(), name: "pick", client: true };
    expect(validationOf(callOf("pick", { path: "/" }), { tools: [client] })).toMatchObject({
      type: "VALIDATED",
      client: true,
      agentTool: false,
    });
    const helper = defineAgentTool({ name: "helper", description: "Helps", agent: {} });
    expect(validationOf(callOf("helper", { task: "help" }), { tools: [helper] })).toMatchObject({
      type: "VALIDATED",
      client: false,
      agentTool: true,
    });
  });

  it("runs prepareArguments on the raw arguments before the schema", () => {
    const legacy: AgentTool = {
      ...deleteTool(),
      prepareArguments: (raw) => ({ path: (raw as { file: string }).file }),
    };
    expect(validationOf(callOf("delete", { file: "/old" }), { tools: [legacy] })).toMatchObject({
      type: "VALIDATED",
      args: { path: "/old", force: false },
    });
  });

  it("rejects a call of an unknown tool, naming it", () => {
    const event = validationOf(callOf("nope"), { tools: [deleteTool()] });
    expect(event.type).toBe("REJECTED");
    expect(event.outcome.isError).toBe(true);
    expect(textOf(event.outcome)).toBe("Tool nope not found");
  });

  it("rejects arguments the model sent as invalid JSON, quoting them, before prepareArguments runs", () => {
    let prepared = 0;
    const tool: AgentTool = {
      ...deleteTool(),
      prepareArguments: (raw) => {
        prepared += 1;
        return raw;
      },
    };
    const call = callOf("delete", {}, { invalidArguments: { raw: '{"path": "/', error: "Unexpected end" } });
    const event = validationOf(call, { tools: [tool] });
    expect(event.type).toBe("REJECTED");
    expect(textOf(event.outcome)).toContain("are not valid JSON (Unexpected end)");
    expect(textOf(event.outcome)).toContain('{"path": "/');
    expect(prepared).toBe(0);
  });

  it("rejects arguments the schema refuses with each issue's path and the arguments received", () => {
    const event = validationOf(callOf("delete", { path: 7 }), { tools: [deleteTool()] });
    expect(event.type).toBe("REJECTED");
    expect(textOf(event.outcome)).toBe(
      `Validation failed for tool "delete":\n  - path: Invalid input: expected string, received number\n\nReceived arguments:\n{\n  "path": 7\n}`,
    );
  });

  it("rejects a call whose prepareArguments throws, with the error's text", () => {
    const tool: AgentTool = {
      ...deleteTool(),
      prepareArguments: () => {
        throw new Error("cannot read the old format");
      },
    };
    const event = validationOf(callOf("delete", { path: "/" }), { tools: [tool] });
    expect(event.type).toBe("REJECTED");
    expect(textOf(event.outcome)).toBe("cannot read the old format");
  });

  it("rejects a call whose requiresApproval throws, naming the tool, and never reports it validated", () => {
    const event = validationOf(callOf("delete", { path: "/" }), {
      tools: [
        deleteTool(() => {
          throw new Error("policy offline");
        }),
      ],
    });
    expect(event.type).toBe("REJECTED");
    expect(event.outcome.isError).toBe(true);
    expect(textOf(event.outcome)).toBe('requiresApproval of tool "delete" failed: policy offline');
  });
});

describe("validationErrorText", () => {
  it("lists every issue with its dotted path, (root) for the arguments themselves", () => {
    const text = validationErrorText(
      "t",
      [
        { path: ["items", 0, "name"], message: "Required" },
        { path: [], message: "Expected object" },
      ],
      { items: [{}] },
    );
    expect(text).toBe(
      'Validation failed for tool "t":\n  - items.0.name: Required\n  - (root): Expected object\n\nReceived arguments:\n{\n  "items": [\n    {}\n  ]\n}',
    );
  });

  it("shows arguments JSON cannot write as their string form", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(validationErrorText("t", [], circular)).toMatch(/Received arguments:\n\[object Object\]$/);
    expect(validationErrorText("t", [], undefined)).toMatch(/Received arguments:\nundefined$/);
  });
});

describe("requiresApprovalOf", () => {
  const withApproval = (requiresApproval: AgentTool["requiresApproval"]) => deleteTool(requiresApproval);
  it.each([
    ["no tool", undefined, false],
    ["no requiresApproval", deleteTool(), false],
    ["true", withApproval(true), true],
    ["false", withApproval(false), false],
    ["a function answering true", withApproval(() => true), true],
    ["a function answering false", withApproval(() => false), false],
    ["a function answering a truthy non-boolean", withApproval((() => "yes") as never), false],
  ])("with %s", (_, tool, expected) => {
    expect(requiresApprovalOf(tool, { path: "/" })).toBe(expected);
  });

  it("asks the function with the validated arguments", () => {
    const tool = withApproval((args: { path: string }) => args.path.startsWith("/etc"));
    expect(requiresApprovalOf(tool, { path: "/etc/passwd" })).toBe(true);
    expect(requiresApprovalOf(tool, { path: "/tmp/x" })).toBe(false);
  });
});

describe("beforeToolCallActor", () => {
  const call = callOf("delete", { path: "/a" });
  const args = { path: "/a", force: false };

  const runBefore = (
    options: Partial<AgentMachineOptions>,
    agent = callingAgent({ toolNames: ["delete"] }),
  ) =>
    toPromise(
      createActor(beforeToolCallActor(implementationsOf({ tools: [deleteTool()], ...options })), {
        input: toolStepInput(call, args, agent),
      }).start(),
    );

  it("hands the hook the reply, the call, the arguments and the agent's context", async () => {
    const seen: BeforeToolCallContext[] = [];
    const output = await runBefore({
      beforeToolCall: (context) => {
        seen.push(context);
        return undefined;
      },
    });
    expect(output).toEqual({ outcome: undefined, needsApproval: false });
    const [context] = seen;
    expect(context!.toolCall).toBe(call);
    expect(context!.args).toEqual(args);
    expect(context!.assistantMessage.content).toEqual([call]);
    expect(context!.context.systemPrompt).toBe("You are a test.");
    expect(context!.context.messages).toHaveLength(1);
    expect(context!.context.tools.map((tool) => tool.name)).toEqual(["delete"]);
    expect("agentPath" in context!).toBe(false);
  });

  it("tells the hook of a sub-agent's call the agent's path", async () => {
    const seen: BeforeToolCallContext[] = [];
    await runBefore(
      {
        beforeToolCall: (context) => {
          seen.push(context);
          return undefined;
        },
      },
      callingAgent({ path: ["root-call"] }),
    );
    expect(seen[0]!.agentPath).toEqual(["root-call"]);
  });

  it("turns a block into the call's error outcome, with the hook's reason or a default one", async () => {
    const blocked = await runBefore({ beforeToolCall: () => ({ block: true, reason: "no deleting" }) });
    expect(blocked.needsApproval).toBe(false);
    expect(blocked.outcome!.isError).toBe(true);
    expect(textOf(blocked.outcome!)).toBe("no deleting");
    const silent = await runBefore({ beforeToolCall: () => ({ block: true }) });
    expect(textOf(silent.outcome!)).toBe("Tool execution was blocked");
    const allowed = await runBefore({ beforeToolCall: () => ({ block: false, reason: "fine" }) });
    expect(allowed.outcome).toBeUndefined();
  });

  it("turns a throwing hook into the call's error outcome", async () => {
    const output = await runBefore({
      beforeToolCall: async () => {
        throw new Error("hook crashed");
      },
    });
    expect(textOf(output.outcome!)).toBe("hook crashed");
  });

  it("asks requiresApproval with the arguments the hook left", async () => {
    const tool = deleteTool((given: { force: boolean }) => given.force);
    const output = await runBefore({
      tools: [tool],
      beforeToolCall: ({ args: given }) => {
        (given as { force: boolean }).force = true;
        return undefined;
      },
    });
    expect(output).toEqual({ outcome: undefined, needsApproval: true });
  });

  it("turns a throwing requiresApproval into the call's error outcome", async () => {
    const output = await runBefore({
      tools: [
        deleteTool(() => {
          throw new Error("policy offline");
        }),
      ],
    });
    expect(output.needsApproval).toBe(false);
    expect(textOf(output.outcome!)).toBe('requiresApproval of tool "delete" failed: policy offline');
  });

  it("aborts the hook's signal when the call stops while the hook runs", async () => {
    const gate = deferred<AbortSignal>();
    const actor = createActor(
      beforeToolCallActor(
        implementationsOf({
          tools: [deleteTool()],
          beforeToolCall: (_, signal) => {
            gate.resolve(signal);
            return new Promise(() => {});
          },
        }),
      ),
      { input: toolStepInput(call, args) },
    ).start();
    const signal = await gate.promise;
    expect(signal.aborted).toBe(false);
    actor.stop();
    expect(signal.aborted).toBe(true);
  });
});

describe("checkBeforeToolCall", () => {
  it("turns an abort that happened while the hook ran into an aborted call, whatever the hook answered", async () => {
    const implementations = implementationsOf({ tools: [deleteTool()] });
    const controller = new AbortController();
    const call = callOf("delete", { path: "/a" });
    const outcome = await checkBeforeToolCall(
      {
        callbacks: {
          streamFn,
          beforeToolCall: () => {
            controller.abort();
            return undefined;
          },
        },
        toolCall: call,
        assistantMessage: toolStepInput(call, {}).assistantMessage,
        args: {},
        context: callbackContextOf(implementations, callingAgent()),
      },
      controller.signal,
    );
    expect(outcome!.isError).toBe(true);
    expect(textOf(outcome!)).toBe("Operation aborted");
  });
});

describe("executeToolActor", () => {
  const runTool = (tool: AgentTool, args: unknown, options: Partial<AgentMachineOptions> = {}) =>
    invokeActor(
      executeToolActor(implementationsOf({ tools: [tool], ...options })),
      toolStepInput(callOf(tool.name, args as Record<string, unknown>), args),
    );
  const executed = async (run: ReturnType<typeof runTool>) =>
    (await run.until("TOOL_EXECUTED")).find((event) => event.type === "TOOL_EXECUTED")!
      .outcome as ToolCallOutcome;

  it("runs the tool with the validated arguments and sends its result as TOOL_EXECUTED", async () => {
    const outcome = await executed(runTool(echoTool(), { text: "hi" }));
    expect(outcome).toEqual({
      toolCall: callOf("echo", { text: "hi" }),
      result: { content: [{ type: "text", text: "echo: hi" }], details: { text: "hi" } },
      isError: false,
    });
  });

  it("gives the tool its call id, the agent's tool context and the call's idempotency key", async () => {
    const seen: ToolExecutionContext[] = [];
    const tool = defineTool({
      name: "probe",
      description: "Records its execution context",
      parameters: z.object({}),
      execute: async (_, context) => {
        seen.push(context);
        return { content: [] };
      },
    });
    await executed(runTool(tool, {}, { toolContext: { db: "main" } }));
    expect(seen[0]!.toolCallId).toBe("call-probe");
    expect(seen[0]!.context).toEqual({ db: "main" });
    expect(seen[0]!.idempotencyKey).toBe("agent-1:call-probe");
  });

  it("fills in the content of a result that has none", async () => {
    const tool: AgentTool = { ...echoTool(), execute: async () => ({ details: 1 }) as never };
    const outcome = await executed(runTool(tool, { text: "x" }));
    expect(outcome.result).toEqual({ content: [], details: 1 });
    expect(outcome.isError).toBe(false);
  });

  it.each([
    ["returns nothing", async () => undefined, "Tool echo returned no result"],
    ["returns null", async () => null, "Tool echo returned no result"],
    ["returns a string", async () => "done", "Tool echo returned no result"],
    [
      "throws",
      async () => {
        throw new Error("disk full");
      },
      "disk full",
    ],
  ])("turns a tool that %s into an error outcome", async (_, execute, text) => {
    const outcome = await executed(runTool({ ...echoTool(), execute: execute as never }, { text: "x" }));
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe(text);
  });

  it("answers a call of a tool it does not have with an error outcome", async () => {
    const run = invokeActor(
      executeToolActor(implementationsOf({ tools: [] })),
      toolStepInput(callOf("gone"), {}),
    );
    const outcome = await executed(run);
    expect(textOf(outcome)).toBe("Tool gone not found");
  });

  it("sends each update as TOOL_PROGRESS before the outcome, and none after the tool settled", async () => {
    let late: ((partial: unknown) => void) | undefined;
    const tool: AgentTool = {
      ...echoTool(),
      execute: async (_, { update }) => {
        update({ percent: 50 });
        update({ percent: 100 });
        late = update;
        return { content: [] };
      },
    };
    const run = runTool(tool, { text: "x" });
    await run.until("TOOL_EXECUTED");
    late!({ percent: 120 });
    expect(run.received().map((event) => [event.type, event.partialResult])).toEqual([
      ["TOOL_PROGRESS", { percent: 50 }],
      ["TOOL_PROGRESS", { percent: 100 }],
      ["TOOL_EXECUTED", undefined],
    ]);
  });

  it("aborts the signal the tool holds when the call stops", async () => {
    const started = deferred<AbortSignal>();
    const tool: AgentTool = {
      ...echoTool(),
      execute: (_, { signal }) => {
        started.resolve(signal);
        return new Promise(() => {});
      },
    };
    const run = runTool(tool, { text: "x" });
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);
    run.stop();
    expect(signal.aborted).toBe(true);
  });

  it("stops a call whose tool never looked at its signal", async () => {
    const started = deferred();
    const tool: AgentTool = {
      ...echoTool(),
      execute: () => {
        started.resolve();
        return new Promise(() => {});
      },
    };
    const run = runTool(tool, { text: "x" });
    await started.promise;
    run.stop();
    expect(run.child.getSnapshot().status).toBe("stopped");
  });

  it("gives a tool that first reads its signal after the call stopped an aborted one", async () => {
    const started = deferred<ToolExecutionContext>();
    const tool: AgentTool = {
      ...echoTool(),
      execute: (_, context) => {
        started.resolve(context);
        return new Promise(() => {});
      },
    };
    const run = runTool(tool, { text: "x" });
    const context = await started.promise;
    run.stop();
    expect(context.signal.aborted).toBe(true);
  });

  it("gives the tool one signal for the whole call", async () => {
    const signals: AbortSignal[] = [];
    const tool: AgentTool = {
      ...echoTool(),
      execute: async (_, context) => {
        signals.push(context.signal, context.signal);
        return { content: [] };
      },
    };
    await executed(runTool(tool, { text: "x" }));
    expect(signals[0]).toBe(signals[1]);
    expect(signals[0]!.aborted).toBe(false);
  });
});

describe("executeToolCall", () => {
  it("passes updates on until the call's signal fires, and none after", async () => {
    const controller = new AbortController();
    const updates: unknown[] = [];
    const tool: AgentTool = {
      ...echoTool(),
      execute: async (_, { update }) => {
        update("working");
        controller.abort();
        update("after the abort");
        return { content: [] };
      },
    };
    const call = callOf("echo", { text: "x" });
    const outcome = await executeToolCall(
      {
        tool,
        toolCall: call,
        args: { text: "x" },
        toolContext: undefined,
        idempotencyKey: "k",
        onUpdate: (partial) => updates.push(partial),
      },
      () => controller.signal,
    );
    expect(updates).toEqual(["working"]);
    expect(outcome.isError).toBe(false);
  });
});

describe("afterToolCallActor", () => {
  const call = callOf("delete", { path: "/a" });
  const done: ToolCallOutcome = {
    toolCall: call,
    result: { content: [{ type: "text", text: "deleted /a" }], details: { bytes: 3 } },
    isError: false,
  };

  const runAfter = (options: Partial<AgentMachineOptions>, agent = callingAgent()) =>
    toPromise(
      createActor(afterToolCallActor(implementationsOf({ tools: [deleteTool()], ...options })), {
        input: { ...toolStepInput(call, { path: "/a" }, agent), outcome: done },
      }).start(),
    );

  it("leaves the outcome as it is without a hook, or when the hook returns nothing", async () => {
    expect(await runAfter({})).toEqual(done);
    expect(await runAfter({ afterToolCall: () => undefined })).toEqual(done);
  });

  it("hands the hook the result, whether it failed, and the call's context", async () => {
    const seen: AfterToolCallContext[] = [];
    await runAfter(
      {
        afterToolCall: (context) => {
          seen.push(context);
          return undefined;
        },
      },
      callingAgent({ path: ["root-call"] }),
    );
    expect(seen[0]!.result).toEqual(done.result);
    expect(seen[0]!.isError).toBe(false);
    expect(seen[0]!.toolCall).toBe(call);
    expect(seen[0]!.args).toEqual({ path: "/a" });
    expect(seen[0]!.assistantMessage.content).toEqual([call]);
    expect(seen[0]!.context.systemPrompt).toBe("You are a test.");
    expect(seen[0]!.agentPath).toEqual(["root-call"]);
  });

  it("replaces each field the hook returns and keeps the others", async () => {
    const content = [{ type: "text" as const, text: "redacted" }];
    expect(await runAfter({ afterToolCall: () => ({ content }) })).toEqual({
      ...done,
      result: { ...done.result, content },
    });
    expect(await runAfter({ afterToolCall: () => ({ details: { bytes: 0 } }) })).toEqual({
      ...done,
      result: { ...done.result, details: { bytes: 0 } },
    });
    expect(await runAfter({ afterToolCall: () => ({ terminate: true }) })).toEqual({
      ...done,
      result: { ...done.result, terminate: true },
    });
    expect(await runAfter({ afterToolCall: () => ({ isError: true }) })).toEqual({ ...done, isError: true });
    expect(await runAfter({ afterToolCall: () => ({}) })).toStrictEqual(done);
  });

  it("turns a throwing hook into an error outcome naming it", async () => {
    const outcome = await runAfter({
      afterToolCall: async () => {
        throw new Error("audit log down");
      },
    });
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe("afterToolCall failed: audit log down");
  });
});
