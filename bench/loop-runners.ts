// The runners compared by bench/loop.bench.ts. Each wraps one loop implementation behind the same
// interface: create an agent (optionally with a prebuilt history), prompt it, count the text deltas its
// single subscriber sees. All of them are fed by the same faux (bench/faux.ts). The peers other than
// pi live in bench/peer-*.ts.
import { Observable } from "rxjs";
import { z } from "zod";

import { AGENTCHART_BUILD, core, machines, testing } from "./agentchart-build.js";

const { Agent, defineTool } = core;
const { agentLoop } = machines;
const { scriptedModel } = testing;

export { AGENTCHART_BUILD };

import { emitAnswer, FAUX_MODEL, type Script, TOOL_NAMES } from "./faux.js";
import { AI_SDK, aiSdkRunner } from "./peer-ai-sdk.js";
import { LANGGRAPH, langGraphRunner } from "./peer-langgraph.js";
import { importPeer, PEERS_MISSING_MESSAGE, peerInstalled } from "./peer-modules.js";
import { OPENAI_AGENTS, openAiAgentsRunner } from "./peer-openai-agents.js";

export { AI_SDK, LANGGRAPH, OPENAI_AGENTS };

export interface BenchAgent {
  prompt(text: string): Promise<unknown>;
  messageCount(): number;
}

export interface CreateOptions {
  script: Script;
  history?: any[];
  /** Called once per text delta the subscriber sees. */
  onTextDelta: () => void;
}

export interface Runner {
  name: string;
  /**
   * Transcript entries one prompt of `script` adds, in this library's own transcript shape (default:
   * pi's, as agentchart and the bare loop keep it: user, assistant with the calls, one result per
   * call, assistant).
   */
  messagesPerPrompt?(script: Script): number;
  create(options: CreateOptions): BenchAgent;
}

/** Transcript entries one prompt adds in pi's message shape. */
export function messagesPerPrompt(runner: Runner, script: Script): number {
  return runner.messagesPerPrompt?.(script) ?? 2 + (script.tools > 0 ? 1 + script.tools : 0);
}

const model = FAUX_MODEL as any;
const toolResult = { content: [{ type: "text", text: "ok" }], details: {} };
const userMessage = (text: string) => ({ role: "user", content: text, timestamp: Date.now() });

// ---------------------------------------------------------------------------------------------------
// agentchart

export const ourTools = TOOL_NAMES.map((name) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({ path: z.string() }),
    execute: async () => toolResult as any,
  }),
);

/** The faux as an agentchart StreamFn: an rxjs Observable that emits the whole answer in one microtask. */
export function ourFauxStreamFn(script: Script) {
  return (_model: unknown, context: { messages: { role?: string }[] }) =>
    new Observable<any>((subscriber) => {
      queueMicrotask(() => {
        if (!subscriber.closed) emitAnswer(script, context.messages, (event) => subscriber.next(event));
      });
    });
}

/** Calls one scripted agent can serve (the scripted model consumes one turn per call). */
const SCRIPTED_CALLS = 256;

/** Our own scripted model, with a script equivalent to the faux's (one reply per call). */
function scriptedStreamFn(script: Script) {
  const text = "abcd".repeat(script.deltas);
  const turn = (context: { messages: { role?: string }[] }) => {
    const last = context.messages[context.messages.length - 1];
    if (script.tools > 0 && last?.role === "user")
      return {
        toolCalls: Array.from({ length: script.tools }, (_, index) => ({
          name: TOOL_NAMES[index % TOOL_NAMES.length]!,
          arguments: { path: `/tmp/f${index}` },
        })),
      };
    return { text, deltas: script.deltas };
  };
  return scriptedModel(new Array(SCRIPTED_CALLS).fill(turn));
}

function ourAgentRunner(name: string, streamFnOf: (script: Script) => any): Runner {
  return {
    name,
    create({ script, history, onTextDelta }) {
      const agent = new Agent({
        model,
        streamFn: streamFnOf(script),
        tools: ourTools,
        messages: history ?? [],
        toolExecution: "parallel",
      });
      agent.subscribe((event) => {
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
          onTextDelta();
      });
      return { prompt: (text) => agent.prompt(text), messageCount: () => agent.state.messages.length };
    },
  };
}

export const ourAgent = ourAgentRunner("agentchart Agent", ourFauxStreamFn);
export const ourAgentScripted = ourAgentRunner("agentchart Agent (scriptedModel)", scriptedStreamFn);

export const ourAgentLoop: Runner = {
  name: "agentchart agentLoop",
  create({ script, history, onTextDelta }) {
    const messages: any[] = [...(history ?? [])];
    const config = { model, streamFn: ourFauxStreamFn(script) as any, toolExecution: "parallel" as const };
    return {
      prompt: (text) =>
        new Promise<void>((resolve) => {
          agentLoop(
            [userMessage(text) as any],
            { systemPrompt: "", messages, tools: ourTools },
            config,
          ).subscribe({
            next: (event) => {
              if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
                onTextDelta();
              else if (event.type === "agent_end") messages.push(...event.messages);
            },
            complete: resolve,
          });
        }),
      messageCount: () => messages.length,
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// pi-agent-core (loaded from bench/node_modules; typed structurally so the repo type-checks without it)

interface PiModules {
  Agent: new (
    options: any,
  ) => {
    prompt(text: string): Promise<unknown>;
    subscribe(listener: (event: any) => unknown): () => void;
    state: { messages: unknown[] };
  };
  runAgentLoop: (
    prompts: any[],
    context: any,
    config: any,
    emit: (event: any) => unknown,
    signal?: AbortSignal,
    streamFn?: unknown,
  ) => Promise<any[]>;
  createAssistantMessageEventStream: () => { push(event: any): void };
  Type: any;
}

export function piInstalled(): boolean {
  return peerInstalled("@mariozechner/pi-agent-core");
}

export const PI_MISSING_MESSAGE = PEERS_MISSING_MESSAGE;

let piModules: PiModules | undefined;

export async function loadPi(): Promise<PiModules> {
  if (piModules) return piModules;
  const [coreModule, aiModule] = await Promise.all([
    importPeer("@mariozechner/pi-agent-core"),
    importPeer("@mariozechner/pi-ai"),
  ]);
  piModules = {
    Agent: coreModule.Agent,
    runAgentLoop: coreModule.runAgentLoop,
    createAssistantMessageEventStream: aiModule.createAssistantMessageEventStream,
    Type: aiModule.Type,
  };
  return piModules;
}

export async function piRunners(): Promise<{ piAgent: Runner; piRunAgentLoop: Runner }> {
  const pi = await loadPi();
  const { Type } = pi;
  const tools = TOOL_NAMES.map((name) => ({
    name,
    label: name,
    description: `The ${name} tool`,
    parameters: Type.Object({ path: Type.String() }),
    execute: async () => toolResult,
  }));
  const streamFnOf = (script: Script) => (_model: unknown, context: { messages: { role?: string }[] }) => {
    const stream = pi.createAssistantMessageEventStream();
    queueMicrotask(() => emitAnswer(script, context.messages, (event) => stream.push(event)));
    return stream;
  };
  const isTextDelta = (event: any) =>
    event.type === "message_update" && event.assistantMessageEvent.type === "text_delta";
  const convertToLlm = (messages: any[]) =>
    messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult");

  const piAgent: Runner = {
    name: "pi Agent",
    create({ script, history, onTextDelta }) {
      const agent = new pi.Agent({
        initialState: { systemPrompt: "", model, tools, messages: history ?? [] },
        streamFn: streamFnOf(script),
        toolExecution: "parallel",
      });
      agent.subscribe((event) => {
        if (isTextDelta(event)) onTextDelta();
      });
      return { prompt: (text) => agent.prompt(text), messageCount: () => agent.state.messages.length };
    },
  };
  const piRunAgentLoop: Runner = {
    name: "pi runAgentLoop",
    create({ script, history, onTextDelta }) {
      const messages: any[] = [...(history ?? [])];
      const streamFn = streamFnOf(script);
      const config = { model, convertToLlm, toolExecution: "parallel" };
      const emit = (event: any) => {
        if (isTextDelta(event)) onTextDelta();
      };
      return {
        prompt: async (text) => {
          const context = { systemPrompt: "", messages, tools };
          const added = await pi.runAgentLoop(
            [userMessage(text)],
            context,
            config,
            emit,
            undefined,
            streamFn,
          );
          messages.push(...added);
        },
        messageCount: () => messages.length,
      };
    },
  };
  return { piAgent, piRunAgentLoop };
}

// ---------------------------------------------------------------------------------------------------
// bare: the floor. A plain async function; faux events go straight into a plain callback, tools run
// through Promise.all, messages go into an array. No event stream, no copies, no validation.

const bareTools = new Map(TOOL_NAMES.map((name) => [name, async (_args: unknown) => toolResult]));

export const bare: Runner = {
  name: "bare loop",
  create({ script, history, onTextDelta }) {
    const messages: any[] = [...(history ?? [])];
    const onEvent = (event: any) => {
      if (event.type === "text_delta") onTextDelta();
    };
    const callModel = () =>
      new Promise<any>((resolve) => {
        queueMicrotask(() =>
          emitAnswer(script, messages, (event) => {
            onEvent(event);
            if (event.type === "done") resolve(event.message);
          }),
        );
      });
    return {
      async prompt(text) {
        messages.push(userMessage(text));
        for (;;) {
          const reply = await callModel();
          messages.push(reply);
          if (reply.stopReason !== "toolUse") return;
          const calls = reply.content.filter((block: any) => block.type === "toolCall");
          const results = await Promise.all(
            calls.map((call: any) => bareTools.get(call.name)!(call.arguments)),
          );
          for (let index = 0; index < calls.length; index++) {
            const result = results[index]!;
            messages.push({
              role: "toolResult",
              toolCallId: calls[index].id,
              toolName: calls[index].name,
              content: result.content,
              details: result.details,
              isError: false,
              timestamp: Date.now(),
            });
          }
        }
      },
      messageCount: () => messages.length,
    };
  },
};

/** The peers other than pi, by runner name; each loads its library only when asked for. */
const PEER_RUNNERS = new Map<string, () => Promise<Runner>>([
  [AI_SDK, aiSdkRunner],
  [OPENAI_AGENTS, openAiAgentsRunner],
  [LANGGRAPH, langGraphRunner],
]);

/**
 * The runners named in `names` (every runner when omitted), by name. A peer library is loaded only
 * when one of its runners is asked for, so a scenario-5 child process holds just the library it measures.
 */
export async function allRunners(names?: readonly string[]): Promise<Map<string, Runner>> {
  const wanted = (name: string) => !names || names.includes(name);
  const { piAgent, piRunAgentLoop } = await piRunners();
  const peers = await Promise.all(
    [...PEER_RUNNERS].filter(([name]) => wanted(name)).map(([, load]) => load()),
  );
  return new Map(
    [ourAgent, ourAgentLoop, ourAgentScripted, piAgent, piRunAgentLoop, ...peers, bare]
      .filter((runner) => wanted(runner.name))
      .map((runner) => [runner.name, runner]),
  );
}
