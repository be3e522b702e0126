import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@stepwiser/db";
import type { RequestObservation } from "@stepwiser/inference";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { EndpointClients, type EndpointClient, type EndpointSnapshot } from "../inference/endpoint-clients";
import type { Logger } from "../log/logger";

/** What one replica of one endpoint looks like from this worker (EndpointClients.replicaStatus). */
export interface ReplicaStatusRow {
  endpoint: string;
  baseUrl: string;
  inFlight: number;
  limit: number;
  maxInFlight: number;
  waiting: number;
}

/** A queue's counts as pg-boss last took them (pg-boss's getQueues). */
export interface QueueCounts {
  name: string;
  queuedCount: number;
  activeCount: number;
}

export interface WorkerMetricsSource {
  workerId: string;
  activeRuns: () => number;
  replicaStatus: () => ReplicaStatusRow[];
  /** The queues' counts; without it the queue gauges have no samples. */
  queueCounts?: () => Promise<QueueCounts[]>;
}

/** Seconds: from a fast judge call to the longest generation the response timeout allows. */
export const INFERENCE_REQUEST_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * One worker's metrics in a registry of its own (never prom-client's global one, so several workers can
 * live in one process): Node's process metrics, the runs it executes, the jobs it finished, the queues'
 * depth, per endpoint and replica its requests in flight, waiting and slots, and per endpoint how long its
 * inference requests took. Every sample carries the worker's id as `worker`.
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly jobs: Counter<"queue">;
  private readonly inferenceRequests: Histogram<"endpoint" | "outcome">;

  constructor(source: WorkerMetricsSource) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ worker: source.workerId });
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: "stepwiser_worker_active_runs",
      help: "Run executors active in this worker.",
      registers,
      collect() {
        this.set(source.activeRuns());
      },
    });
    this.jobs = new Counter({ name: "stepwiser_worker_jobs_total", help: "Jobs this worker finished, by queue.", labelNames: ["queue"], registers });

    const replicaGauge = (name: string, help: string, value: (row: ReplicaStatusRow) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["endpoint", "replica"],
        registers,
        collect() {
          this.reset();
          for (const row of source.replicaStatus()) this.set({ endpoint: row.endpoint, replica: row.baseUrl }, value(row));
        },
      });
    replicaGauge("stepwiser_endpoint_in_flight", "Requests this worker has in flight on the replica.", (r) => r.inFlight);
    replicaGauge("stepwiser_endpoint_slots", "Slots of the replica's concurrency limit this worker holds now.", (r) => r.limit);
    replicaGauge("stepwiser_endpoint_limit", "The endpoint's concurrency limit per replica, shared by every worker.", (r) => r.maxInFlight);
    replicaGauge("stepwiser_endpoint_waiting", "Requests of this worker waiting for a slot on the endpoint.", (r) => r.waiting);

    // A database away for a moment leaves the queue gauges empty, not the whole page unanswered.
    const queueGauge = (name: string, help: string, value: (queue: QueueCounts) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["queue"],
        registers,
        async collect() {
          const queues = await (source.queueCounts?.() ?? Promise.resolve([])).catch(() => []);
          this.reset();
          for (const queue of queues) this.set({ queue: queue.name }, value(queue));
        },
      });
    queueGauge("stepwiser_queue_depth", "Jobs waiting in the queue (created or to be retried), as pg-boss last counted them.", (q) => q.queuedCount);
    queueGauge("stepwiser_queue_active", "Jobs of the queue being worked on by any worker, as pg-boss last counted them.", (q) => q.activeCount);

    this.inferenceRequests = new Histogram({
      name: "stepwiser_inference_request_duration_seconds",
      help: "Inference requests of this worker from the first attempt to the answer or the last failure, by endpoint and outcome (ok, or the failure's kind).",
      labelNames: ["endpoint", "outcome"],
      buckets: INFERENCE_REQUEST_BUCKETS,
      registers,
    });
  }

  jobDone(queue: string): void {
    this.jobs.inc({ queue });
  }

  observeRequest(endpoint: string, observation: RequestObservation): void {
    this.inferenceRequests.observe({ endpoint, outcome: observation.outcome }, observation.latencyMs / 1000);
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The worker's endpoint clients, each client's requests reported to `observe` with its endpoint's name. */
export class ObservedEndpointClients extends EndpointClients {
  constructor(
    options: ConstructorParameters<typeof EndpointClients>[0],
    private readonly observe: (endpoint: string, observation: RequestObservation) => void,
  ) {
    super(options);
  }

  override get(endpoint: EndpointSnapshot): EndpointClient {
    const entry = super.get(endpoint);
    entry.client.onRequest ??= (observation) => this.observe(endpoint.name, observation);
    return entry;
  }
}

export interface WorkerMetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `/health` (200 after a database round trip, 503 otherwise) and `/metrics` for one worker process. */
export async function startWorkerMetricsServer(
  metrics: WorkerMetrics,
  health: { workerId: string; db: Db; logger: Logger },
  port: number,
  host: string,
): Promise<WorkerMetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (req.method !== "GET") {
      res.writeHead(405).end();
    } else if (path === "/health") {
      health.db.$queryRaw`SELECT 1`.then(
        () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, worker: health.workerId })),
        (error: unknown) =>
          res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, worker: health.workerId, error: `database unreachable: ${(error as Error).message}` })),
      );
    } else if (path === "/metrics") {
      metrics.render().then(
        (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
        (error: unknown) => {
          health.logger.warn({ err: error }, "metrics not collected");
          res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics not collected: ${(error as Error).message}\n`);
        },
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host }, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
