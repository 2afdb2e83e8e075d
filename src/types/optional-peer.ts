import { createRequire } from "node:module";
import { missingPeerOf, type OptionalPeer } from "./missing-peer-dependency-error.js";

export {
  MissingPeerDependencyError,
  OPTIONAL_PEERS,
  type OptionalPeer,
} from "./missing-peer-dependency-error.js";

const require = createRequire(import.meta.url);

/**
 * Loads a CommonJS optional peer (`pg`, `pg-boss`, `ws`, `commander`) synchronously, so that
 * synchronous constructors can use it and an entry point can fail on import with a clear message.
 * `specifier` is the package name or one of its subpaths.
 *
 * Contract: synchronous; throws {@link MissingPeerDependencyError} when the package is not
 * installed; rethrows any other error of loading it.
 *
 * ```ts
 * const pg = requireOptionalPeer<typeof import("pg")>("pg", "agentchart/postgres");
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * ```
 */
export function requireOptionalPeer<TModule>(
  packageName: OptionalPeer,
  neededBy: string,
  specifier: string = packageName,
): TModule {
  try {
    return require(specifier) as TModule;
  } catch (error) {
    throw missingPeerOf(error, packageName, neededBy);
  }
}

/**
 * The path of a file of an optional peer (e.g. elkjs's browser bundle), without loading it.
 *
 * Contract: synchronous; throws {@link MissingPeerDependencyError} when the package is not installed.
 *
 * ```ts
 * const bundle = resolveOptionalPeer("elkjs", "the inspector", "elkjs/lib/elk.bundled.js");
 * ```
 */
export function resolveOptionalPeer(packageName: OptionalPeer, neededBy: string, specifier: string): string {
  try {
    return require.resolve(specifier);
  } catch (error) {
    throw missingPeerOf(error, packageName, neededBy);
  }
}

/**
 * Imports an ES-module optional peer (the MCP SDK) or one of its subpaths.
 *
 * Contract: async; rejects with {@link MissingPeerDependencyError} when the package is not
 * installed, and with any other error of loading it as is.
 *
 * ```ts
 * const { Client } = await importOptionalPeer<typeof import("@modelcontextprotocol/sdk/client/index.js")>(
 *   "@modelcontextprotocol/sdk", "agentchart/mcp", "@modelcontextprotocol/sdk/client/index.js");
 * ```
 */
export async function importOptionalPeer<TModule>(
  packageName: OptionalPeer,
  neededBy: string,
  specifier: string = packageName,
): Promise<TModule> {
  try {
    return (await import(specifier)) as TModule;
  } catch (error) {
    throw missingPeerOf(error, packageName, neededBy);
  }
}
