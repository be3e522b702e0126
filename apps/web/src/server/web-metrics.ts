import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

/*
 * The web process's metrics: Node's process metrics and how long its API requests took, in a registry of
 * its own (never prom-client's global one). Served on a listener of their own (STEPWISER_WEB_METRICS_PORT,
 * bound to 127.0.0.1 unless STEPWISER_WEB_METRICS_HOST says otherwise), never on the app's public port.
 * Imports only Node's modules and prom-client: the HTTP server (apps/web/server.ts) loads it as it is.
 */

/** The app's API route files (src/app/api): a request's `route` label; any other /api path is "other". */
const API_ROUTES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/api\/trpc(\/|$)/, "/api/trpc/[trpc]"],
  [/^\/api\/v1(\/|$)/, "/api/v1/[...path]"],
  [/^\/api\/auth(\/|$)/, "/api/auth/[...all]"],
  [/^\/api\/files\/[^/]+\/?$/, "/api/files/[id]"],
  [/^\/api\/uploads\/?$/, "/api/uploads"],
  [/^\/api\/imports\/[^/]+\/report\/?$/, "/api/imports/[id]/report"],
  [/^\/api\/annotation-queues\/[^/]+\/labels\/?$/, "/api/annotation-queues/[id]/labels"],
  [/^\/api\/health\/?$/, "/api/health"],
  [/^\/api\/openapi\.json$/, "/api/openapi.json"],
];

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The `route` label of a path: its API route, "other" under /api, undefined for pages and assets (not observed). */
export function apiRouteOf(pathname: string): string | undefined {
  if (pathname !== "/api" && !pathname.startsWith("/api/")) return undefined;
  return API_ROUTES.find(([pattern]) => pattern.test(pathname))?.[1] ?? "other";
}

/** A request as the HTTP server finished it: `status` is undefined when the connection closed before the answer ended. */
export interface FinishedRequest {
  pathname: string;
  method: string;
  status: number | undefined;
  seconds: number;
}

export const HTTP_REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class WebMetrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<"route" | "method" | "status">;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Histogram({
      name: "stepwiser_web_http_request_duration_seconds",
      help: "API requests from their arrival to the end of the answer, by route, method and status (aborted: the connection closed first).",
      labelNames: ["route", "method", "status"],
      buckets: HTTP_REQUEST_BUCKETS,
      registers: [this.registry],
    });
  }

  /** Records an API request (pages and assets are not recorded). Labels come from fixed sets, whatever the client sent. */
  observe(request: FinishedRequest): void {
    const route = apiRouteOf(request.pathname);
    if (route === undefined) return;
    const method = METHODS.has(request.method) ? request.method : "other";
    const status = request.status === undefined ? "aborted" : String(request.status);
    this.requests.observe({ route, method, status }, request.seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

export interface WebMetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `GET /metrics` for the web process, on its own port. */
export async function startWebMetricsServer(metrics: WebMetrics, port: number, host: string): Promise<WebMetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?", 1)[0];
    if (request.method !== "GET") response.writeHead(405).end();
    else if (path !== "/metrics") response.writeHead(404).end();
    else {
      metrics.render().then(
        (text) => response.writeHead(200, { "content-type": metrics.contentType }).end(text),
        (error: unknown) => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics not collected: ${(error as Error).message}\n`),
      );
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

/** STEPWISER_WEB_METRICS_PORT (unset: no metrics listener) and STEPWISER_WEB_METRICS_HOST (default 127.0.0.1). */
export function webMetricsSettingsFromEnv(env: Record<string, string | undefined>): { port: number; host: string } | undefined {
  const text = env.STEPWISER_WEB_METRICS_PORT?.trim();
  if (!text) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`STEPWISER_WEB_METRICS_PORT must be an integer from 0 to 65535, got "${text}"`);
  return { port, host: env.STEPWISER_WEB_METRICS_HOST?.trim() || "127.0.0.1" };
}
