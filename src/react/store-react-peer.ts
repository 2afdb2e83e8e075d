import { importPeer } from "../types/missing-peer-dependency-error.js";

// The optional peers of agentchart/react, loaded when it is imported so that an app without them gets
// a MissingPeerDependencyError naming the package to install (react first: @xstate/store-react needs it).
await importPeer(() => import("react"), "react", "agentchart/react");
const storeReact = await importPeer(
  () => import("@xstate/store-react"),
  "@xstate/store-react",
  "agentchart/react",
);

/** `useSelector` of `@xstate/store-react`: a component's slice of a store, re-rendered when it changes. */
export const { useSelector } = storeReact;
