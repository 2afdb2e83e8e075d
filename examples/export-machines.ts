/**
 * Exports the definitions of agentchart's three machines to `docs/machines/` (see docs/inspector.md,
 * "The machines in the Stately editor"):
 *
 * - `<name>.json`: the machine's `toJSON()` definition (states, transitions with their guards and
 *   actions by name, invokes with their ids, entry/exit actions, descriptions, tags), plus the
 *   eventless (`always`) transitions, which XState's `toJSON()` leaves out (checked with 5.33.3: its
 *   `transitions` and `on` hold only evented transitions), as an `always` array on the states that
 *   have some. Property keys are sorted; the states and the events keep the order of the code.
 * - `<name>.stately.js`: the same definition as a `createMachine({ … })` config, for the Stately
 *   editor's import (it takes `createMachine` code, not the `toJSON()` form).
 *
 * `test/machines/studio-export.test.ts` fails when these files are out of date with the code.
 *
 *   npm run docs:machines                  # the JSON and Stately import files
 *   npm run docs:machines -- --screenshot  # also docs/machines/inspector.png (headless Chromium)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { agentMachine, harnessMachine, toolCallMachine } from "../src/machines.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
export const machinesFolder = join(repoRoot, "docs", "machines");

/** The exported machines: file name, exported binding, source file. */
export const exportedMachines: {
  name: string;
  exportName: string;
  source: string;
  machine: AnyStateMachine;
}[] = [
  {
    name: "agent",
    exportName: "agentMachine",
    source: "src/machines/agent/agent.machine.ts",
    machine: agentMachine,
  },
  {
    name: "tool-call",
    exportName: "toolCallMachine",
    source: "src/machines/tool-call/tool-call.machine.ts",
    machine: toolCallMachine,
  },
  {
    name: "harness",
    exportName: "harnessMachine",
    source: "src/machines/harness/harness.machine.ts",
    machine: harnessMachine,
  },
];

/** Maps whose key order is the code's (states, events), not sorted. */
const ORDERED_MAPS = new Set(["states", "on"]);

/** `id`, `key` and `type` first (an action reads `{ type, params }`), then alphabetical. */
const FIRST_KEYS = ["id", "key", "type"];
const byKey = (a: string, b: string) => {
  const rank = (key: string) => (FIRST_KEYS.includes(key) ? FIRST_KEYS.indexOf(key) : FIRST_KEYS.length);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};

/** `value` with every object's keys sorted, except the keys of the maps in `ORDERED_MAPS`. */
function sortKeys(value: Json, keepOrder = false): Json {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value === null || typeof value !== "object") return value;
  const keys = keepOrder ? Object.keys(value) : Object.keys(value).sort(byKey);
  return Object.fromEntries(
    keys.map((key) => [key, sortKeys(value[key]!, !keepOrder && ORDERED_MAPS.has(key))]),
  );
}

/** Functions, symbols and undefined dropped, as `JSON.stringify` does (a function in an array: `null`). */
const plain = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/**
 * The machine's definition as JSON: `machine.toJSON()` with each state's eventless transitions added
 * as `always` (same form as its other transitions), keys sorted as described above.
 */
export function machineDefinition(machine: AnyStateMachine): JsonObject {
  const definition = plain(machine.toJSON()) as JsonObject;
  const addAlways = (node: AnyStateNode, json: JsonObject) => {
    if (node.always?.length) json.always = plain(node.always);
    const states = json.states as JsonObject;
    for (const [key, child] of Object.entries(node.states as Record<string, AnyStateNode>))
      addAlways(child, states[key] as JsonObject);
  };
  addAlways(machine.root, definition);
  return sortKeys(definition) as JsonObject;
}

/**
 * The definition as a `createMachine` config: `initial` as a child key, transitions as
 * `{ target, guard, actions, description, reenter }` with `#id` targets, each invoke with its
 * `onDone`/`onError` (which the definition lists under `on` as `xstate.done.actor.<id>` /
 * `xstate.error.actor.<id>`). Only names: the implementations, `context`, invoke `input` and params
 * given as functions are not part of a definition.
 */
export function machineConfig(definition: JsonObject): JsonObject {
  return stateConfig(definition, true);
}

function stateConfig(node: JsonObject, root: boolean): JsonObject {
  const id = node.id as string;
  const on = { ...(node.on as Record<string, JsonObject[]>) };
  const take = (event: string): Json | undefined => {
    const transitions = on[event];
    delete on[event];
    return transitions && transitionsConfig(transitions);
  };
  const config: JsonObject = {};
  if (root) config.id = id;
  if (node.description !== undefined) config.description = node.description;
  if (node.type === "parallel" || node.type === "final") config.type = node.type;
  if (node.type === "history") {
    config.type = "history";
    config.history = node.history as string;
  }
  if (node.type === "compound") {
    const target = ((node.initial as JsonObject).target as string[])[0]!;
    config.initial = target.slice(`#${id}.`.length);
  }
  if ((node.tags as string[]).length > 0) config.tags = node.tags!;
  if (node.meta !== undefined) config.meta = node.meta;
  if ((node.entry as Json[]).length > 0) config.entry = node.entry!;
  if ((node.exit as Json[]).length > 0) config.exit = node.exit!;
  const invokes = (node.invoke as JsonObject[]).map(({ type: _type, ...invoke }) => {
    const result: JsonObject = { ...invoke };
    const onDone = take(`xstate.done.actor.${invoke.id}`);
    const onError = take(`xstate.error.actor.${invoke.id}`);
    const onSnapshot = take(`xstate.snapshot.${invoke.id}`);
    if (onDone) result.onDone = onDone;
    if (onError) result.onError = onError;
    if (onSnapshot) result.onSnapshot = onSnapshot;
    return result;
  });
  if (invokes.length > 0) config.invoke = invokes.length === 1 ? invokes[0]! : invokes;
  const onDone = take(`xstate.done.state.${id}`);
  if (onDone) config.onDone = onDone;
  const after: JsonObject = {};
  for (const event of Object.keys(on)) {
    // A delayed transition's event is `xstate.after.<delay>.<state id>`.
    if (event.startsWith("xstate.after.") && event.endsWith(`.${id}`))
      after[event.slice("xstate.after.".length, -(id.length + 1))] = take(event)!;
  }
  if (Object.keys(after).length > 0) config.after = after;
  if (Object.keys(on).length > 0)
    config.on = Object.fromEntries(
      Object.entries(on).map(([event, list]) => [event, transitionsConfig(list)]),
    );
  if (node.always) config.always = transitionsConfig(node.always as JsonObject[]);
  const states = Object.entries(node.states as Record<string, JsonObject>);
  if (states.length > 0)
    config.states = Object.fromEntries(states.map(([key, child]) => [key, stateConfig(child, false)]));
  return config;
}

function transitionsConfig(transitions: JsonObject[]): Json {
  const configs = transitions.map((transition) => {
    const config: JsonObject = {};
    const targets = (transition.target as string[] | undefined) ?? [];
    if (targets.length > 0) config.target = targets.length === 1 ? targets[0]! : targets;
    if (transition.guard !== undefined) config.guard = transition.guard;
    if ((transition.actions as Json[]).length > 0) config.actions = transition.actions!;
    if (transition.description !== undefined) config.description = transition.description;
    if (transition.reenter === true) config.reenter = true;
    if (transition.meta !== undefined) config.meta = transition.meta;
    return config;
  });
  return configs.length === 1 ? configs[0]! : configs;
}

/** The `<name>.stately.js` module: the config wrapped in `createMachine`, for the Stately editor's import. */
export function statelyModule(entry: (typeof exportedMachines)[number], config: JsonObject): string {
  return [
    `// Generated by \`npm run docs:machines\` (examples/export-machines.ts) from \`${entry.exportName}\``,
    `// (${entry.source}): its definition as a createMachine config,`,
    "// for the Stately editor's import. Names only: the actions, guards and actors it names are",
    "// implemented in the source. Do not edit.",
    'import { createMachine } from "xstate";',
    "",
    `export default createMachine(${JSON.stringify(config, null, 2)});`,
    "",
  ].join("\n");
}

/** Writes `<name>.json` and `<name>.stately.js` for every machine, formatted as `npm run lint` wants. */
export function writeMachineFiles(): string[] {
  mkdirSync(machinesFolder, { recursive: true });
  const files: string[] = [];
  for (const entry of exportedMachines) {
    const definition = machineDefinition(entry.machine);
    const json = join(machinesFolder, `${entry.name}.json`);
    const module = join(machinesFolder, `${entry.name}.stately.js`);
    writeFileSync(json, `${JSON.stringify(definition, null, 2)}\n`);
    writeFileSync(module, statelyModule(entry, machineConfig(definition)));
    files.push(json, module);
  }
  const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
  const format = spawnSync(process.execPath, [biome, "format", "--write", ...files], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (format.status !== 0) throw new Error(`biome format failed: ${format.stderr}${format.stdout}`);
  return files;
}

/**
 * `docs/machines/inspector.png`: the bundled inspector's page (headless Chromium, the browser tests'
 * launcher) while an agent's tool call waits for approval, with the agent's statechart drawn.
 */
export async function writeInspectorScreenshot(): Promise<string> {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { chromium } = await import("playwright-core");
  const { z } = await import("zod");
  const { Agent, defineTool } = await import("../src/index.js");
  const { createInspectorServer } = await import("../src/node.js");
  const { scriptedModel } = await import("../src/testing.js");
  const { chromiumBinary, HEADLESS_CHROMIUM_FLAGS } = await import("../test/support/chromium.js");

  const file = join(machinesFolder, "inspector.png");
  const server = await createInspectorServer({ host: "127.0.0.1", port: 0 });
  const binary = await chromiumBinary();
  const profile = mkdtempSync(join(tmpdir(), "agentchart-screenshot-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: binary.executablePath,
    env: binary.env,
    args: HEADLESS_CHROMIUM_FLAGS,
    viewport: { width: 1600, height: 1200 },
    deviceScaleFactor: 2, // sharp text when the reader zooms into the whole-machine view
  });
  try {
    const page = await browser.newPage();
    await page.goto(server.url, { timeout: 60_000 });
    await page.waitForSelector('[data-testid="connection"][data-state="open"]');

    const deleteFile = defineTool({
      name: "delete_file",
      description: "Deletes a file (pretend)",
      parameters: z.object({ path: z.string() }),
      requiresApproval: true,
      execute: async ({ path }) => ({ content: [{ type: "text", text: `deleted ${path}` }] }),
    });
    const agent = new Agent({
      agentId: "0b05ba77-screenshot",
      model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
      tools: [deleteFile],
      streamFn: scriptedModel([
        { toolCalls: [{ id: "call_1", name: "delete_file", arguments: { path: "notes.md" } }] },
        { text: "Deleted notes.md." },
      ]),
      inspect: server.inspect,
    });
    const waiting = new Promise<void>((resolve) =>
      agent.subscribe((event) => {
        if (event.type === "tool_approval_request") resolve();
      }),
    );
    const run = agent.prompt("Delete notes.md");
    await waiting;

    // The page opens on the newest agent; select its root actor so that its statechart is drawn.
    const root = agent.actor!;
    await page.click(`[data-testid="actor-${root.sessionId}"]`);
    await page.waitForSelector('[data-testid="state-running.executingTools"][data-active="true"]');
    await page.waitForSelector('[data-testid="state-diagram"][data-layout="done"]');
    const call = root.getSnapshot().children.call_1!;
    await page.waitForSelector(`[data-testid="actor-${call.sessionId}"][data-state="awaitingApproval"]`);
    // The whole machine: the default view keeps its text readable and shows only its left part.
    await page.click('[data-testid="zoom-all"]');
    await page.screenshot({ path: file });

    agent.approveToolCall("call_1");
    await run;
  } finally {
    await browser.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return file;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of writeMachineFiles()) console.log(`wrote ${relative(repoRoot, file)}`);
  if (process.argv.includes("--screenshot"))
    console.log(`wrote ${relative(repoRoot, await writeInspectorScreenshot())}`);
}
