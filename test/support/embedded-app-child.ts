// A process that runs the embedded app until the agent's call waits for approval, prints the app's
// persisted snapshot (plain XState: `getPersistedSnapshot()`) as one JSON line and exits — the
// process that restores it (test/machines/embedding.test.ts) is another one.
import { createActor } from "xstate";
import { APP_REPLIES, appMachine } from "./embedded-app.js";

const app = createActor(
  appMachine({ replies: APP_REPLIES, onRun: (key) => process.stdout.write(`RUNNING ${key}\n`) }),
);
app.subscribe((snapshot) => {
  if (snapshot.context.waiting.length === 0) return;
  process.stdout.write(`${JSON.stringify(app.getPersistedSnapshot())}\n`);
  process.exit(0);
});
app.start();
app.send({ type: "ASK", text: "charge me" });
