import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPTIONAL_PEERS } from "../../src/types/optional-peer.js";

const srcRoot = path.resolve(import.meta.dirname, "../../src");

/**
 * Every module reachable from `entry` through relative imports, with the bare imports each makes;
 * with `dynamic`, literal `import("…")`s count too (an entry that loads its peer when imported).
 */
function importGraph(entry: string, { dynamic = false } = {}): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [path.join(srcRoot, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const source = readFileSync(file, "utf8");
    // Type-only imports vanish at run time, so they do not count.
    const specifiers = [
      ...source.matchAll(/(?:^|\n)\s*(?:import|export)(?!\s+type\s)[^'"]*?from\s+["']([^"']+)["']/g),
      ...(dynamic ? source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g) : []),
    ].map((match) => match[1]!);
    const bare: string[] = [];
    for (const specifier of specifiers) {
      if (specifier.startsWith("."))
        pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")));
      else bare.push(specifier);
    }
    graph.set(file, bare);
  }
  return graph;
}

describe("the core entry point", () => {
  it("imports no node: module, so it bundles for browsers — nor do `agentchart/machines`, `agentchart/sessions` and `agentchart/compaction`", () => {
    for (const entry of ["index.ts", "machines.ts", "sessions.ts", "compaction.ts"]) {
      const offenders = [...importGraph(entry)].flatMap(([file, bare]) =>
        bare
          .filter((s) => s.startsWith("node:") || ["fs", "path", "child_process", "os"].includes(s))
          .map((s) => `${path.relative(srcRoot, file)} → ${s}`),
      );
      expect(offenders, entry).toEqual([]);
    }
  });

  it("does not import OpenTelemetry (only `agentchart/otel` does, and that imports no node: module)", () => {
    const core = [...importGraph("index.ts").values()].flat();
    expect(core.filter((s) => s.startsWith("@opentelemetry/"))).toEqual([]);
    const otel = [...importGraph("otel.ts", { dynamic: true }).values()].flat();
    expect(otel).toContain("@opentelemetry/api");
    expect(otel.filter((s) => s.startsWith("node:") || s.startsWith("@opentelemetry/sdk"))).toEqual([]);
  });

  it("imports no optional peer, nor do the other browser-safe entries, `agentchart/node`, `agentchart/openai` and `agentchart/ai-sdk` (they load them on use)", () => {
    const peers = Object.keys(OPTIONAL_PEERS);
    const offenders = [
      "index.ts",
      "machines.ts",
      "sessions.ts",
      "compaction.ts",
      "node.ts",
      "openai.ts",
      "ai-sdk.ts",
      "testing.ts",
    ].flatMap((entry) =>
      [...importGraph(entry)].flatMap(([file, bare]) =>
        bare
          .filter((s) => peers.some((peer) => s === peer || s.startsWith(`${peer}/`)))
          .map((s) => `${path.relative(srcRoot, file)} → ${s}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("lists the optional peers as package.json does", () => {
    const manifest = JSON.parse(readFileSync(path.join(srcRoot, "../package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const optional = Object.fromEntries(
      Object.entries(manifest.peerDependencies).filter(
        ([name]) => manifest.peerDependenciesMeta[name]?.optional,
      ),
    );
    expect(optional).toEqual(OPTIONAL_PEERS);
    expect(manifest.peerDependencies.zod).toBe("^4.0.0");
  });

  it("`agentchart/client` and `agentchart/react` import no node: module and none of the agent core", () => {
    for (const entry of ["client.ts", "react.ts"]) {
      const graph = importGraph(entry, { dynamic: true });
      const bare = [...graph.values()].flat();
      expect(bare.filter((s) => s.startsWith("node:"))).toEqual([]);
      // Besides its own folder, only the error that names a missing peer.
      const files = [...graph.keys()]
        .map((file) => path.relative(srcRoot, file))
        .filter((file) => file !== path.join("types", "missing-peer-dependency-error.ts"));
      const folders = files.map((file) => file.split(path.sep)[0]);
      expect(new Set(folders.filter((folder) => folder?.endsWith(".ts") === false))).toEqual(
        new Set([entry.replace(".ts", "")]),
      );
    }
    expect([...importGraph("react.ts", { dynamic: true }).values()].flat()).toEqual(
      expect.arrayContaining(["react", "@xstate/store-react"]),
    );
  });

  it("reaches the loop, the agent and the memory session repo", () => {
    const files = [...importGraph("index.ts").keys()].map((file) => path.relative(srcRoot, file));
    expect(files).toEqual(
      expect.arrayContaining([
        "machines/agent/agent.machine.ts",
        "agent/agent.ts",
        "storage/memory-session-repo.ts",
      ]),
    );
  });
});
