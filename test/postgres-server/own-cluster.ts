import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** A free TCP port of 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A throwaway PostgreSQL cluster this test owns, so that it can stop and start it under running
 * workers (the suite's shared server must stay up). As `.ci/with-postgres.sh` does: initdb into a
 * temp folder (as the `postgres` user when run as root), trust auth on 127.0.0.1.
 */
export class OwnCluster {
  private constructor(
    private readonly folder: string,
    private readonly port: number,
  ) {}

  /** The connection string of the cluster's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Creates and starts a cluster. */
  static async create(): Promise<OwnCluster> {
    const folder = await mkdtemp(join(tmpdir(), "agentchart-own-pg-"));
    const cluster = new OwnCluster(folder, await freePort());
    if (process.getuid?.() === 0) await run("chown", ["postgres:postgres", folder]);
    await cluster.asOwner("initdb", ["-D", cluster.data, "-U", "postgres", "--auth=trust", "--no-locale"]);
    await cluster.start();
    return cluster;
  }

  private get data(): string {
    return join(this.folder, "data");
  }

  /** Starts the cluster and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.folder} -c listen_addresses=127.0.0.1`;
    await this.asOwner("pg_ctl", [
      "-D",
      this.data,
      "-l",
      join(this.folder, "server.log"),
      "-w",
      "-o",
      options,
      "start",
    ]);
  }

  /** Stops the cluster (fast: open connections are closed) and waits until it is down. */
  async stop(): Promise<void> {
    await this.asOwner("pg_ctl", ["-D", this.data, "-m", "fast", "-w", "stop"]);
  }

  /** Stops the cluster if it runs and deletes its folder. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => {});
    await rm(this.folder, { recursive: true, force: true });
  }

  private async asOwner(program: string, args: string[]): Promise<void> {
    const binary = join(PG_BIN, program);
    if (process.getuid?.() === 0) await run("runuser", ["-u", "postgres", "--", binary, ...args]);
    else await run(binary, args);
  }
}
