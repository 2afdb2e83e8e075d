// A process that runs the app embedding the harness machine on a JSONL session until the agent's
// call waits for approval, then prints the app's persisted snapshot (plain XState:
// `getPersistedSnapshot()`) as one JSON line and exits; test/harness/harness-embedding.test.ts
// restores it in another process.
// Usage: tsx embedded-harness-child.ts <sessions root> <effects file>
import { type AnyActorRef, createActor } from "xstate";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { HARNESS_APP_REPLIES, harnessAppMachine } from "./embedded-harness-app.js";

const [root, effects] = process.argv.slice(2);
const session = await new JsonlSessionRepo({ root: root! }).create({ cwd: "/shop", id: "embedded-harness" });
const app = createActor(harnessAppMachine({ session, replies: HARNESS_APP_REPLIES, effects: effects! }));
app.start();
const harness = app.getSnapshot().children.harness as AnyActorRef;
const agent = harness.getSnapshot().children.agent as AnyActorRef;
agent.on("tool_approval_request", () => {
  void session.flush().then(() => {
    process.stdout.write(`${JSON.stringify(app.getPersistedSnapshot())}\n`);
    process.exit(0);
  });
});
app.send({ type: "ASK", text: "Refund order A-17" });
