// agentchart/react: the React hook over agentchart/client (needs react and @xstate/store-react).
export * from "./react/use-agent.js";
