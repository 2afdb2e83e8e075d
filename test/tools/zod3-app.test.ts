import { describe, expect, it, vi } from "vitest";

// An app installed with npm's --legacy-peer-deps and zod 3: every `import … from "zod"`, agentchart's
// own included, gets zod 3.
vi.mock("zod", async () => await import("zod3"));

describe("an app with zod 3", () => {
  it("imports agentchart, and defineTool refuses its zod 3 schema with UnsupportedToolSchemaError", async () => {
    const { defineTool, UnsupportedToolSchemaError } = await import("../../src/index.js");
    const { z } = await import("zod");
    const define = () =>
      defineTool({
        name: "add",
        description: "Adds",
        parameters: z.object({ a: z.number() }) as never,
        execute: async () => ({ content: [] }),
      });
    expect(define).toThrow(UnsupportedToolSchemaError);
    expect(define).toThrow(/is a zod 3 schema; agentchart needs zod 4/);
  });
});
