import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as xstate from "xstate";
import { requireXState } from "../../src/xstate/require-xstate.js";

const srcRoot = path.resolve(import.meta.dirname, "../../src");

// XState's private members (underscored on actors, scopes and systems): an app brings its own xstate
// 5.x, so nothing in src/ may read them — only XState's public, documented API.
const PRIVATE_MEMBER =
  /\.(_parent|_actorScope|_snapshot|_deferred|_processingStatus|_send|_relay|_set|_register|_stop|_error|_initState|_systemId|_sendInspectionEvent|_logger)\b/;

function sourceFiles(): string[] {
  return readdirSync(srcRoot, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("agentchart and XState", () => {
  it("uses no private member of XState anywhere in src/", () => {
    const readers = sourceFiles().flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          PRIVATE_MEMBER.test(line) ? [`${path.relative(srcRoot, file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(readers).toEqual([]);
  });

  it("finds a private member when one is read (the check itself)", () => {
    expect(PRIVATE_MEMBER.test("const parent = (ref as any)._parent;")).toBe(true);
    expect(PRIVATE_MEMBER.test("scope._actorScope.emit(event)")).toBe(true);
    expect(PRIVATE_MEMBER.test("const parentId = record.parentId;")).toBe(false);
  });

  it("takes xstate as a peer dependency (an app brings its own 5.x), not a dependency", () => {
    const manifest = JSON.parse(readFileSync(path.join(srcRoot, "../package.json"), "utf8"));
    expect(manifest.dependencies?.xstate).toBeUndefined();
    expect(manifest.peerDependencies?.xstate).toMatch(/^\^5\./);
    expect(manifest.peerDependenciesMeta?.xstate?.optional).not.toBe(true);
  });

  it("names the supported xstate versions when the installed one lacks what the machines use", () => {
    expect(() => requireXState(xstate)).not.toThrow();
    const { enqueueActions: _, setup: __, ...older } = xstate;
    expect(() => requireXState(older)).toThrow(
      "agentchart needs xstate ^5.33.0 (a peer dependency: install it next to agentchart); the installed xstate has no setup, enqueueActions",
    );
  });
});
