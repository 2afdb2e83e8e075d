import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult,
  JSONRPCMessage,
  MessageExtraInfo,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolExecutionContext, ToolResult } from "../types/tool.js";
import { listMcpTools, type UnusableMcpTool } from "./list-mcp-tools.js";
import { isStdioServer, type McpHttpServerConfig, type McpServerConfig } from "./mcp-config.js";
import { McpClientError, mcpErrorText } from "./mcp-error.js";
import { errorResultText, type McpToolDetails, toToolResult } from "./mcp-result.js";
import { mcpSdk } from "./mcp-sdk.js";

/** How a server is reached. */
export type McpTransportKind = "stdio" | "streamable-http" | "sse";

/**
 * `connecting` → `connected`; `failed` when it could not start; `crashed` when it exited or closed
 * the connection (restarted on the next call); `closed` after `close()`.
 */
export type McpServerState = "connecting" | "connected" | "failed" | "crashed" | "closed";

/** The settings a connection needs besides its entry. */
export interface McpConnectionSettings {
  /** Milliseconds to wait for the server to start, answer `initialize` and list its tools. */
  connectTimeoutMs: number;
  /** Milliseconds to wait for each answer; a progress notification restarts the wait. */
  requestTimeoutMs: number;
  /** How many times a crashed server is started again (on the next call). */
  maxRestarts: number;
  /** The folder stdio servers start in, and relative `cwd`s are resolved against. */
  cwd: string;
  /** The client name and version sent in `initialize`. */
  clientInfo: { name: string; version: string };
}

/** How many characters of a stdio server's stderr are kept for error messages. */
const STDERR_TAIL = 2_000;

/**
 * One MCP server: its client, its state and its tool list. Starting never rejects (a failure is the
 * state `failed` with an error text); a crashed server is started again on the next call, at most
 * `maxRestarts` times. `onToolsChanged` is called after every new listing.
 */
export class McpServerConnection {
  #state: McpServerState = "connecting";
  #error: string | undefined;
  #client: Client | undefined;
  #transport: McpTransportKind | undefined;
  #pid: number | undefined;
  #tools: Tool[] = [];
  #unusableTools: UnusableMcpTool[] = [];
  #restarts = 0;
  #stderr = "";
  #starting: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    readonly settings: McpConnectionSettings,
    private readonly onToolsChanged: () => void,
  ) {}

  get state(): McpServerState {
    return this.#state;
  }
  /** Why the server failed or crashed (with the end of its stderr for stdio servers). */
  get error(): string | undefined {
    return this.#error;
  }
  /** The tools the server listed last (empty until it connected). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }
  /** The tools of the last listing that were left out because their definition is not usable. */
  get unusableTools(): readonly UnusableMcpTool[] {
    return this.#unusableTools;
  }
  get transport(): McpTransportKind | undefined {
    return this.#transport;
  }
  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    return this.#pid;
  }
  /** How many times the server was started again after a crash. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts (or restarts) the server and lists its tools. Never rejects: see `state` and `error`. */
  start(): Promise<void> {
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Calls a tool of this server: progress notifications go to `ctx.update`, an abort of `ctx.signal`
   * cancels the request (MCP `notifications/cancelled`). Rejects with `McpClientError`: `tool_error`
   * (the tool answered `isError: true`, or the server refused the call), `timeout`, `server_closed`
   * (the server exited during the call), `unavailable` (it crashed too often or cannot restart),
   * `closed`.
   */
  async callTool(
    tool: string,
    args: unknown,
    ctx: Pick<ToolExecutionContext, "signal" | "update">,
  ): Promise<ToolResult<McpToolDetails>> {
    // The common case without an await: connected, nothing starting.
    const client =
      this.#client && this.#state === "connected" && !this.#starting
        ? this.#client
        : await this.#usableClient(tool);
    const params = { name: tool, arguments: (args ?? {}) as Record<string, unknown> };
    const options: RequestOptions = {
      signal: ctx.signal,
      timeout: this.#requestTimeout(),
      resetTimeoutOnProgress: true,
      onprogress: (progress) => ctx.update(progress),
    };
    let result: CallToolResult;
    try {
      const listed = this.#tools.find((candidate) => candidate.name === tool);
      result =
        listed?.execution?.taskSupport === "required"
          ? await this.#callTaskTool(client, params, options, ctx)
          : ((await client.callTool(params, undefined, options)) as CallToolResult);
    } catch (error) {
      throw this.#callError(tool, error, ctx.signal);
    }
    if (result.isError) {
      throw new McpClientError("tool_error", this.name, errorResultText(this.name, tool, result));
    }
    return toToolResult(this.name, tool, result);
  }

  /**
   * A tool that must run as an MCP task: its status changes go to `ctx.update` as
   * `{ taskId, status, statusMessage? }`; an abort cancels the task too.
   */
  async #callTaskTool(
    client: Client,
    params: { name: string; arguments: Record<string, unknown> },
    options: RequestOptions,
    ctx: Pick<ToolExecutionContext, "signal" | "update">,
  ): Promise<CallToolResult> {
    let taskId: string | undefined;
    const cancel = () => {
      if (taskId !== undefined) client.experimental.tasks.cancelTask(taskId).catch(() => {});
    };
    ctx.signal.addEventListener("abort", cancel, { once: true });
    try {
      for await (const message of client.experimental.tasks.callToolStream(params, undefined, options)) {
        if (message.type === "taskCreated") taskId = message.task.taskId;
        else if (message.type === "taskStatus") {
          const { status, statusMessage } = message.task;
          ctx.update({ taskId: message.task.taskId, status, ...(statusMessage ? { statusMessage } : {}) });
        } else if (message.type === "result") return message.result as CallToolResult;
        else throw message.error;
      }
      throw new Error(`The task of ${params.name} ended without a result`);
    } finally {
      ctx.signal.removeEventListener("abort", cancel);
    }
  }

  /** Closes the connection and ends the child process of a stdio server. Idempotent. */
  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    await this.#starting;
    const client = this.#client;
    this.#client = undefined;
    this.#pid = undefined;
    await client?.close().catch(() => {});
  }

  async #start(): Promise<void> {
    this.#state = "connecting";
    this.#error = undefined;
    try {
      const client = await this.#connect();
      if (this.#isClosed()) {
        await client.close().catch(() => {});
        return;
      }
      this.#client = client;
      const listing = await this.#listTools(client);
      // Closed meanwhile: `close()` ends the client it finds in `#client`.
      if (this.#isClosed()) return;
      this.#tools = listing.tools;
      this.#unusableTools = listing.unusable;
      this.#state = "connected";
      this.onToolsChanged();
    } catch (error) {
      const client = this.#client;
      this.#client = undefined;
      this.#pid = undefined;
      await client?.close().catch(() => {});
      if (this.#isClosed()) return;
      this.#state = "failed";
      this.#error = this.#describe(`failed to start: ${startFailureText(error, this.#connectTimeout())}`);
    }
  }

  async #connect(): Promise<Client> {
    if (isStdioServer(this.config)) {
      const transport = new mcpSdk.StdioClientTransport({
        command: this.config.command,
        ...(this.config.args ? { args: this.config.args } : {}),
        ...(this.config.env ? { env: this.config.env } : {}),
        cwd: resolve(this.settings.cwd, this.config.cwd ?? "."),
        stderr: "pipe",
      });
      this.#stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      const client = await this.#connectClient(transport);
      this.#transport = "stdio";
      this.#pid = transport.pid ?? undefined;
      return client;
    }
    return this.#connectHttp(this.config);
  }

  /** Streamable HTTP first, then the older SSE transport (only SSE for `type: "sse"`). */
  async #connectHttp(config: McpHttpServerConfig): Promise<Client> {
    const url = new URL(config.url);
    const requestInit: RequestInit | undefined = config.headers ? { headers: config.headers } : undefined;
    const options = requestInit ? { requestInit } : {};
    let streamableFailure: unknown;
    if (config.type !== "sse") {
      try {
        const client = await this.#connectClient(new mcpSdk.StreamableHTTPClientTransport(url, options));
        this.#transport = "streamable-http";
        return client;
      } catch (error) {
        if (isTimeout(error)) throw error;
        streamableFailure = error;
      }
    }
    try {
      const client = await this.#connectClient(new mcpSdk.SSEClientTransport(url, options));
      this.#transport = "sse";
      return client;
    } catch (error) {
      if (streamableFailure === undefined) throw error;
      throw new Error(`Streamable HTTP: ${mcpErrorText(streamableFailure)}; SSE: ${mcpErrorText(error)}`, {
        cause: error,
      });
    }
  }

  async #connectClient(transport: Transport): Promise<Client> {
    const client = new mcpSdk.Client(this.settings.clientInfo, {
      capabilities: {},
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.#refreshTools(client) },
      },
    });
    client.onclose = () => this.#onClosed(client);
    try {
      await client.connect(transport, {
        timeout: this.#connectTimeout(),
        signal: AbortSignal.timeout(this.#connectTimeout()),
      });
      keepNotificationOrder(transport);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    return client;
  }

  /** Every page of `tools/list`; unusable tools are set apart (see {@link listMcpTools}). */
  #listTools(client: Client) {
    return listMcpTools(client, { timeout: this.#connectTimeout() });
  }

  /** `notifications/tools/list_changed`: lists again; a failed listing keeps the old tools. */
  async #refreshTools(client: Client): Promise<void> {
    if (this.#client !== client || this.#state !== "connected") return;
    try {
      const listing = await this.#listTools(client);
      if (this.#client !== client) return;
      this.#tools = listing.tools;
      this.#unusableTools = listing.unusable;
      this.onToolsChanged();
    } catch {
      // The server may have exited meanwhile; the next call reports it.
    }
  }

  #onClosed(client: Client): void {
    if (this.#client !== client || this.#state === "closed") return;
    this.#client = undefined;
    this.#pid = undefined;
    this.#state = "crashed";
    this.#error = this.#describe("exited or closed the connection");
  }

  /** The connected client; a crashed (or failed to restart) server is started again while allowed. */
  async #usableClient(tool: string): Promise<Client> {
    if (this.#starting) await this.#starting;
    if (this.#state === "closed") {
      throw new McpClientError("closed", this.name, `MCP server "${this.name}" is closed`);
    }
    if (this.#client && this.#state === "connected") return this.#client;
    if (this.#restarts >= this.settings.maxRestarts) {
      throw new McpClientError(
        "unavailable",
        this.name,
        `MCP server "${this.name}" is unavailable (${this.#restarts} restarts used), so ${tool} cannot run: ${this.#error ?? this.#state}`,
      );
    }
    this.#restarts++;
    await this.start();
    if (this.#client && this.#state === "connected") return this.#client;
    throw new McpClientError(
      "unavailable",
      this.name,
      `MCP server "${this.name}" could not be restarted, so ${tool} cannot run: ${this.#error ?? this.#state}`,
    );
  }

  #callError(tool: string, error: unknown, signal: AbortSignal): Error {
    if (signal.aborted)
      return new McpClientError("tool_error", this.name, "Operation aborted", { cause: error });
    if (error instanceof mcpSdk.McpError && error.code === mcpSdk.ErrorCode.RequestTimeout) {
      return new McpClientError(
        "timeout",
        this.name,
        `MCP server "${this.name}" did not answer the call of ${tool} within ${this.#requestTimeout()} ms`,
        { cause: error },
      );
    }
    if (
      this.#state === "crashed" ||
      (error instanceof mcpSdk.McpError && error.code === mcpSdk.ErrorCode.ConnectionClosed)
    ) {
      const restart =
        this.#restarts < this.settings.maxRestarts ? "; it will be started again on the next call" : "";
      return new McpClientError(
        "server_closed",
        this.name,
        this.#describe(`exited during the call of ${tool}${restart}`),
        {
          cause: error,
        },
      );
    }
    return new McpClientError("tool_error", this.name, mcpErrorText(error), { cause: error });
  }

  /** `MCP server "<name>" <what>`, with the end of its stderr when there is one. */
  #describe(what: string): string {
    const stderr = this.#stderr.trim();
    return `MCP server "${this.name}" ${what}${stderr === "" ? "" : `\n[stderr] ${stderr}`}`;
  }

  /** Read through a method: `close()` may change the state while a start awaits. */
  #isClosed(): boolean {
    return this.#state === "closed";
  }

  #connectTimeout(): number {
    return this.config.timeout ?? this.settings.connectTimeoutMs;
  }
  #requestTimeout(): number {
    return this.config.timeout ?? this.settings.requestTimeoutMs;
  }
}

/**
 * The SDK handles a response at once but a notification one microtask later, so progress that arrives
 * in the same read as its call's answer would be dropped. Delivering answers one microtask later
 * keeps the order the server sent them in.
 */
function keepNotificationOrder(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = ((message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ("id" in message && ("result" in message || "error" in message)) {
      queueMicrotask(() => deliver(message, extra));
    } else deliver(message, extra);
  }) as Transport["onmessage"];
}

function isTimeout(error: unknown): boolean {
  return (
    (error instanceof mcpSdk.McpError && error.code === mcpSdk.ErrorCode.RequestTimeout) ||
    (error instanceof Error && error.name === "TimeoutError")
  );
}

function startFailureText(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `no answer to initialize within ${timeoutMs} ms`;
  if (error instanceof mcpSdk.McpError && error.code === mcpSdk.ErrorCode.ConnectionClosed) {
    return "the connection closed before the server answered initialize";
  }
  return mcpErrorText(error);
}
