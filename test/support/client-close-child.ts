// An app that creates a client, submits a prompt (no worker serves it), watches the session twice
// (from a position, and from "now"), and closes the client once the first watch reported the run
// state. Prints "CLOSED <n> completed" after close() resolved (n: the watches that completed), then
// must exit by itself: nothing of the client may keep the process alive.
// Usage: tsx client-close-child.ts <postgres URL> <schema>
import { createClient } from "../../src/postgres.js";

const [url, schema] = process.argv.slice(2);
const client = await createClient({ connectionString: url!, schema: schema! });
const { afterSeq } = await client.submit("closing", "hello", { cwd: "/w" });
let completed = 0;
const complete = () => {
  completed++;
};
await new Promise<void>((resolve, reject) => {
  client.watch("closing", { afterSeq }).subscribe({
    next: (update) => {
      if (update.type === "run_state") resolve();
    },
    error: reject,
    complete,
  });
  client.watch("closing").subscribe({ error: reject, complete });
});
await client.close();
process.stdout.write(`CLOSED ${completed} completed\n`);
