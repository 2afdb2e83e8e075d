// The PostgreSQL server a bench uses: the one in AGENTCHART_TEST_DATABASE_URL, else a throwaway
// cluster that .ci/with-postgres.sh starts around a re-run of the calling bench (and stops after it).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const URL_VARIABLE = "AGENTCHART_TEST_DATABASE_URL";

/**
 * The server's URL. Without one, re-runs `benchFile` (with the same arguments) inside a throwaway
 * cluster and exits with its status: the code after this call then runs in that child only.
 */
export function postgresUrl(benchFile: string): string {
  const url = process.env[URL_VARIABLE];
  if (url) return url;
  const script = fileURLToPath(new URL("../.ci/with-postgres.sh", import.meta.url));
  const self = fileURLToPath(benchFile);
  const args = [script, process.execPath, ...process.execArgv, self, ...process.argv.slice(2)];
  const result = spawnSync("bash", args, { stdio: "inherit" });
  process.exit(result.status ?? 1);
}
