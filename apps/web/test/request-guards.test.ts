import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { authPool, createAuth, createUserWithPassword, handleAuthRequest, handleRestRequest, handleTrpcRequest, type Auth, type ContextDeps } from "@stepwiser/api";
import { parseTrustedProxies } from "@stepwiser/api/request-origin";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createWebServer } from "../src/server/http-server";

/*
 * Attacks on the web server's front door, over real HTTP, against the real handlers (auth, tRPC, REST) and a real
 * PostgreSQL: the studio's HTTP server (src/server/http-server.ts) with the API routes mounted as the app mounts them.
 * The same server runs Next.js in production; e2e/tests/request-guards.spec.ts repeats the decisive cases there.
 */

const PASSWORD = "correct-horse-battery";
const ATTEMPTS_PER_MINUTE = 5;
const MIB = 1024 * 1024;

interface Front {
  url: string;
  close(): Promise<void>;
}

/**
 * A Node request's body as a web stream with backpressure; cancelling it discards the rest as it arrives (the
 * connection stays up for the answer), as a route's refusal of an oversized body leaves it.
 */
function bodyStreamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => controller.close());
        req.once("error", (error) => controller.error(error));
      },
      pull() {
        req.resume();
      },
      cancel() {
        req.removeAllListeners("data");
        req.on("data", () => undefined);
        req.resume();
      },
    },
    { highWaterMark: 4 },
  );
}

/** A Fetch API request of a Node one, its body streamed (never buffered here). */
function fetchRequestOf(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`${origin}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? bodyStreamOf(req) : undefined,
    duplex: "half",
  } as RequestInit);
}

async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), "content-length": body.byteLength });
  res.end(body);
}

describe("request guards over HTTP: client addresses, sign-in throttles, body caps", () => {
  let database: TestDatabase;
  let pool: ReturnType<typeof authPool>;
  let auth: Auth;
  let deps: ContextDeps;
  const fronts: Front[] = [];
  /** For the suite's summary line. */
  const tally = { spoofedRefused: 0, accountRefused: 0, tokensRefused: 0, tooLarge: 0, peakRssGrowthMb: 0, tooDeep: 0 };

  /** The server with the API mounted, trusting `trustedProxies` (CIDRs, comma-separated) for X-Forwarded-For. */
  async function startFront(trustedProxies?: string): Promise<Front> {
    let origin = "";
    const server = createWebServer({
      trusted: parseTrustedProxies(trustedProxies),
      maxBodyBytes: 10 * MIB,
      handle: async (req, res) => {
        const request = fetchRequestOf(req, origin);
        const path = new URL(request.url).pathname;
        if (path.startsWith("/api/auth/")) return sendResponse(await handleAuthRequest(request, { auth, db: database.db }), res);
        if (path.startsWith("/api/trpc")) return sendResponse(await handleTrpcRequest(request, deps), res);
        if (path.startsWith("/api/v1")) return sendResponse(await handleRestRequest(request, deps, path.slice("/api/v1".length)), res);
        if (path === "/download") return void res.writeHead(200, { "content-security-policy": "sandbox", "content-type": "text/plain" }).end("file");
        res.writeHead(404).end();
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const front = {
      url: origin,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
    fronts.push(front);
    return front;
  }

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    // Origins as the servers below are reached; better-auth checks them on sign-in.
    auth = createAuth({ databaseUrl: database.url, baseUrl: "http://127.0.0.1", secret: "g".repeat(40), signInAttemptsPerMinute: ATTEMPTS_PER_MINUTE, trustedOrigins: ["http://127.0.0.1:*"] }, pool);
    deps = { db: database.db, auth, getQueue: () => Promise.reject(new Error("no queue in this test")) };
    for (const name of ["victim", "researcher"]) await createUserWithPassword(database.db, { email: `${name}@guards.test`, name, role: "researcher", password: PASSWORD });
  });
  afterAll(async () => {
    console.log(
      `request guards: spoofed X-Forwarded-For sign-ins throttled ${tally.spoofedRefused}, account backoffs ${tally.accountRefused}, refused-token 429s ${tally.tokensRefused}, 300 MB bodies refused with 413 ${tally.tooLarge} (peak RSS growth ${tally.peakRssGrowthMb.toFixed(0)} MB), over-deep JSON refused ${tally.tooDeep}`,
    );
    for (const front of fronts) await front.close();
    await pool?.end();
    await database?.drop();
  });

  const clearThrottles = () => database.db.$executeRaw`DELETE FROM "ThrottleBucket"`;

  async function signIn(front: Front, email: string, password: string, forwardedFor?: string) {
    const response = await fetch(`${front.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: front.url, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
      body: JSON.stringify({ email, password }),
    });
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text(), cookie: response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") };
  }

  it("without trusted proxies, a rotating X-Forwarded-For does not dodge the per-address limit, and the right password is then refused too", async () => {
    await clearThrottles();
    const front = await startFront();
    const statuses: number[] = [];
    // Every attempt at another account from a "fresh" address: only the socket address is the same.
    for (let i = 0; i < ATTEMPTS_PER_MINUTE + 3; i++) statuses.push((await signIn(front, `nobody-${i}@guards.test`, "wrong-password", `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([...Array(ATTEMPTS_PER_MINUTE).fill(401), 429, 429, 429]);
    const right = await signIn(front, "victim@guards.test", PASSWORD, "192.0.2.200");
    expect(right.status).toBe(429);
    tally.spoofedRefused += 4;
    expect(right.body).toMatch(/too many sign-in attempts from this address; try again in \d+ s/);
    expect(Number(right.retryAfter)).toBeGreaterThan(0);
  });

  it("behind trusted proxies, the right-most untrusted X-Forwarded-For entry is the client: addresses a client prepends change nothing", async () => {
    await clearThrottles();
    const front = await startFront("127.0.0.0/8, 10.0.0.0/8");
    // Distinct clients behind the proxy have buckets of their own.
    for (let i = 0; i < ATTEMPTS_PER_MINUTE + 2; i++) expect((await signIn(front, `someone-${i}@guards.test`, "wrong-password", `203.0.113.${i + 1}`)).status).toBe(401);
    // One client prepending made-up addresses, through two trusted hops: its own bucket fills.
    const statuses: number[] = [];
    for (let i = 0; i < ATTEMPTS_PER_MINUTE + 1; i++) statuses.push((await signIn(front, `other-${i}@guards.test`, "wrong-password", `192.0.2.${i + 1}, 198.51.100.77, 10.1.2.3`)).status);
    expect(statuses).toEqual([...Array(ATTEMPTS_PER_MINUTE).fill(401), 429]);
  });

  it("an account backs off after failures from many addresses, for seconds not hours; the right password clears it", async () => {
    await clearThrottles();
    const front = await startFront("127.0.0.0/8");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signIn(front, "victim@guards.test", "wrong-password", `203.0.113.${100 + i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const held = await signIn(front, "victim@guards.test", PASSWORD, "203.0.113.250");
    expect(held.status).toBe(429);
    tally.accountRefused += 2;
    expect(held.body).toMatch(/too many failed sign-ins for this account; try again in [12] s/);
    // The backoff after five failures is two seconds; then the owner signs in, and the count starts over.
    await new Promise((resolve) => setTimeout(resolve, Number(held.retryAfter) * 1000 + 100));
    expect((await signIn(front, "victim@guards.test", PASSWORD, "203.0.113.250")).status).toBe(200);
    expect((await signIn(front, "victim@guards.test", "wrong-password", "203.0.113.251")).status).toBe(401);
    expect((await signIn(front, "victim@guards.test", PASSWORD, "203.0.113.251")).status).toBe(200);
  });

  it("refused API tokens from one address are answered 429 past the limit, whatever X-Forwarded-For says", async () => {
    await clearThrottles();
    const front = await startFront();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const response = await fetch(`${front.url}/api/v1/runs`, { headers: { authorization: `Bearer sw_${"x".repeat(40)}${String(i).padStart(3, "0")}`, "x-forwarded-for": `198.51.100.${i}` } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(20).fill(401), 429, 429]);
    tally.tokensRefused += 2;
  });

  /**
   * Sends `megabytes` MiB over a raw socket (chunked, or with a Content-Length when `declare`) until the server
   * answers, and returns its status, its body and the peak RSS growth meanwhile (client and server share the process).
   * Raw, because a server that refuses a body closes the connection: an HTTP client may report the broken pipe of its
   * next write before the answer it has already received.
   */
  async function sendLargeBody(url: string, megabytes: number, headers: Record<string, string>, declare = false): Promise<{ status: number; body: string; rssGrowthMb: number }> {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const piece = Buffer.alloc(MIB, 0x61);
    const chunk = Buffer.concat([Buffer.from(`${MIB.toString(16)}\r\n`), piece, Buffer.from("\r\n")]);
    const target = new URL(url);
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(target.port), target.hostname);
        let received = "";
        let sent = 0;
        const head = [`POST ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
        head.push(declare ? `content-length: ${megabytes * MIB}` : "transfer-encoding: chunked");
        const timer = setTimeout(() => reject(new Error(`no answer after ${sent} MiB`)), 60_000);
        const finish = () => {
          clearTimeout(timer);
          peak = Math.max(peak, process.memoryUsage().rss);
          resolve(received);
        };
        socket.on("data", (data: Buffer) => {
          received += data.toString("latin1");
          const headEnd = received.indexOf("\r\n\r\n");
          const length = /\r\ncontent-length: (\d+)/i.exec(received)?.[1];
          if (headEnd >= 0 && length !== undefined && received.length >= headEnd + 4 + Number(length)) {
            socket.destroy();
            finish();
          }
        });
        socket.on("close", () => (received ? finish() : reject(new Error(`the server closed the connection without an answer after ${sent} MiB`))));
        socket.on("error", () => undefined); // a write after the server's close; the answer decides
        const write = () => {
          while (!received && !socket.destroyed && sent < megabytes) {
            sent++;
            if (!socket.write(declare ? piece : chunk)) return void socket.once("drain", write);
          }
          if (!received && !socket.destroyed && !declare) socket.write("0\r\n\r\n");
        };
        socket.write(`${head.join("\r\n")}\r\n\r\n`, write);
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      return { status, body: answer.slice(answer.indexOf("\r\n\r\n") + 4), rssGrowthMb: (peak - before) / MIB };
    } finally {
      clearInterval(sampler);
    }
  }

  it("a 300 MB body to tRPC or REST is refused with 413 while it streams, and the server's memory stays bounded", async () => {
    await clearThrottles();
    const front = await startFront();
    const { cookie } = await signIn(front, "researcher@guards.test", PASSWORD);
    expect(cookie).toMatch(/session_token=/);
    const headers = { "content-type": "application/json", origin: front.url, cookie };

    const trpc = await sendLargeBody(`${front.url}/api/trpc/run.launch`, 300, headers);
    expect(trpc.status).toBe(413);
    expect(JSON.parse(trpc.body).error.json).toMatchObject({ data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413 } });
    expect(trpc.body).toMatch(/more than the 10 MiB an API request may send/);
    expect(trpc.rssGrowthMb).toBeLessThan(120);

    const rest = await sendLargeBody(`${front.url}/api/v1/runs`, 300, headers);
    expect(rest.status).toBe(413);
    expect(JSON.parse(rest.body).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(rest.rssGrowthMb).toBeLessThan(120);
    tally.tooLarge += 2;
    tally.peakRssGrowthMb = Math.max(trpc.rssGrowthMb, rest.rssGrowthMb);

    // A declared length past the cap is answered before a byte of the body is read.
    const declared = await sendLargeBody(`${front.url}/api/trpc/run.launch`, 300, headers, true);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatch(/the body is 314,572,800 bytes, more than the 10 MiB/);

    // An upload is not an API request: the REST API's, like the web app's, streams past that cap into storage.
    const upload = await sendLargeBody(`${front.url}/api/v1/uploads?fileName=big.jsonl`, 12, { "content-type": "application/octet-stream", origin: front.url, cookie }, true);
    expect(upload.status, upload.body).toBe(201);
    expect(JSON.parse(upload.body)).toMatchObject({ fileName: "big.jsonl", sizeBytes: 12 * MIB });
  });

  it("every answer carries the security headers, and an answer with its own policy keeps it", async () => {
    const front = await startFront();
    const page = await fetch(`${front.url}/nothing-here`);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const download = await fetch(`${front.url}/download`);
    expect(download.headers.get("content-security-policy")).toBe("sandbox");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("JSON nested past the depth cap is refused with its location before anything parses it", async () => {
    const front = await startFront();
    await clearThrottles();
    const { cookie } = await signIn(front, "researcher@guards.test", PASSWORD);
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const trpc = await fetch(`${front.url}/api/trpc/run.launch`, { method: "POST", headers: { "content-type": "application/json", origin: front.url, cookie }, body: deep });
    expect(trpc.status).toBe(400);
    expect(await trpc.text()).toMatch(/field \\"body\\": the JSON nests more than 64 arrays\/objects deep \(at column 65\)/);
    const rest = await fetch(`${front.url}/api/v1/runs`, { method: "POST", headers: { "content-type": "application/json", origin: front.url, cookie }, body: `{"a":${deep}}` });
    expect(rest.status).toBe(400);
    expect((await rest.json()).error.message).toMatch(/the JSON nests more than 64 arrays\/objects deep/);
    tally.tooDeep += 2;
  });
});
