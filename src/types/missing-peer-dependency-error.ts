// The optional peers and the error naming a missing one: no node: module here, so that the entries
// that run in browsers too (agentchart/react, agentchart/otel) can name a missing peer.

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

/**
 * `error` as a MissingPeerDependencyError when it says that `packageName` itself cannot be found (not
 * a module that the package imports), else `error` unchanged.
 *
 * Contract: synchronous, pure, never throws.
 */
export function missingPeerOf(error: unknown, packageName: OptionalPeer, neededBy: string): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND";
  const names = (text: string) => text.includes(`'${packageName}'`) || text.includes(`'${packageName}/`);
  if (notFound && typeof message === "string" && names(message)) {
    return new MissingPeerDependencyError(packageName, neededBy, { cause: error });
  }
  return error;
}

/**
 * Imports an optional peer through `load` (a literal `() => import("the-package")`, which bundlers
 * follow), turning "cannot find the package" into a {@link MissingPeerDependencyError}. For entries
 * that load their peer at import time with a top-level `await`.
 *
 * Contract: async; rejects with MissingPeerDependencyError when the package is not installed, with
 * any other error of loading it as is.
 *
 * ```ts
 * const api = await importPeer(() => import("@opentelemetry/api"), "@opentelemetry/api", "agentchart/otel");
 * ```
 */
export async function importPeer<TModule>(
  load: () => Promise<TModule>,
  packageName: OptionalPeer,
  neededBy: string,
): Promise<TModule> {
  try {
    return await load();
  } catch (error) {
    throw missingPeerOf(error, packageName, neededBy);
  }
}
