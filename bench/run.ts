// `npm run bench`: runs every existing bench/*.bench.ts file in its own
// `node --expose-gc --import tsx` process (loop, persist, session, session-list, openai, ai-sdk, harness,
// postgres, workers, mcp, otel, read-tool, ag-ui, testing-kit, evals, replay, session-recording), skipping absent ones.
// Extra arguments are passed to every bench.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BENCHES = [
  "loop",
  "persist",
  "session",
  "session-list",
  "openai",
  "ai-sdk",
  "harness",
  "postgres",
  "workers",
  "mcp",
  "otel",
  "read-tool",
  "ag-ui",
  "output-guardrails",
  "subagents",
  "testing-kit",
  "evals",
  "replay",
  "session-recording",
];
const root = fileURLToPath(new URL("..", import.meta.url));
const peer = new URL("./node_modules/@mariozechner/pi-agent-core/package.json", import.meta.url);

if (!existsSync(peer)) {
  console.error(
    "The benches compare against @mariozechner/pi-agent-core, installed only for them. Run:\n\n  npm --prefix bench ci\n\nthen `npm run bench` again.",
  );
  process.exit(1);
}

// The benches measure the compiled library, as users run it.
console.log("building dist/ (npm run build) …");
if (spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" }).status !== 0)
  process.exit(1);

let failed = 0;
for (const name of BENCHES) {
  const file = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url));
  if (!existsSync(file)) {
    console.log(`(skipping bench/${name}.bench.ts: not present)`);
    continue;
  }
  console.log(`\n## bench/${name}.bench.ts\n`);
  const result = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", file, ...process.argv.slice(2)],
    { cwd: root, stdio: "inherit" },
  );
  if (result.status !== 0) {
    console.error(`bench/${name}.bench.ts failed (exit ${result.status ?? result.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
