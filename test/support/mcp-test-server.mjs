// A small MCP server written with the official SDK, for the tests and the bench. Plain JavaScript so
// `node test/support/mcp-test-server.mjs [flags]` starts it at once over stdio; tests import
// `startHttpTestServer` to serve it over Streamable HTTP and the older SSE transport on 127.0.0.1.
//
// Flags (stdio): --silent-start (reads stdin, never answers: a server that hangs on initialize),
// --invalid-schema (adds a tool whose JSON Schema cannot be compiled), --collide (adds "do.it" and
// "do_it", which map to the same agent tool name), --unusable-tools (adds a tool whose inputSchema is not
// an object and a tool without a name, which the SDK's schema rejects), --crash-on-start (exits at once,
// after a line on stderr).
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

/** A 1×1 PNG. */
export const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const object = (properties = {}, required = []) => ({ type: "object", properties, required });

const BASE_TOOLS = [
  {
    name: "echo",
    description: "Returns its text",
    inputSchema: object({ text: { type: "string" } }, ["text"]),
  },
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: object({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
    outputSchema: object({ sum: { type: "number" } }, ["sum"]),
  },
  { name: "image", description: "Returns a tiny PNG", inputSchema: object() },
  {
    name: "resources",
    description: "Returns an embedded resource and a resource link",
    inputSchema: object(),
  },
  { name: "fail", description: "Always answers with isError", inputSchema: object() },
  {
    name: "progress",
    description: "Reports progress for each step, then answers",
    inputSchema: object({ steps: { type: "integer", minimum: 1 } }, ["steps"]),
  },
  {
    name: "wait_for_cancel",
    description: "Reports progress 0, then answers only when cancelled",
    inputSchema: object(),
  },
  { name: "cancellations", description: "How many calls were cancelled so far", inputSchema: object() },
  { name: "add_tool", description: "Adds the tool `late` and announces it", inputSchema: object() },
  { name: "crash", description: "Exits the process in the middle of the call", inputSchema: object() },
  { name: "hang", description: "Never answers", inputSchema: object() },
  { name: "pid", description: "The server's process id", inputSchema: object() },
  {
    name: "reject",
    description: "Refuses the call with a JSON-RPC error (an McpError thrown by the handler)",
    inputSchema: object(),
  },
];

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });

/** A new low-level SDK server with the test tools; state (added tools, cancellations) is per server. */
export function createTestServer(flags = {}) {
  const server = new Server(
    { name: "agentchart-test", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  const tools = [...BASE_TOOLS];
  if (flags.invalidSchema) {
    tools.push({
      name: "broken",
      description: "Its schema is invalid",
      inputSchema: object({ x: { type: "nonsense" } }),
    });
  }
  if (flags.unusableTools) {
    tools.push({ name: "scalar_schema", description: "Its inputSchema is a string", inputSchema: "text" });
    tools.push({ description: "A tool without a name", inputSchema: object() });
  }
  if (flags.collide) {
    tools.push({ name: "do.it", description: "First", inputSchema: object() });
    tools.push({ name: "do_it", description: "Second", inputSchema: object() });
  }
  let cancelled = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return text(args.text);
      case "add":
        return { ...text(args.a + args.b), structuredContent: { sum: args.a + args.b } };
      case "image":
        return {
          content: [
            { type: "text", text: "a tiny image" },
            { type: "image", data: TINY_PNG, mimeType: "image/png" },
          ],
        };
      case "resources":
        return {
          content: [
            {
              type: "resource",
              resource: { uri: "test://notes/1", mimeType: "text/plain", text: "note one" },
            },
            {
              type: "resource_link",
              uri: "test://notes/2",
              name: "note two",
              description: "the second note",
            },
          ],
        };
      case "fail":
        return { isError: true, content: [{ type: "text", text: "the tool failed on purpose" }] };
      case "progress": {
        const token = request.params._meta?.progressToken;
        for (let step = 1; step <= args.steps; step++) {
          if (token !== undefined) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: step, total: args.steps, message: `step ${step}` },
            });
          }
        }
        return text(`done after ${args.steps} steps`);
      }
      case "wait_for_cancel": {
        const token = request.params._meta?.progressToken;
        const waiting = new Promise((resolve) => {
          extra.signal.addEventListener("abort", () => {
            cancelled++;
            resolve(text("cancelled"));
          });
        });
        // Tells the client the call has arrived, so a test can abort it from then on.
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: 0, message: "waiting for the cancellation" },
          });
        }
        return waiting;
      }
      case "cancellations":
        return text(cancelled);
      case "add_tool":
        if (!tools.some((tool) => tool.name === "late")) {
          tools.push({ name: "late", description: "Added later", inputSchema: object() });
        }
        await server.sendToolListChanged();
        return text("added");
      case "late":
        return text("late tool ran");
      case "crash":
        process.stderr.write("crashing on purpose\n");
        process.exit(3);
        break;
      case "hang":
        return new Promise(() => {});
      case "pid":
        return text(process.pid);
      case "reject":
        throw new McpError(ErrorCode.InvalidParams, "the value is out of range");
      case "do.it":
      case "do_it":
        return text(request.params.name);
    }
    return { isError: true, content: [{ type: "text", text: `unknown tool ${request.params.name}` }] };
  });
  return server;
}

/**
 * Serves fresh test servers on 127.0.0.1 (a free port): Streamable HTTP at `/mcp` (one server per
 * session) and the older SSE transport at `/sse` (+ `/messages`), where a Streamable HTTP POST gets
 * 405. Resolves with the base URL and `close()`.
 */
export async function startHttpTestServer(flags = {}) {
  const sessions = new Map();
  const sse = new Map();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      if (url.pathname === "/mcp") {
        const id = req.headers["mcp-session-id"];
        let transport = typeof id === "string" ? sessions.get(id) : undefined;
        if (!transport) {
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => crypto.randomUUID(),
            onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
          });
          await createTestServer(flags).connect(transport);
        }
        await transport.handleRequest(req, res);
      } else if (url.pathname === "/sse" && req.method === "GET") {
        const transport = new SSEServerTransport("/messages", res);
        sse.set(transport.sessionId, transport);
        await createTestServer(flags).connect(transport);
      } else if (url.pathname === "/messages" && req.method === "POST") {
        const transport = sse.get(url.searchParams.get("sessionId"));
        if (!transport) res.writeHead(404).end();
        else await transport.handlePostMessage(req, res);
      } else {
        res.writeHead(url.pathname === "/sse" ? 405 : 404).end();
      }
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await Promise.all([...sessions.values(), ...sse.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.includes("--crash-on-start")) {
    process.stderr.write("cannot start: crashing on purpose\n");
    process.exit(2);
  }
  if (argv.includes("--silent-start")) {
    process.stdin.resume();
    return;
  }
  const server = createTestServer({
    invalidSchema: argv.includes("--invalid-schema"),
    collide: argv.includes("--collide"),
    unusableTools: argv.includes("--unusable-tools"),
  });
  await server.connect(new StdioServerTransport());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
