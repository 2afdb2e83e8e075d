import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createServer as createViteServer } from "vite";
import { z } from "zod";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { toNodeListener } from "../../src/ag-ui/node-listener.js";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Model } from "../../src/types/model.js";
import { webChatModel } from "./web-chat-model.js";

const MODEL: Model = {
  id: "web-chat",
  api: "scripted",
  provider: "agentchart",
  contextWindow: 32_000,
  maxTokens: 2_048,
};

/** A tool the user must approve before it runs. */
const deployTool = defineTool({
  name: "deploy",
  description: "Deploys the app to a target",
  parameters: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: async ({ target }) => ({ content: [{ type: "text", text: `The app is live on ${target}.` }] }),
});

/** A running web chat: its URL, the harness of each thread, and `close()`. */
export interface WebChat {
  url: string;
  sessionRoot: string;
  harnesses: Map<string, AgentHarness>;
  close(): Promise<void>;
}

/**
 * Starts the web chat: the page (served by Vite from this folder) and the AG-UI endpoint at `/agent`,
 * one `AgentHarness` per thread on a JSONL session under `sessionRoot`, with the offline model. The
 * page's frontend tool `pick_colour` is declared by the page; its calls wait for the user's answer.
 */
export async function startWebChat(
  options: { port?: number; sessionRoot?: string; delayMs?: number } = {},
): Promise<WebChat> {
  const sessionRoot = options.sessionRoot ?? mkdtempSync(path.join(tmpdir(), "agentchart-web-chat-"));
  const repo = new JsonlSessionRepo({ root: sessionRoot });
  const harnesses = new Map<string, AgentHarness>();
  const handler = createAgUiHandler({
    agentFor: async (threadId, { clientTools }) => {
      if (!/^[A-Za-z0-9-]{1,64}$/.test(threadId)) throw new Error(`Not a thread id: ${threadId}`);
      const session = await repo.open(threadId).catch(() => repo.create({ id: threadId, cwd: "/web-chat" }));
      const harness = new AgentHarness({
        model: MODEL,
        streamFn: webChatModel(options.delayMs),
        session,
        // The page's tools (pick_colour), as declared by the request that opens the thread.
        tools: [deployTool, ...clientTools],
        systemPrompt: "You are the agentchart web chat demo.",
      });
      harnesses.set(threadId, harness);
      return harness;
    },
    // An idle thread is evicted after 30 minutes: its session is closed, its next request reopens it.
    onThreadEvicted: async (threadId, harness) => {
      harnesses.delete(threadId);
      await harness.session.close();
    },
  });
  const vite = await createViteServer({
    root: path.dirname(fileURLToPath(import.meta.url)),
    configFile: false,
    logLevel: "warn",
    appType: "spa",
    server: { middlewareMode: true, hmr: false },
    // Bundled up front, so that the first page load does not reload the page when Vite finds them.
    optimizeDeps: { include: ["react", "react-dom/client", "@xstate/store", "@xstate/store-react"] },
  });
  const agent = toNodeListener(handler);
  const server: Server = createServer((request, response) => {
    if (request.url?.startsWith("/agent")) agent(request, response);
    else vite.middlewares(request, response);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    sessionRoot,
    harnesses,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vite.close();
    },
  };
}
