import { createInspectorServer } from "../inspector/inspector-server.js";
import { agentMachine } from "../machines/agent/agent.machine.js";

/** The port `agentchart inspect` listens on and `--inspect` connects to by default. */
export const DEFAULT_INSPECTOR_PORT = 4000;

/**
 * `agentchart inspect`: starts the local inspector server, prints its URL and serves until SIGINT or
 * SIGTERM, then closes it. Resolves with the exit code.
 */
export async function runInspector(options: { port: number; host?: string; print: (line: string) => void }) {
  const server = await createInspectorServer({
    port: options.port,
    host: options.host ?? "127.0.0.1",
    // A recording opened on the page is drawn on the agent machine.
    machines: [agentMachine],
  });
  options.print(server.url);
  options.print(
    `inspector running; start an agent with: agentchart --inspect=${server.url} "…"  (Ctrl-C stops)`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await server.close();
  return 0;
}
