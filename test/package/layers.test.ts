import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const srcRoot = path.resolve(import.meta.dirname, "../../src");

/**
 * The layer unit of a source file: its top folder under src/, except for the parts of a machine's
 * folder (`machines/<name>/`), which sit at three layers: its data (`*.context.ts`, `*.events.ts`)
 * below the steps that read it, its implementations (`*.implementations.ts`: what the actors run) below
 * the actors that use them, and the machine with its actions, guards and provided form above them all.
 */
function unitOf(file: string): string {
  const parts = path.relative(srcRoot, file).split(path.sep);
  if (parts.length === 1) return ".";
  const name = parts.at(-1)!;
  if (parts[0] === "machines" && parts.length === 3) {
    if (/\.(context|events)\.ts$/.test(name)) return "machines:data";
    if (/\.implementations\.ts$/.test(name)) return "machines:implementations";
  }
  // replay/: recording and replaying sit below the machines' implementations (which record); checking
  // a re-run (`replay/verify/`) drives an Agent, so it sits above the agent.
  if (parts[0] === "replay" && parts[1] === "verify") return "replay:verify";
  return parts[0]!;
}

/** Unit → units its files import (type imports included), from every `.ts` file under src/. */
function folderImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const entry of readdirSync(srcRoot, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const unit = unitOf(file);
    const targets = graph.get(unit) ?? new Set<string>();
    graph.set(unit, targets);
    for (const match of readFileSync(file, "utf8").matchAll(
      /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']/g,
    )) {
      const target = unitOf(path.resolve(entry.parentPath, match[1]!).replace(/\.js$/, ".ts"));
      if (target !== unit) targets.add(target);
    }
  }
  return graph;
}

/** Groups of source files that import each other, directly or through others (Tarjan's SCCs). */
function fileCycles(): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const entry of readdirSync(srcRoot, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const targets = new Set<string>();
    for (const match of readFileSync(path.join(entry.parentPath, entry.name), "utf8").matchAll(
      /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']/g,
    ))
      targets.add(path.resolve(entry.parentPath, match[1]!).replace(/\.js$/, ".ts"));
    graph.set(path.join(entry.parentPath, entry.name), targets);
  }
  let counter = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(path.relative(srcRoot, member));
    } while (member !== file);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return groups;
}

/**
 * Imports that leave one of the harness's sub-folders (`resources/`, `compaction/`) for another part
 * of `src/harness/` (the harness proper or the other sub-folder), as `file → target`.
 */
function harnessSubfolderEscapes(): string[] {
  const harnessRoot = path.join(srcRoot, "harness");
  const escapes: string[] = [];
  for (const sub of ["resources", "compaction"]) {
    const folder = path.join(harnessRoot, sub);
    for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const file = path.join(entry.parentPath, entry.name);
      for (const match of readFileSync(file, "utf8").matchAll(
        /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']/g,
      )) {
        const target = path.resolve(entry.parentPath, match[1]!);
        const insideHarness = !path.relative(harnessRoot, target).startsWith("..");
        const insideOwnFolder = !path.relative(folder, target).startsWith("..");
        if (insideHarness && !insideOwnFolder)
          escapes.push(`${path.relative(srcRoot, file)} → ${path.relative(srcRoot, target)}`);
      }
    }
  }
  return escapes;
}

/** Pairs of folders that import each other, directly or through others. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    [...(graph.get(from) ?? [])].some((next) => {
      if (next === to) return true;
      if (seen.has(next)) return false;
      seen.add(next);
      return reaches(next, to, seen);
    });
  return [...graph].flatMap(([folder, targets]) =>
    [...targets].filter((target) => reaches(target, folder)).map((target) => `${folder} ⇄ ${target}`),
  );
}

// The layers, lowest first: a unit may import only units of lower layers. types (and xstate, helpers
// over XState's public API) ← the machines' data (context, events) ← pure steps (loop) ← the machines'
// implementations ← actors ← machines (definitions, actions, guards, provided) ← agent, storage ← harness
// ← postgres (its workers drive harnesses), ag-ui (the AG-UI server over agents and harnesses) ← otel
// ← evals (traces its cases with otel) ← cli (runs evals), client (reads what ag-ui serves) ← react; tools, providers and the inspector are leaves beside
// the steps, mcp (tools from MCP servers) sits on tools; replay (recordings, replayed models and tools)
// sits under the implementations that record, its check of a re-run (replay/verify) beside the harness;
// commands (the vocabulary every room sends, its parser and its error) sit beside replay, over the steps;
// the entry points at the top (".") import
// anything. testing (the model-based testing kit) drives machines, beside agent and storage.
const LAYERS = [
  ["types", "xstate"],
  ["machines:data"],
  ["loop", "tools", "providers", "inspector"],
  ["replay", "commands"],
  ["machines:implementations"],
  ["actors", "mcp"],
  ["machines"],
  ["agent", "storage", "testing"],
  ["harness", "replay:verify"],
  ["postgres", "ag-ui"],
  ["otel"],
  ["evals"],
  ["cli", "client"],
  ["react"],
  ["."],
];
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

describe("source folders", () => {
  const graph = folderImports();

  it("never import each other back (no cycle between folders)", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("have no import cycle between files either", () => {
    expect(fileCycles()).toEqual([]);
  });

  it("import only lower layers: types ← loop ← actors ← machines ← agent/storage ← harness ← cli", () => {
    const upward = [...graph].flatMap(([folder, targets]) =>
      [...targets]
        .filter((target) => layerOf(target) >= layerOf(folder))
        .map((target) => `${folder} → ${target}`),
    );
    expect([...graph.keys()].filter((folder) => layerOf(folder) === -1)).toEqual([]);
    expect(upward).toEqual([]);
  });

  it("keep the harness's resources/ and compaction/ below the harness proper: they import neither it nor each other", () => {
    expect(harnessSubfolderEscapes()).toEqual([]);
  });

  it("give each machine a folder of its parts, the agent's read like XState's: machine, context, events, actions, guards, implementations, provided", () => {
    const parts = (name: string) =>
      readdirSync(path.join(srcRoot, "machines", name))
        .map((file) => file.replace(`${name}.`, "").replace(/\.ts$/, ""))
        .sort();
    expect(readdirSync(path.join(srcRoot, "machines")).sort()).toEqual(["agent", "harness", "tool-call"]);
    expect(parts("agent")).toEqual([
      "actions",
      "context",
      "events",
      "guards",
      "implementations",
      "machine",
      "provided",
    ]);
    expect(parts("tool-call")).toEqual(["context", "events", "machine"]);
    expect(unitOf(path.join(srcRoot, "machines/agent/agent.context.ts"))).toBe("machines:data");
    expect(unitOf(path.join(srcRoot, "machines/agent/agent.implementations.ts"))).toBe(
      "machines:implementations",
    );
    expect(unitOf(path.join(srcRoot, "machines/agent/agent.machine.ts"))).toBe("machines");
  });

  it("keep loop/ to pure steps: nothing there awaits, or calls a user callback or a tool", () => {
    const loop = path.join(srcRoot, "loop");
    const impure = readdirSync(loop).filter((file) =>
      /\basync\b|\bawait\b|callbacks\.\w+\?*\.?\(|\.execute\(/.test(
        readFileSync(path.join(loop, file), "utf8"),
      ),
    );
    expect(impure).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself)", () => {
    const withCycle = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
    ]);
    expect(cycles(withCycle)).toEqual(["a ⇄ b", "b ⇄ c", "c ⇄ a"]);
  });
});
