// Measurement helpers shared by the benches: forced GC, a quiet-machine wait, round-robin rounds with
// warm-up, medians and paired per-round ratios (the method of design/reference/perf-anchors.md).
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

const gcFn = (globalThis as { gc?: () => void }).gc;

/** True when the process runs with `--expose-gc`. */
export const canGc = typeof gcFn === "function";

export function forceGc(): void {
  if (gcFn) {
    gcFn();
    gcFn();
  }
}

function cpuTimes(): { busy: number; total: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const quietStats = { waits: 0, timeouts: 0 };

/**
 * Waits until the machine-wide CPU use (sampled over 100 ms) is below `maxCores`, up to `timeoutMs`.
 * The box is shared, so this only avoids the worst collisions; the paired ratios absorb the rest.
 */
let busyStreak = 0;

export async function waitForQuiet(maxCores = 0.5, timeoutMs = 1_000): Promise<void> {
  const cores = cpus().length;
  // After 3 timed-out waits in a row the box is saturated by others: sample once until it calms down.
  const deadline = Date.now() + (busyStreak >= 3 ? 0 : timeoutMs);
  quietStats.waits++;
  for (;;) {
    const a = cpuTimes();
    await sleep(100);
    const b = cpuTimes();
    const total = b.total - a.total;
    if (total <= 0) return;
    const used = ((b.busy - a.busy) / total) * cores;
    if (used < maxCores) {
      busyStreak = 0;
      return;
    }
    if (Date.now() >= deadline) {
      busyStreak++;
      quietStats.timeouts++;
      return;
    }
  }
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function summarize(values: number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values };
}

/** Per-round ratios a[i] / b[i] (both measured in the same round), summarised. */
export function pairedRatio(a: number[], b: number[]): Summary {
  const ratios = a.map((value, index) => value / b[index]!);
  return summarize(ratios);
}

export interface Variant {
  name: string;
  /** Runs one measurement and returns its figure (lower is better). */
  measure: () => Promise<number>;
}

export interface RoundOptions {
  rounds: number;
  warmup: number;
  quiet?: boolean;
  log?: (text: string) => void;
}

/**
 * Measures every variant once per round, rotating the order each round, with a forced GC and a quiet
 * wait before each measurement. Warm-up rounds are discarded. Returns each variant's figures by round.
 */
export async function roundRobin(variants: Variant[], options: RoundOptions): Promise<Map<string, number[]>> {
  const results = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const total = options.warmup + options.rounds;
  for (let round = 0; round < total; round++) {
    const order = variants.map((_, index) => variants[(index + round) % variants.length]!);
    for (const variant of order) {
      forceGc();
      if (options.quiet !== false) await waitForQuiet();
      const value = await variant.measure();
      if (round >= options.warmup) results.get(variant.name)!.push(value);
    }
    options.log?.(`  round ${round + 1}/${total}${round < options.warmup ? " (warm-up)" : ""}`);
  }
  return results;
}

/** Formats a number with 3 significant digits (no exponent for the ranges used here). */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function fmtSummary(summary: Summary): string {
  return `${fmt(summary.median)} (${fmt(summary.min)}–${fmt(summary.max)})`;
}

export function fmtRatio(summary: Summary): string {
  return `${fmt(summary.median)}×`;
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}
