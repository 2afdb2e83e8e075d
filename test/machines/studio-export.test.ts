import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, type AnyStateNode, createMachine } from "xstate";
import {
  exportedMachines,
  type Json,
  type JsonObject,
  machineConfig,
  machineDefinition,
  machinesFolder,
} from "../../examples/export-machines.js";
import { agentMachine, harnessMachine, toolCallMachine } from "../../src/machines.js";

/** An action or a guard given by name: `"name"` or `{ type: "name", … }`. */
const named = (value: Json | undefined): boolean =>
  (typeof value === "string" && value !== "") ||
  (value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    typeof value.type === "string" &&
    value.type !== "");

/** XState's id for an invoke without one: `<index>.<state id>` (e.g. `0.agent.streaming`). */
const generatedInvokeId = (node: AnyStateNode, index: number) => `${index}.${node.id}`;

interface TransitionLike {
  guard?: unknown;
}

/**
 * What keeps the machine from reading well in the Stately editor, from its exported definition
 * (`docs/machines/<name>.json`) next to the machine itself: an action that did not serialize to a name
 * (an inline function or action creator is `null` there), a transition whose guard the JSON lost
 * (or a transition missing from it), an invoke without an explicit id (XState makes one up from the
 * state's id), a state below the root without a description. One line per gap.
 */
function studioGaps(machine: AnyStateMachine): string[] {
  const gaps: string[] = [];
  const visit = (node: AnyStateNode, json: JsonObject) => {
    const at = `#${node.id}`;
    if (node.parent && !(typeof json.description === "string" && json.description !== ""))
      gaps.push(`${at}: no description`);
    const checkActions = (where: string, actions: Json | undefined) =>
      (actions as Json[]).forEach((action, index) => {
        if (!named(action)) gaps.push(`${at} ${where}: action ${index} is ${JSON.stringify(action)}`);
      });
    checkActions("entry", json.entry);
    checkActions("exit", json.exit);
    const checkTransitions = (where: string, live: TransitionLike[], exported: Json | undefined) => {
      const list = (exported ?? []) as JsonObject[];
      if (list.length !== live.length) {
        gaps.push(`${at} ${where}: ${live.length} transitions, ${list.length} in the JSON`);
        return;
      }
      live.forEach((transition, index) => {
        if (transition.guard !== undefined && !named(list[index]!.guard))
          gaps.push(`${at} ${where}[${index}]: guard lost (${JSON.stringify(list[index]!.guard)})`);
        checkActions(`${where}[${index}]`, list[index]!.actions);
      });
    };
    const on = (json.on ?? {}) as JsonObject;
    for (const [event, live] of node.transitions as Map<string, TransitionLike[]>)
      checkTransitions(`on ${event}`, live, on[event]);
    checkTransitions("always", (node.always ?? []) as TransitionLike[], json.always);
    const configured = [node.config.invoke ?? []].flat() as { id?: string }[];
    node.invoke.forEach((invoke, index) => {
      if (configured[index]?.id === undefined || invoke.id === generatedInvokeId(node, index))
        gaps.push(`${at} invoke ${index} (src "${invoke.src}"): no explicit id, XState made "${invoke.id}"`);
    });
    const states = json.states as JsonObject;
    for (const [key, child] of Object.entries(node.states as Record<string, AnyStateNode>))
      visit(child, states[key] as JsonObject);
  };
  visit(machine.root, machineDefinition(machine));
  return gaps;
}

describe("docs/machines: the machines' definitions for the Stately editor (npm run docs:machines)", () => {
  for (const entry of exportedMachines) {
    const definition = machineDefinition(entry.machine);

    it(`${entry.name}.json is ${entry.exportName}'s current definition (else run npm run docs:machines)`, () => {
      const committed = JSON.parse(readFileSync(join(machinesFolder, `${entry.name}.json`), "utf8"));
      expect(committed).toEqual(definition);
      // The key order too (sorted keys; states and events in the order of the code).
      expect(JSON.stringify(committed)).toBe(JSON.stringify(definition));
    });

    it(`${entry.name}.stately.js is its createMachine config and builds a machine with the same definition`, async () => {
      const module = (await import(pathToFileURL(join(machinesFolder, `${entry.name}.stately.js`)).href)) as {
        default: AnyStateMachine;
      };
      expect(module.default.config).toEqual(machineConfig(definition));
      expect(machineDefinition(module.default)).toEqual(definition);
    });
  }

  it("the JSON keeps the eventless transitions that XState's toJSON() leaves out", () => {
    const injecting = (machineDefinition(agentMachine).states as any).running.states.preparingTurn.states
      .injecting;
    expect(injecting.always.map((t: JsonObject) => [t.guard, t.target])).toEqual([
      ["inputCheckDue", ["#agent.running.preparingTurn.checkingInput"]],
      ["modelCallPausesForBudget", ["#agent.running.preparingTurn.budgetExceeded"]],
      ["modelCallStopsForBudget", ["#agent.idle"]],
      ["reservesWithAncestors", ["#agent.running.preparingTurn.reserving"]],
      ["inboxEmpty", ["#agent.running.streaming"]],
    ]);
    expect((agentMachine.toJSON() as any).states.running.states.preparingTurn.states.injecting.always).toBe(
      undefined,
    );
  });

  it("agentMachine is Studio-ready: named actions and guards, explicit invoke ids, a description on every state", () => {
    expect(studioGaps(agentMachine)).toEqual([]);
  });

  it("toolCallMachine is Studio-ready: named actions and guards, explicit invoke ids, a description on every state", () => {
    expect(studioGaps(toolCallMachine)).toEqual([]);
  });

  it("harnessMachine is Studio-ready: named actions and guards, explicit invoke ids, a description on every state", () => {
    expect(studioGaps(harnessMachine)).toEqual([]);
  });

  it("finds each kind of gap (the check itself)", () => {
    const machine = createMachine({
      id: "m",
      initial: "a",
      states: {
        a: {
          description: "A.",
          invoke: { src: "work" },
          entry: [() => {}],
          on: { GO: { guard: () => true, target: "b", actions: () => {} } },
        },
        b: { always: { guard: () => false, target: "a" } },
      },
    });
    expect(studioGaps(machine)).toEqual([
      '#m.a entry: action 0 is {"type":""}',
      "#m.a on GO[0]: guard lost (undefined)",
      "#m.a on GO[0]: action 0 is null",
      '#m.a invoke 0 (src "work"): no explicit id, XState made "0.m.a"',
      "#m.b: no description",
      "#m.b always[0]: guard lost (undefined)",
    ]);
  });
});
