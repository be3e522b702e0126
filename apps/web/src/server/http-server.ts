import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { bodyTooLargeMessage, isCappedApiPath } from "@stepwiser/api/body-cap";
import { CLIENT_ADDRESS_HEADER, requestOrigins, resolveClientAddress, type TrustedProxies } from "@stepwiser/api/request-origin";
import { createLogger, type Logger } from "@stepwiser/jobs/log";

/*
 * The web app's HTTP server around a request handler (Next.js's in production, see apps/web/server.ts):
 * - resolves each request's client address from its socket, or (only when the socket peer is one of the trusted
 *   proxies) from X-Forwarded-For, and serves the request inside that origin (packages/api/src/request-origin), so
 *   throttles key on an address the client cannot choose; the CLIENT_ADDRESS_HEADER it sets replaces any sent;
 * - answers 413 at once, reading nothing, to an API request whose Content-Length passes `maxBodyBytes` (a body with
 *   no length is counted as it streams, by the route that reads it);
 * - after an answer sent before its request's body ended (a refusal), discards the rest of the body as it arrives for
 *   up to LINGER_MS, then closes the connection: closing at once, with the client's bytes unread, resets the
 *   connection, and a client still sending loses the answer it was sent.
 * - sets the security headers (SECURITY_HEADERS) on every answer, unless the route sends its own;
 * - tells `observe` of every request once its connection is done with it (the web's metrics).
 * Imports only Node's modules, dependency-free files of packages/api and the logger (@stepwiser/jobs/log):
 * Node runs it as it is.
 */

/**
 * Every answer's security headers, added as its headers are written where the app set none of the same name, so a
 * route that sends its own (a download's `Content-Security-Policy: sandbox`) keeps it. The policy forbids framing (clickjacking), plugins, other
 * origins' scripts, styles, images, fonts and connections, and form posts or <base> elsewhere. Scripts and styles may
 * be inline: Next.js streams its page data in inline scripts, the theme boots from one before the first paint, and
 * charts set inline styles. Untrusted text (model outputs, notes) is rendered as text or sanitised markup, never as
 * script.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

/** Adds SECURITY_HEADERS as the answer's headers are written, each only where the app set none of that name. */
function withSecurityHeaders(response: ServerResponse): void {
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!this.hasHeader(name)) this.setHeader(name, value);
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

export interface WebServerOptions {
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<unknown>;
  trusted: TrustedProxies | null;
  maxBodyBytes: number;
  /** Where a request the handler failed is reported; a logger named "web" on standard output by default. */
  logger?: Logger;
  /** Called once per request when its answer has ended (or its connection closed first: no status). */
  observe?: (request: { pathname: string; method: string; status: number | undefined; seconds: number }) => void;
}

function refuseTooLarge(response: ServerResponse, maxBodyBytes: number, declared: number): void {
  const body = JSON.stringify({ error: { code: "PAYLOAD_TOO_LARGE", message: bodyTooLargeMessage(maxBodyBytes, declared) } });
  response.writeHead(413, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  response.end(body);
}

/** How long the rest of a refused body is read (and dropped) before the connection is closed. */
export const LINGER_MS = 10_000;

/** Once `response` is sent, drops what is left of `request`'s body, closing the connection after LINGER_MS at most. */
function lingerAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  response.once("finish", () => {
    if (request.complete || request.destroyed) return;
    response.shouldKeepAlive = false;
    const close = setTimeout(() => request.socket.destroy(), LINGER_MS);
    close.unref();
    request.once("end", () => {
      clearTimeout(close);
      request.socket.end();
    });
    request.on("data", () => undefined);
    request.resume();
  });
}

/** Tells `observe` of the request once the response is closed: its status when the answer ended, none otherwise. */
function observeWhenDone(request: IncomingMessage, response: ServerResponse, pathname: string, observe: NonNullable<WebServerOptions["observe"]>): void {
  const started = performance.now();
  response.once("close", () => {
    const status = response.writableFinished ? response.statusCode : undefined;
    observe({ pathname, method: request.method ?? "GET", status, seconds: (performance.now() - started) / 1000 });
  });
}

export function createWebServer(options: WebServerOptions): Server {
  const logger = options.logger ?? createLogger({ name: "web" });
  return createServer((request, response) => {
    const pathname = (request.url ?? "/").split("?")[0]!;
    if (options.observe) observeWhenDone(request, response, pathname, options.observe);
    withSecurityHeaders(response);
    lingerAfterAnswer(request, response);
    const clientAddress = resolveClientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], options.trusted);
    request.headers[CLIENT_ADDRESS_HEADER] = clientAddress;
    const declared = Number(request.headers["content-length"] ?? 0);
    if (isCappedApiPath(pathname) && declared > options.maxBodyBytes) {
      refuseTooLarge(response, options.maxBodyBytes, declared);
      return;
    }
    requestOrigins().run({ clientAddress }, () => {
      options.handle(request, response).catch((error: unknown) => {
        logger.error({ err: error, method: request.method, path: pathname }, `${request.method} ${pathname} failed`);
        if (!response.headersSent) response.writeHead(500).end();
        else response.destroy();
      });
    });
  });
}
