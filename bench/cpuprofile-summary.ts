// Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, self time
// grouped by package / source file, and with `--inclusive TEXT` the functions whose file contains TEXT
// by inclusive time (self + callees; a function on the stack twice counts once per sample).
//
//   npx tsx bench/cpuprofile-summary.ts /tmp/prof/<file>.cpuprofile [--top 25] [--inclusive dist/]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: tsx bench/cpuprofile-summary.ts <file.cpuprofile> [--top N]");
  process.exit(1);
}
const topIndex = process.argv.indexOf("--top");
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
const inclusiveIndex = process.argv.indexOf("--inclusive");
const inclusiveFilter = inclusiveIndex > 0 ? process.argv[inclusiveIndex + 1] : undefined;
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

function shortUrl(url: string): string {
  if (!url) return "";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + "node_modules/".length);
  const src = url.indexOf("/src/");
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf("/bench/");
  if (bench >= 0) return url.slice(bench + 1);
  return url.replace(/^file:\/\//, "");
}

function group(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native / builtins)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith("node:")) return "node: internals";
  return shortUrl(url);
}

function functionKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"}  ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ""}`;
}

const functions = new Map<string, number>();
const groups = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  const { functionName, url } = node.callFrame;
  total += us;
  if (functionName === "(idle)") idle += us;
  const key = functionKey(node);
  functions.set(key, (functions.get(key) ?? 0) + us);
  const g = group(url, functionName);
  groups.set(g, (groups.get(g) ?? 0) + us);
}
const busy = total - idle;
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
console.log(
  `total ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (percentages of busy)\n`,
);
console.log(`Top ${top} functions by self time:`);
for (const [key, us] of [...functions]
  .filter(([k]) => !k.startsWith("(idle)"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${pct(us)}  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
console.log("\nSelf time by package / file:");
for (const [key, us] of [...groups]
  .filter(([k]) => k !== "(idle)")
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${pct(us)}  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);

if (inclusiveFilter) {
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at)!;
      if (!node.callFrame.url.includes(inclusiveFilter)) continue;
      const key = functionKey(node);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  console.log(`\nInclusive time of functions in files matching "${inclusiveFilter}":`);
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${pct(us)}  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
}
