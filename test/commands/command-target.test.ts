import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { commandTarget } from "../../src/agent/command-target.js";
import type { AddressedCommand } from "../../src/commands/addressed-command.js";
import { CommandError, isCommandError } from "../../src/commands/command-error.js";
import { userMessage } from "../../src/loop/messages.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { supportTree } from "../subagents/support.js";
import { assistant } from "../support/loop-context.js";
import { testModel } from "../support/loop-harness.js";

/** What `commandTarget` throws for `command` sent to `agent`: code, message and address, as data. */
function refusalOf(agent: Agent, command: AddressedCommand) {
  try {
    commandTarget(agent.actor, command);
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    const { code, message, command: type, agentPath, toolCallId } = error;
    return { code, message, command: type, agentPath, toolCallId };
  }
  return "applies";
}

const idle = () => new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hi" }]) });

/** An agent whose grandchild's call "r1" (at ["s1", "b1"]) waits for approval. */
async function waitingTree() {
  const { tools, rootScript } = supportTree({ count: 0, keys: [] });
  const agent = new Agent({ model: testModel, streamFn: scriptedModel(rootScript), tools });
  const asked = firstValueFrom(agent.events$.pipe(filter((event) => event.type === "tool_approval_request")));
  const done = agent.prompt("help");
  await asked;
  return { agent, done };
}

describe("commandTarget: the one check of a command against the machines' state", () => {
  it("refuses, naming the command, the path and the call, on an idle agent", () => {
    const agent = idle();
    expect(refusalOf(agent, { type: "STEER", message: userMessage("x"), agentPath: ["h9"] })).toEqual({
      code: "no_agent",
      message: "STEER: no sub-agent runs at h9",
      command: "STEER",
      agentPath: ["h9"],
      toolCallId: undefined,
    });
    expect(refusalOf(agent, { type: "ABORT", agentPath: ["h9", "h10"] })).toMatchObject({
      message: "ABORT: no sub-agent runs at h9/h10",
    });
    expect(refusalOf(agent, { type: "DENY_TOOL", toolCallId: "c1" })).toMatchObject({
      code: "not_waiting",
      message: 'DENY_TOOL: no tool call "c1" is awaiting approval',
    });
    expect(refusalOf(agent, { type: "ANSWER_TOOL", toolCallId: "c1", result: { content: [] } })).toEqual({
      code: "not_waiting",
      message: 'ANSWER_TOOL: no tool call "c1" is awaiting the client',
      command: "ANSWER_TOOL",
      agentPath: [],
      toolCallId: "c1",
    });
    expect(refusalOf(agent, { type: "CONTINUE_ONCE" })).toEqual({
      code: "not_waiting",
      message: "CONTINUE_ONCE: the agent is not waiting at a budget limit",
      command: "CONTINUE_ONCE",
      agentPath: [],
      toolCallId: undefined,
    });
    expect(refusalOf(agent, { type: "CONTINUE" })).toEqual({
      code: "refused",
      message: "CONTINUE: Cannot continue: no messages in context",
      command: "CONTINUE",
      agentPath: [],
      toolCallId: undefined,
    });
    for (const command of [
      { type: "PROMPT", messages: [userMessage("go")] },
      { type: "RESET" },
      { type: "ABORT" },
      { type: "SET_MODEL", model: testModel },
    ] as AddressedCommand[])
      expect(refusalOf(agent, command)).toBe("applies");
  });

  it("CONTINUE applies after a user message, or after a reply with a message queued", () => {
    const agent = idle();
    agent.setMessages([userMessage("again")]);
    expect(refusalOf(agent, { type: "CONTINUE" })).toBe("applies");
    agent.setMessages([userMessage("q"), assistant([], "stop")]);
    expect(refusalOf(agent, { type: "CONTINUE" })).toMatchObject({ code: "refused" });
    agent.steer("first");
    agent.followUp("and then?");
    expect(refusalOf(agent, { type: "CONTINUE" })).toBe("applies");
    agent.clearQueues();
    agent.followUp("only this");
    expect(refusalOf(agent, { type: "CONTINUE" })).toBe("applies");
  });

  it("while a sub-agent's call waits: idle-only commands are busy at every depth, the right call applies", async () => {
    const { agent, done } = await waitingTree();
    expect(refusalOf(agent, { type: "RESET" })).toMatchObject({
      code: "busy",
      message: "RESET: the agent is running; it takes this command only when idle",
    });
    expect(refusalOf(agent, { type: "CONTINUE" })).toMatchObject({ code: "busy", command: "CONTINUE" });
    expect(refusalOf(agent, { type: "SET_MESSAGES", messages: [], agentPath: ["s1", "b1"] })).toEqual({
      code: "busy",
      message: "SET_MESSAGES: the sub-agent at s1/b1 is running; it takes this command only when idle",
      command: "SET_MESSAGES",
      agentPath: ["s1", "b1"],
      toolCallId: undefined,
    });
    expect(
      refusalOf(agent, { type: "RAISE_BUDGET", limits: { maxTurns: 3 }, agentPath: ["s1"] }),
    ).toMatchObject({
      code: "not_waiting",
      message: "RAISE_BUDGET: the sub-agent at s1 is not waiting at a budget limit",
    });
    expect(
      refusalOf(agent, {
        type: "ANSWER_TOOL",
        toolCallId: "r1",
        result: { content: [] },
        agentPath: ["s1", "b1"],
      }),
    ).toMatchObject({
      code: "not_waiting",
      message: 'ANSWER_TOOL: no tool call "r1" of the sub-agent at s1/b1 is awaiting the client',
    });
    expect(refusalOf(agent, { type: "SET_MODEL", model: testModel })).toBe("applies");
    expect(refusalOf(agent, { type: "DENY_TOOL", toolCallId: "r1", agentPath: ["s1", "b1"] })).toBe(
      "applies",
    );
    agent.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    await done;
  });
});

describe("isCommandError", () => {
  it("matches a CommandError, of the code when one is given, and nothing else", () => {
    const error = new CommandError("busy", "PROMPT: busy", { command: "PROMPT" });
    expect(isCommandError(error)).toBe(true);
    expect(isCommandError(error, "busy")).toBe(true);
    expect(isCommandError(error, "no_agent")).toBe(false);
    expect(isCommandError(Object.assign(new Error("x"), { code: "busy" }), "busy")).toBe(false);
    expect(isCommandError(undefined)).toBe(false);
    expect(error).toMatchObject({ name: "CommandError", agentPath: [], toolCallId: undefined });
  });
});
