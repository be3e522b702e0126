import type { AddressInfo } from "node:net";
import { lineLogger } from "@stepwiser/jobs/log";
import { register as globalRegistry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebServer } from "../src/server/http-server";
import { apiRouteOf, startWebMetricsServer, WebMetrics, webMetricsSettingsFromEnv, type WebMetricsServer } from "../src/server/web-metrics";

/*
 * The web process's /metrics and logs, over real HTTP: the studio's HTTP server (src/server/http-server.ts) around a
 * stand-in for Next.js's handler, its API requests observed into the web's own registry, served on its own listener.
 */

/** Every `_count` sample of the request histogram, keyed by its labels as written. */
function requestCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^stepwiser_web_http_request_duration_seconds_count\{([^}]*)\} (\S+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

describe("the web's metrics and logs", () => {
  const metrics = new WebMetrics();
  const lines: string[] = [];
  let server: ReturnType<typeof createWebServer>;
  let origin: string;
  let listener: WebMetricsServer;

  beforeAll(async () => {
    server = createWebServer({
      trusted: null,
      maxBodyBytes: 1024,
      logger: lineLogger("web", (line) => lines.push(line)),
      observe: (request) => metrics.observe(request),
      handle: async (request, response) => {
        if (request.url?.startsWith("/api/trpc/run.fail")) throw new Error("the database is away");
        response.writeHead(request.url?.startsWith("/api/v1/runs/missing") ? 404 : 200, { "content-type": "text/plain" }).end("ok");
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    listener = await startWebMetricsServer(metrics, 0, "127.0.0.1");
  });
  afterAll(async () => {
    await listener?.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  it("serves prom-client's /metrics on its own port: process metrics and API requests by route, method and status", async () => {
    for (const path of ["/api/health", "/api/trpc/run.list?batch=1", "/api/v1/runs/missing", "/api/v1/runs/abc/cancel", "/api/files/f1", "/api/not-a-route", "/runs", "/_next/static/app.js"]) {
      await (await fetch(`${origin}${path}`)).text();
    }
    await (await fetch(`${origin}/api/v1/runs`, { method: "POST", body: "x".repeat(2048) })).text(); // refused before the handler: 413
    await (await fetch(`${origin}/api/trpc/run.fail`)).text();

    const response = await fetch(`${listener.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(globalRegistry.contentType);
    const text = await response.text();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toContain("# TYPE stepwiser_web_http_request_duration_seconds histogram");
    expect(requestCounts(text)).toEqual({
      'route="/api/health",method="GET",status="200"': 1,
      'route="/api/trpc/[trpc]",method="GET",status="200"': 1,
      'route="/api/trpc/[trpc]",method="GET",status="500"': 1,
      'route="/api/v1/[...path]",method="GET",status="404"': 1,
      'route="/api/v1/[...path]",method="GET",status="200"': 1,
      'route="/api/files/[id]",method="GET",status="200"': 1,
      'route="other",method="GET",status="200"': 1,
      'route="/api/v1/[...path]",method="POST",status="413"': 1,
    });
    // Pages and assets are not observed; the global registry holds nothing.
    expect(text).not.toContain('route="/runs"');
    expect(globalRegistry.getMetricsAsArray()).toEqual([]);
    expect((await fetch(`${listener.url}/`)).status).toBe(404);
  });

  it("logs a request the handler failed as one JSON line with the error", () => {
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.path === "/api/trpc/run.fail");
    expect(failed).toMatchObject({ level: "error", name: "web", method: "GET", msg: "GET /api/trpc/run.fail failed", err: { type: "Error", message: "the database is away" } });
  });

  it("labels a path by its route file, whatever the client put in it", () => {
    expect(apiRouteOf("/api/annotation-queues/q1/labels")).toBe("/api/annotation-queues/[id]/labels");
    expect(apiRouteOf("/api/imports/r1/report")).toBe("/api/imports/[id]/report");
    expect(apiRouteOf("/api/auth/sign-in/email")).toBe("/api/auth/[...all]");
    expect(apiRouteOf("/api/openapi.json")).toBe("/api/openapi.json");
    expect(apiRouteOf("/api/files/f1/../../etc")).toBe("other");
    expect(apiRouteOf("/apis")).toBeUndefined();
  });

  it("reads its listener from STEPWISER_WEB_METRICS_PORT and _HOST", () => {
    expect(webMetricsSettingsFromEnv({})).toBeUndefined();
    expect(webMetricsSettingsFromEnv({ STEPWISER_WEB_METRICS_PORT: "9465" })).toEqual({ port: 9465, host: "127.0.0.1" });
    expect(webMetricsSettingsFromEnv({ STEPWISER_WEB_METRICS_PORT: "9465", STEPWISER_WEB_METRICS_HOST: "0.0.0.0" })).toEqual({ port: 9465, host: "0.0.0.0" });
    expect(() => webMetricsSettingsFromEnv({ STEPWISER_WEB_METRICS_PORT: "metrics" })).toThrow(/STEPWISER_WEB_METRICS_PORT must be an integer/);
  });
});
