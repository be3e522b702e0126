/*
 * Starts the web app: Next.js's request handler behind the studio's own HTTP server (src/server/http-server.ts),
 * which resolves client addresses (STEPWISER_TRUSTED_PROXIES) and refuses oversized API bodies
 * (STEPWISER_MAX_REQUEST_BYTES) before Next.js reads them.
 *
 * Run by Node (24+) as it is: `node apps/web/server.ts [-p PORT] [-H HOST]` (PORT and HOST from the environment
 * otherwise), after `next build`.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { maxRequestBytesFromEnv } from "@stepwiser/api/body-cap";
import { parseTrustedProxies } from "@stepwiser/api/request-origin";
import { createWebServer } from "./src/server/http-server.ts";

function option(flag: string, fallback: string): string {
  const at = process.argv.indexOf(flag);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

function fail(message: string): never {
  console.error(`[web] ${message}`);
  process.exit(1);
}

const portText = option("-p", process.env.PORT ?? "3000");
const port = Number(portText);
const host = option("-H", process.env.HOST ?? "0.0.0.0");
if (!/^\d+$/.test(portText) || port > 65535) fail(`the port must be an integer from 0 to 65535, got "${portText}"`);

let trusted: ReturnType<typeof parseTrustedProxies>;
let maxBodyBytes: number;
try {
  trusted = parseTrustedProxies(process.env.STEPWISER_TRUSTED_PROXIES);
  maxBodyBytes = maxRequestBytesFromEnv(process.env);
} catch (error) {
  fail((error as Error).message);
}

(process.env as Record<string, string>).NODE_ENV ??= "production";
const { default: next } = await import("next");
const app = next({ dev: false, dir: path.dirname(fileURLToPath(import.meta.url)), hostname: host, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = createWebServer({ handle, trusted, maxBodyBytes });
server.listen(port, host, () => {
  const trust = trusted ? `X-Forwarded-For from ${trusted.cidrs.join(", ")}` : "socket addresses (no trusted proxies)";
  console.log(`[web] listening on http://${host}:${port} (client addresses: ${trust}; API bodies up to ${maxBodyBytes} bytes)`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
