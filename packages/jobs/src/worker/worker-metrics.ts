import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@stepwiser/db";
import type { EndpointClients } from "../inference/endpoint-clients";

export interface WorkerMetricsSource {
  workerId: string;
  db: Db;
  endpoints: EndpointClients;
  activeRuns: () => number;
  jobsDone: () => Record<string, number>;
}

export interface WorkerMetricsServer {
  url: string;
  close(): Promise<void>;
}

const label = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** Prometheus text for one worker: runs it executes, jobs done, and per replica its requests in flight, waiting and slots. */
export function renderWorkerMetrics(source: WorkerMetricsSource): string {
  const worker = `worker="${label(source.workerId)}"`;
  const lines = [
    "# HELP stepwiser_worker_active_runs Run executors active in this worker.",
    "# TYPE stepwiser_worker_active_runs gauge",
    `stepwiser_worker_active_runs{${worker}} ${source.activeRuns()}`,
    "# HELP stepwiser_worker_jobs_total Jobs this worker finished, by queue.",
    "# TYPE stepwiser_worker_jobs_total counter",
    ...Object.entries(source.jobsDone()).map(([queue, n]) => `stepwiser_worker_jobs_total{${worker},queue="${label(queue)}"} ${n}`),
  ];
  const families = [
    ["stepwiser_endpoint_in_flight", "Requests this worker has in flight on the replica."],
    ["stepwiser_endpoint_slots", "Slots of the replica's concurrency limit this worker holds now."],
    ["stepwiser_endpoint_limit", "The endpoint's concurrency limit per replica, shared by every worker."],
    ["stepwiser_endpoint_waiting", "Requests of this worker waiting for a slot on the endpoint."],
  ] as const;
  const rows = source.endpoints.replicaStatus();
  for (const [name, help] of families) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const r of rows) {
      const value = name === "stepwiser_endpoint_in_flight" ? r.inFlight : name === "stepwiser_endpoint_slots" ? r.limit : name === "stepwiser_endpoint_limit" ? r.maxInFlight : r.waiting;
      lines.push(`${name}{${worker},endpoint="${label(r.endpoint)}",replica="${label(r.baseUrl)}"} ${value}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** `/health` (200 after a database round trip, 503 otherwise) and `/metrics` for one worker process. */
export async function startWorkerMetricsServer(source: WorkerMetricsSource, port: number, host: string): Promise<WorkerMetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (req.method !== "GET") {
      res.writeHead(405).end();
    } else if (path === "/health") {
      source.db.$queryRaw`SELECT 1`.then(
        () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, worker: source.workerId })),
        (error: unknown) => res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, worker: source.workerId, error: `database unreachable: ${(error as Error).message}` })),
      );
    } else if (path === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(renderWorkerMetrics(source));
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
