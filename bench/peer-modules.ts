// The comparison peers are installed only for the benches (bench/package.json, exact pins, committed
// lock file). They are imported from bench/node_modules through a computed specifier, so the root
// repository type-checks without them; each peer file types what it uses structurally.
import { existsSync } from "node:fs";

export const PEERS_MISSING_MESSAGE =
  "The comparison peers (pi-agent-core, the AI SDK, OpenAI Agents JS, LangGraph.js) are not installed for the benches. Run:\n\n  npm --prefix bench ci\n";

/** True when `packageName` is installed in bench/node_modules. */
export function peerInstalled(packageName: string): boolean {
  return existsSync(new URL(`./node_modules/${packageName}/package.json`, import.meta.url));
}

/**
 * Imports `specifier` (a package name, optionally with a subpath) from bench/node_modules.
 * Contract: async; rejects with an Error naming the install command when the package is missing.
 * Example: `const { ToolLoopAgent } = await importPeer("ai");`
 */
export async function importPeer(specifier: string): Promise<any> {
  const parts = specifier.split("/");
  const packageName = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  if (!peerInstalled(packageName)) throw new Error(`${specifier} is missing. ${PEERS_MISSING_MESSAGE}`);
  return import(specifier);
}
