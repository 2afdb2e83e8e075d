import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { mcpSdk } from "./mcp-sdk.js";

/** A tool a server listed that cannot be used: who it is and why. */
export interface UnusableMcpTool {
  /** Its name, or `tools/list entry N` (1-based, across pages) when it has none. */
  tool: string;
  /** Why it was left out, e.g. `inputSchema: expected an object, got a string`. */
  reason: string;
}

/** Every page of `tools/list`: the usable tools, and the ones left out. */
export interface McpToolListing {
  tools: Tool[];
  unusable: UnusableMcpTool[];
}

/** A `tools/list` page whose tools are not checked yet. */
const uncheckedPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** How many problems of one tool the reason names. */
const REASONS_SHOWN = 3;

/**
 * Lists every page of a server's tools. A page is read with the SDK's own `listTools` (which also
 * prepares its checks of `structuredContent`); a page the SDK's schema rejects — one tool with a
 * non-object `inputSchema` is enough — is read again and checked tool by tool, so one unusable tool
 * is left out (and reported in `unusable`) instead of failing the whole server.
 *
 * Contract: async; rejects with the SDK's `McpError` when the request itself fails (timeout, closed
 * connection, an error answer). Never rejects because of a tool's shape.
 *
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
 * const client = new Client({ name: "agentchart", version: "0.3.0" });
 * await client.connect(new StdioClientTransport({ command: "npx", args: ["@modelcontextprotocol/server-everything"] }));
 * const { tools, unusable } = await listMcpTools(client, { timeout: 30_000 });
 * for (const { tool, reason } of unusable) console.warn(`${tool} left out: ${reason}`);
 * ```
 */
export async function listMcpTools(client: Client, options: RequestOptions): Promise<McpToolListing> {
  const listing: McpToolListing = { tools: [], unusable: [] };
  let listed = 0;
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    let page: { tools: unknown[]; nextCursor?: string | undefined };
    try {
      page = await client.listTools(params, options);
    } catch (error) {
      if (error instanceof mcpSdk.McpError) throw error;
      // The answer came but does not match the SDK's schema: read it again, one tool at a time.
      page = await client.request({ method: "tools/list", params }, uncheckedPage, options);
    }
    for (const raw of page.tools) {
      listed++;
      const checked = mcpSdk.ToolSchema.safeParse(raw);
      if (checked.success) listing.tools.push(checked.data);
      else listing.unusable.push({ tool: toolLabel(raw, listed), reason: reasonOf(raw, checked.error) });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return listing;
}

function toolLabel(raw: unknown, position: number): string {
  const name = (raw as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : `tools/list entry ${position}`;
}

/** The first problems of a tool, each as `path: expected …, got …`. */
function reasonOf(raw: unknown, error: z.ZodError): string {
  return error.issues
    .slice(0, REASONS_SHOWN)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      const at = path === "" ? "the tool" : path;
      const value = valueAt(raw, issue.path);
      if (issue.code === "invalid_type") {
        return `${at}: expected ${withArticle(issue.expected)}, got ${kindOf(value)}`;
      }
      if (issue.code === "invalid_value") {
        const wanted = issue.values.map((allowed) => JSON.stringify(allowed)).join(" or ");
        return `${at}: expected ${wanted}, got ${shortJson(value)}`;
      }
      return `${at}: ${issue.message}`;
    })
    .join("; ");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return withArticle(Array.isArray(value) ? "array" : typeof value);
}

function shortJson(value: unknown): string {
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined) return kindOf(value);
  return json.length <= 40 ? json : `${json.slice(0, 40)}…`;
}

function withArticle(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
