import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll } from "vitest";

/** Spans that started and have not ended yet, and the order spans started in. */
class OpenSpans implements SpanProcessor {
  readonly open = new Set<Span>();
  readonly startOrder = new Map<string, number>();
  onStart(span: Span): void {
    this.open.add(span);
    this.startOrder.set(span.spanContext().spanId, this.startOrder.size);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span as Span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A tracer provider exporting to memory, plus the spans still open. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const openSpans = new OpenSpans();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter), openSpans],
  });
  return {
    provider,
    tracer: provider.getTracer("test"),
    /** Finished spans in the order they started. */
    spans: () =>
      [...exporter.getFinishedSpans()].sort(
        (a, b) =>
          (openSpans.startOrder.get(a.spanContext().spanId) ?? 0) -
          (openSpans.startOrder.get(b.spanContext().spanId) ?? 0),
      ),
    openSpans: () => [...openSpans.open].map((span) => (span as unknown as ReadableSpan).name),
  };
}

/** Registers the AsyncLocalStorage context manager for the tests of this file. */
export function installAsyncContext(): void {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });
}

/** A span and its children, by start order. */
export interface SpanNode {
  span: ReadableSpan;
  children: SpanNode[];
}

/** Spans (in start order) as trees: roots, each with its children in start order. */
export function spanTree(spans: readonly ReadableSpan[]): SpanNode[] {
  const nodes = new Map(
    spans.map((span) => [span.spanContext().spanId, { span, children: [] as SpanNode[] }]),
  );
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanContext?.spanId;
    const parentNode = parent ? nodes.get(parent) : undefined;
    if (parentNode) parentNode.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** The tree as indented names, e.g. `["invoke_agent a", "  chat m"]`. */
export function treeLines(roots: readonly SpanNode[], depth = 0): string[] {
  return roots.flatMap((node) => [
    `${"  ".repeat(depth)}${node.span.name}`,
    ...treeLines(node.children, depth + 1),
  ]);
}

/** The `agentchart.state` values recorded on a span, in order. */
export function stateEvents(span: ReadableSpan): string[] {
  return span.events
    .filter((event) => event.name === "agentchart.state")
    .map((event) => String(event.attributes?.["agentchart.state"]));
}
