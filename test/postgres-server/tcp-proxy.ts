import { createServer, type Server, Socket } from "node:net";

/** One proxied connection: what the client sent so far (as text) and whether it is blackholed. */
export interface ProxiedConnection {
  sent: string;
  blackholed: boolean;
}

/**
 * A loopback TCP proxy to the test server that the test controls: it can blackhole one connection —
 * from then on nothing passes in either direction and nothing is closed, as when a NAT forgets the
 * connection or a failover leaves it half-open. PostgreSQL's protocol is plain text here (no TLS), so
 * a connection is picked by what its client sent (a statement's text).
 */
export class TcpProxy {
  readonly connections: ProxiedConnection[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #armed: ((connection: ProxiedConnection, chunk: string) => boolean) | undefined;
  #onBlackholed: (() => void) | undefined;

  private constructor(
    server: Server,
    readonly url: string,
  ) {
    this.#server = server;
  }

  /** Starts a proxy on 127.0.0.1 (a free port) to the server of `databaseUrl`; `url` goes through it. */
  static async start(databaseUrl: string): Promise<TcpProxy> {
    const target = new URL(databaseUrl);
    let proxy!: TcpProxy;
    const server = createServer((client) => proxy.#accept(client, target.hostname, Number(target.port)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const url = new URL(databaseUrl);
    url.host = `127.0.0.1:${port}`;
    proxy = new TcpProxy(server, url.toString());
    return proxy;
  }

  /** Connections opened through the proxy so far. */
  get opened(): number {
    return this.connections.length;
  }

  /**
   * Blackholes the first connection whose next chunk from the client satisfies `match` (that chunk
   * is swallowed too); resolves once it happened.
   */
  blackholeWhen(match: (chunk: string, connection: ProxiedConnection) => boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#armed = (connection, chunk) => match(chunk, connection);
      this.#onBlackholed = resolve;
    });
  }

  /** Blackholes this connection now. */
  blackhole(connection: ProxiedConnection): void {
    connection.blackholed = true;
  }

  /** Closes every connection and the proxy. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket, host: string, port: number): void {
    const connection: ProxiedConnection = { sent: "", blackholed: false };
    this.connections.push(connection);
    const server = new Socket();
    this.#sockets.add(client).add(server);
    server.connect(port, host);
    client.on("data", (chunk) => {
      const text = chunk.toString("latin1");
      if (!connection.blackholed && this.#armed?.(connection, text)) {
        connection.blackholed = true;
        this.#armed = undefined;
        this.#onBlackholed?.();
      }
      if (connection.blackholed) return;
      connection.sent = (connection.sent + text).slice(-4096);
      server.write(chunk);
    });
    server.on("data", (chunk) => {
      if (!connection.blackholed) client.write(chunk);
    });
    // A blackholed connection is never closed by the proxy (the test's close() ends it).
    client.on("close", () => {
      this.#sockets.delete(client);
      if (!connection.blackholed) server.destroy();
    });
    server.on("close", () => {
      this.#sockets.delete(server);
      if (!connection.blackholed) client.destroy();
    });
    client.on("error", () => {});
    server.on("error", () => {});
  }
}
