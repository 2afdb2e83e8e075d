// Types of the plain-JavaScript test server, for the TypeScript tests that import it.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export interface TestServerFlags {
  invalidSchema?: boolean;
  collide?: boolean;
  unusableTools?: boolean;
}
export declare const TINY_PNG: string;
export declare function createTestServer(flags?: TestServerFlags): Server;
export declare function startHttpTestServer(
  flags?: TestServerFlags,
): Promise<{ url: string; close(): Promise<void> }>;
