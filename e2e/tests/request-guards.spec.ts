import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

/*
 * The request guards on the real web server (Next.js behind apps/web/server.ts, started by the launcher), where
 * apps/web/test/request-guards.test.ts proves them in detail: security headers, the account throttle against a
 * rotating X-Forwarded-For, and a 300 MB body refused with 413 while the web process's memory stays bounded.
 */

const port = Number(process.env.STEPWISER_E2E_PORT ?? 3917);

/** The web server process of this run (the one serving `port`), by its command line. */
function webServerPid(): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.some((a) => a.endsWith("server.ts")) && argv.includes("-p") && argv[argv.indexOf("-p") + 1] === String(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no web server process serving port ${port}`);
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** Streams `megabytes` MiB chunked to `path` over a raw socket until the server answers; the answer's status line and body. */
function streamBody(path: string, megabytes: number, headers: Record<string, string>, onSent: () => void): Promise<string> {
  const piece = Buffer.concat([Buffer.from(`${(1024 * 1024).toString(16)}\r\n`), Buffer.alloc(1024 * 1024, 0x7b), Buffer.from("\r\n")]);
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    const timer = setTimeout(() => reject(new Error(`no answer after ${sent} MiB`)), 60_000);
    socket.on("data", (data: Buffer) => {
      received += data.toString("latin1");
      if (/\r\n\r\n[\s\S]*\}\s*$/.test(received) || /\r\n0\r\n\r\n$/.test(received)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("close", () => (received ? resolve(received) : reject(new Error(`closed without an answer after ${sent} MiB`))));
    socket.on("error", () => undefined);
    const write = () => {
      while (!received && !socket.destroyed && sent < megabytes) {
        sent++;
        onSent();
        if (!socket.write(piece)) return void socket.once("drain", write);
      }
      if (!received && !socket.destroyed) socket.write("0\r\n\r\n");
    };
    const head = [`POST ${path} HTTP/1.1`, `host: localhost:${port}`, "transfer-encoding: chunked", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${head.join("\r\n")}\r\n\r\n`, write);
  });
}

test("pages and API answers forbid framing and other origins' content", async ({ request }) => {
  for (const path of ["/sign-in", "/api/health"]) {
    const response = await request.get(path);
    const policy = response.headers()["content-security-policy"] ?? "";
    expect(policy, path).toContain("frame-ancestors 'none'");
    expect(policy, path).toContain("object-src 'none'");
    expect(policy, path).toContain("default-src 'self'");
    expect(response.headers()["x-frame-options"], path).toBe("DENY");
  }
});

test("a rotating X-Forwarded-For does not dodge the account throttle", async ({ request }) => {
  const statuses: number[] = [];
  let last = "";
  for (let i = 0; i < 6; i++) {
    const response = await request.post("/api/auth/sign-in/email", {
      headers: { origin: `http://localhost:${port}`, "x-forwarded-for": `198.51.100.${i + 1}` },
      data: { email: "nobody-throttled@e2e.test", password: "not-the-password" },
    });
    statuses.push(response.status());
    last = await response.text();
  }
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  expect(last).toContain("too many failed sign-ins for this account");
});

test("a 300 MB body to tRPC is refused with 413 while it streams, and the web server's memory stays bounded", async ({ page }) => {
  await signIn(page);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const pid = webServerPid();
  const before = rssMb(pid);
  let peak = before;
  const answer = await streamBody("/api/trpc/run.launch", 300, { "content-type": "application/json", origin: `http://localhost:${port}`, cookie }, () => {
    peak = Math.max(peak, rssMb(pid));
  });
  peak = Math.max(peak, rssMb(pid));
  expect(answer).toMatch(/^HTTP\/1\.1 413/);
  expect(answer).toContain("more than the 10 MiB an API request may send");
  // The cap is 10 MiB; the server may hold it and its own buffers, never the body.
  expect(peak - before).toBeLessThan(150);
  // The server still answers.
  expect((await page.request.get("/api/health")).status()).toBe(200);
});
