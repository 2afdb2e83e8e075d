// Appends to a Postgres session one message at a time, printing "ACK <text>" after each stored one,
// until an append is refused: then prints "REFUSED <code>" and exits.
// Usage: tsx lease-zombie-child.ts <postgres URL> <schema> <session id>
import { PostgresSessionRepo } from "../../src/postgres.js";

const [url, schema, sessionId] = process.argv.slice(2);
const repo = new PostgresSessionRepo({ connectionString: url!, schema: schema!, leaseMs: 5_000 });
const session = await repo.create({ id: sessionId!, cwd: "/w" });
for (let n = 0; ; n++) {
  const text = `zombie ${n}`;
  try {
    await session.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  } catch (error) {
    process.stdout.write(`REFUSED ${(error as { code?: string }).code}\n`);
    break;
  }
  process.stdout.write(`ACK ${text}\n`);
}
await session.close();
await repo.close();
