// Appends to a session in bursts until killed, printing each acknowledged entry id on its own line.
// Usage: tsx session-crash-child.ts <root> <sessionId> <durability>
import { JsonlSessionRepo } from "../../src/node.js";

const [root, sessionId, durability] = process.argv.slice(2);
const repo = new JsonlSessionRepo({ root: root!, durability: durability === "fsync" ? "fsync" : "none" });
const session = await repo.open(sessionId!);
let n = 0;
for (;;) {
  const burst = 1 + Math.floor(Math.random() * 20);
  const appends = [];
  for (let i = 0; i < burst; i++) {
    const text = `message ${n++} ${"ü€".repeat(Math.floor(Math.random() * 50))}`;
    appends.push(session.appendMessage({ role: "user", content: text, timestamp: Date.now() }));
  }
  for (const append of appends) {
    const entry = await append;
    process.stdout.write(`${entry.id}\n`);
  }
}
