/*
 * Starts the web app: Next.js's request handler behind the studio's own HTTP server (src/server/http-server.ts),
 * which resolves client addresses (STEPWISER_TRUSTED_PROXIES) and refuses oversized API bodies
 * (STEPWISER_MAX_REQUEST_BYTES) before Next.js reads them.
 *
 * Run by Node (24+) as it is: `node apps/web/server.ts [-p PORT] [-H HOST]` (PORT and HOST from the environment
 * otherwise), after `next build`. Logs are pino's lines (STEPWISER_LOG_LEVEL, STEPWISER_LOG_FORMAT); with
 * STEPWISER_WEB_METRICS_PORT it serves /metrics (process metrics, API request durations) on that port.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { maxRequestBytesFromEnv } from "@stepwiser/api/body-cap";
import { parseTrustedProxies } from "@stepwiser/api/request-origin";
import { createLogger } from "@stepwiser/jobs/log";
import { createWebServer } from "./src/server/http-server.ts";
import { startWebMetricsServer, WebMetrics, webMetricsSettingsFromEnv } from "./src/server/web-metrics.ts";

const logger = createLogger({ name: "web" });

function option(flag: string, fallback: string): string {
  const at = process.argv.indexOf(flag);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

function fail(message: string): never {
  logger.fatal(message);
  process.exit(1);
}

const portText = option("-p", process.env.PORT ?? "3000");
const port = Number(portText);
const host = option("-H", process.env.HOST ?? "0.0.0.0");
if (!/^\d+$/.test(portText) || port > 65535) fail(`the port must be an integer from 0 to 65535, got "${portText}"`);

let trusted: ReturnType<typeof parseTrustedProxies>;
let maxBodyBytes: number;
let metricsSettings: ReturnType<typeof webMetricsSettingsFromEnv>;
try {
  trusted = parseTrustedProxies(process.env.STEPWISER_TRUSTED_PROXIES);
  maxBodyBytes = maxRequestBytesFromEnv(process.env);
  metricsSettings = webMetricsSettingsFromEnv(process.env);
} catch (error) {
  fail((error as Error).message);
}

(process.env as Record<string, string>).NODE_ENV ??= "production";
const { default: next } = await import("next");
const app = next({ dev: false, dir: path.dirname(fileURLToPath(import.meta.url)), hostname: host, port });
const handle = app.getRequestHandler();
await app.prepare();

const metrics = metricsSettings ? new WebMetrics() : undefined;
const server = createWebServer({ handle, trusted, maxBodyBytes, logger, observe: metrics && ((request) => metrics.observe(request)) });
server.listen(port, host, () => {
  const trust = trusted ? `X-Forwarded-For from ${trusted.cidrs.join(", ")}` : "socket addresses (no trusted proxies)";
  logger.info({ url: `http://${host}:${port}`, maxBodyBytes }, `listening on http://${host}:${port} (client addresses: ${trust}; API bodies up to ${maxBodyBytes} bytes)`);
});
if (metrics && metricsSettings) {
  try {
    const listener = await startWebMetricsServer(metrics, metricsSettings.port, metricsSettings.host);
    logger.info({ url: listener.url }, `metrics on ${listener.url}/metrics`);
  } catch (error) {
    fail(`the metrics listener could not start on ${metricsSettings.host}:${metricsSettings.port}: ${(error as Error).message}`);
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
