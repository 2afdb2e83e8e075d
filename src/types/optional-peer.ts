import { createRequire } from "node:module";

/**
 * The optional peer dependencies and the versions agentchart is tested with (the same ranges as
 * `peerDependencies` in package.json, which a test holds). The core (`agentchart`, `agentchart/node`
 * for JSONL sessions and tools, `agentchart/openai`) needs none of them.
 */
export const OPTIONAL_PEERS = {
  "@ai-sdk/anthropic": "^3.0.140",
  "@ai-sdk/google": "^3.0.141",
  "@ai-sdk/openai": "^3.0.141",
  "@ai-sdk/provider": "^3.0.19",
  "@modelcontextprotocol/sdk": "^1.32.2",
  "@opentelemetry/api": "^1.9.0",
  "@xstate/store-react": "^2.0.0",
  commander: "^14.0.3",
  elkjs: "^0.12.1",
  pg: "^8.23.1",
  "pg-boss": "^10.4.2",
  react: "^18.0.0 || ^19.0.0",
  ws: "^8.23.0",
} as const;

/** A package name of {@link OPTIONAL_PEERS}. */
export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

/** Thrown when an entry point or feature needs an optional peer dependency that is not installed. */
export class MissingPeerDependencyError extends Error {
  readonly code = "missing_peer_dependency";
  constructor(
    readonly packageName: OptionalPeer,
    /** What needs it, e.g. "agentchart/postgres". */
    readonly neededBy: string,
    options?: ErrorOptions,
  ) {
    super(
      `${neededBy} needs the package "${packageName}", which is not installed: ` +
        `npm install ${packageName}@"${OPTIONAL_PEERS[packageName]}"`,
      options,
    );
    this.name = "MissingPeerDependencyError";
  }
}

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
 * const pool = new pg.Pool({ connectionString });
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
    throw asMissingPeer(error, packageName, neededBy);
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
    throw asMissingPeer(error, packageName, neededBy);
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
    throw asMissingPeer(error, packageName, neededBy);
  }
}

/**
 * `error` as a MissingPeerDependencyError when it says that `packageName` itself cannot be found (not
 * a module that the package imports), else `error` unchanged.
 */
function asMissingPeer(error: unknown, packageName: OptionalPeer, neededBy: string): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND";
  const names = (text: string) => text.includes(`'${packageName}'`) || text.includes(`'${packageName}/`);
  if (notFound && typeof message === "string" && names(message)) {
    return new MissingPeerDependencyError(packageName, neededBy, { cause: error });
  }
  return error;
}
