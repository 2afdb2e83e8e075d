// What one turn of agentchart's Agent costs the XState interpreter, counted with XState's inspection
// API on the loop bench's faux: actors created (by logic), events processed (by type), microsteps and
// actions executed (by type), for a fresh agent + one text prompt and for a fresh agent + one
// 4-parallel-tool round-trip. Counts, not times: they say which transitions and actors a turn pays for.
//
//   npx tsx bench/turn-anatomy.ts
import { core } from "./agentchart-build.js";
import type { Script } from "./faux.js";
import { ourFauxStreamFn, ourTools } from "./loop-runners.js";

interface Anatomy {
  actors: Map<string, number>;
  events: Map<string, number>;
  microsteps: number;
  actions: Map<string, number>;
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** Counts the inspection events of one fresh agent answering one prompt of `script`. */
async function anatomyOf(script: Script): Promise<Anatomy> {
  const anatomy: Anatomy = { actors: new Map(), events: new Map(), microsteps: 0, actions: new Map() };
  const agent = new core.Agent({
    model: { id: "faux-1" } as never,
    streamFn: ourFauxStreamFn(script) as never,
    tools: ourTools,
    toolExecution: "parallel",
    inspect: (event: any) => {
      if (event.type === "@xstate.actor")
        count(anatomy.actors, event.actorRef.src?.id ?? String(event.actorRef.src ?? "?"));
      else if (event.type === "@xstate.event") count(anatomy.events, event.event.type);
      else if (event.type === "@xstate.microstep") anatomy.microsteps++;
      else if (event.type === "@xstate.action") count(anatomy.actions, event.action.type);
    },
  });
  await agent.prompt("hello");
  return anatomy;
}

const sum = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
const list = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ×${n}`)
    .join(", ");

for (const [label, script] of [
  ["text turn (20 deltas)", { tools: 0, deltas: 20 }],
  ["4-parallel-tool round-trip", { tools: 4, deltas: 20 }],
] as const) {
  const anatomy = await anatomyOf(script);
  console.log(`\n${label}`);
  console.log(`  actors created: ${sum(anatomy.actors)} (${list(anatomy.actors)})`);
  console.log(`  events processed: ${sum(anatomy.events)} (${list(anatomy.events)})`);
  console.log(`  microsteps: ${anatomy.microsteps}`);
  console.log(`  actions executed: ${sum(anatomy.actions)} (${list(anatomy.actions)})`);
}
