import type { Tracer } from "@opentelemetry/api";
import type { AgentHarness } from "../harness/agent-harness.js";
import { CliError } from "./cli-error.js";

/** The CLI's tracing: instruments each harness it is given and flushes the exporter at the end. */
export interface CliTracing {
  /** Traces the harness until the returned function is called. */
  instrument(harness: AgentHarness): () => void;
  /** The exporting tracer (for spans of the CLI's own, such as `agentchart eval`'s per case). */
  readonly tracer: Tracer;
  /** Exports the spans still buffered and stops; reports an unreachable receiver on `warn`. */
  shutdown(): Promise<void>;
}

const DEFAULT_ENDPOINT = "http://localhost:4318";
const PACKAGES = "@opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http";

/** Whether the CLI should export traces: `--otel`, or `OTEL_EXPORTER_OTLP_ENDPOINT` set. */
export function wantsOtel(flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return flag === true || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The URL spans are posted to: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318) + `/v1/traces`, as the OTLP spec says.
 */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "")}/v1/traces`;
}

/**
 * Starts exporting spans over OTLP/HTTP (JSON) to `otlpTracesUrl(env)`, as service
 * `OTEL_SERVICE_NAME` (default `agentchart`). The OpenTelemetry SDK packages are optional: they are
 * loaded here, and a `CliError` (exit code 2) names them when they are not installed.
 */
export async function startOtlpTracing(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Promise<CliTracing> {
  const [sdk, exporterModule, resources, otel] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("../otel.js"),
  ]).catch((error: unknown) => {
    throw new CliError(
      `--otel needs the OpenTelemetry SDK: npm install ${PACKAGES} (${(error as Error).message})`,
      2,
    );
  });
  const exporter = new exporterModule.OTLPTraceExporter({ url: otlpTracesUrl(env), timeoutMillis: 5_000 });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "agentchart" }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(otel.TRACER_NAME);
  return {
    tracer,
    instrument(harness) {
      const handle = otel.instrument(harness, { tracer });
      return () => handle.dispose();
    },
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (error) {
        warn(`could not export traces to ${otlpTracesUrl(env)}: ${(error as Error).message}`);
      }
    },
  };
}
