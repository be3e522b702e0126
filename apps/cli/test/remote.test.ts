import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasRemoteMode, HELP } from "../src/help";
import { refusalOf, RemoteApiError } from "../src/remote/client";
import { normalizeBaseUrl, resolveRemote, takeRemoteFlags } from "../src/remote/settings";
import { runCliInProcess } from "./in-process-cli";
import { repoRoot } from "./run-cli";

/** Nothing listens there: a command that touched a database would fail, not answer. */
const NO_DATABASE = { DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1" };
const TOKEN = "sw_unit_test_token_0123456789";

describe("remote mode's settings", () => {
  it("takes --url and --token out of the arguments, before a command or among its flags", () => {
    expect(takeRemoteFlags(["--url", "http://a", "--token=sw_x", "run", "list", "--url", "http://b"], { leadingOnly: true })).toEqual({
      args: ["run", "list", "--url", "http://b"],
      flags: { url: "http://a", token: "sw_x" },
    });
    expect(takeRemoteFlags(["list", "--kind", "judge", "--url=http://b", "--token", "sw_y", "--", "--url"])).toEqual({
      args: ["list", "--kind", "judge", "--", "--url"],
      flags: { url: "http://b", token: "sw_y" },
    });
    expect(() => takeRemoteFlags(["run", "list", "--token"])).toThrow("--token needs a value");
  });

  it("reads the environment, lets the flags win, and refuses half a configuration by name", () => {
    expect(resolveRemote({}, {})).toBeNull();
    expect(resolveRemote({}, { STEPWISER_URL: "http://studio:3000/", STEPWISER_TOKEN: "sw_env" })).toEqual({ baseUrl: "http://studio:3000", token: "sw_env" });
    expect(resolveRemote({ url: "https://other.example/api/v1", token: "sw_flag" }, { STEPWISER_URL: "http://studio:3000", STEPWISER_TOKEN: "sw_env" })).toEqual({
      baseUrl: "https://other.example",
      token: "sw_flag",
    });
    expect(() => resolveRemote({}, { STEPWISER_URL: "http://studio:3000" })).toThrow(/^STEPWISER_URL is set but no API token is/);
    expect(() => resolveRemote({ token: "sw_flag" }, {})).toThrow(/^--token is set but no studio address is/);
    expect(() => resolveRemote({ url: "ftp://studio" }, { STEPWISER_TOKEN: "sw_env" })).toThrow('--url "ftp://studio" is not an http(s) address');
  });

  it("keeps a path prefix, drops a trailing /api/v1, and refuses credentials or a query in the address", () => {
    expect(normalizeBaseUrl("https://host.example/studio/", "STEPWISER_URL")).toBe("https://host.example/studio");
    expect(normalizeBaseUrl("http://127.0.0.1:3917/api/v1/", "STEPWISER_URL")).toBe("http://127.0.0.1:3917");
    expect(() => normalizeBaseUrl("http://me:secret@host", "STEPWISER_URL")).toThrow("carries a user name or password");
    expect(() => normalizeBaseUrl("http://host/?x=1", "--url")).toThrow("has a query or fragment");
    expect(() => normalizeBaseUrl("localhost:3000", "--url")).toThrow("is not an http(s) address");
  });

  it("reads the API's error body, and quotes any other body shortened", () => {
    expect(refusalOf(400, JSON.stringify({ error: { code: "BAD_REQUEST", message: "must be at least 1", field: "config.samples" } }))).toEqual({
      code: "BAD_REQUEST",
      message: "must be at least 1",
      field: "config.samples",
    });
    expect(refusalOf(502, "<html>\n  Bad gateway\n</html>")).toEqual({ code: "HTTP_502", message: "<html> Bad gateway </html>" });
    const error = new RemoteApiError("POST", "/api/v1/runs", 400, "BAD_REQUEST", "must be at least 1", "config.samples");
    expect(error.message).toBe("POST /api/v1/runs answered 400 BAD_REQUEST (field config.samples): must be at least 1");
    expect(error.exitCode).toBe(2);
    expect(new RemoteApiError("GET", "/api/v1/runs/x", 404, "NOT_FOUND", "no run x").exitCode).toBe(1);
  });

  it("lists --url and --token in the help of every command it runs, and only there", () => {
    for (const name of Object.keys(HELP)) {
      const shown = (name.startsWith("run") && !["run relabel", "run edit"].includes(name)) || name.startsWith("export") || name.startsWith("import") || name === "endpoint list";
      expect(hasRemoteMode(name), name).toBe(shown);
    }
  });
});

/** The static imports (not `import type`, not `import()`) of a TypeScript source. */
function staticImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  return [...source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1]!);
}

describe("remote mode's start-up", () => {
  it("loads no database client: nothing cli.ts and the remote commands import statically reaches @stepwiser/db, jobs, api or inference", () => {
    const src = path.join(repoRoot, "apps/cli/src");
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of staticImports(file)) {
        if (specifier.startsWith(".")) visit(`${path.resolve(path.dirname(file), specifier)}.ts`);
        else packages.add(specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/"));
      }
    };
    visit(path.join(src, "cli.ts"));
    visit(path.join(src, "remote/commands.ts"));
    expect(seen.size).toBeGreaterThan(10);
    expect([...packages].filter((name) => name.startsWith("@stepwiser/")).sort()).toEqual(["@stepwiser/core"]);
  });
});

interface Seen {
  method: string;
  url: string;
  authorization?: string;
}

describe("remote mode against an HTTP server", () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization });
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        // An answer that echoes what it was sent: the command line must not print it back.
        return json(401, { error: { code: "UNAUTHORIZED", message: `the API token ${request.headers.authorization?.slice(7)} is not valid` } });
      }
      const url = new URL(request.url!, "http://x");
      if (request.method === "GET" && url.pathname === "/api/v1/runs") return json(200, { items: [{ id: "r1", kind: url.searchParams.get("kind") }], total: 3, limit: 1, offset: 0, nextOffset: 1 });
      if (request.method === "GET" && url.pathname === "/api/v1/endpoints") return json(200, { endpoints: [{ name: "sim-judge-strong", role: "judge" }] });
      if (request.method === "POST" && url.pathname === "/api/v1/runs/r9/cancel") return json(400, { error: { code: "BAD_REQUEST", message: "run r9 has ended (completed)", field: "id" } });
      return json(404, { error: { code: "NOT_FOUND", message: `no operation at ${url.pathname}` } });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const remoteEnv = (token = TOKEN) => ({ ...NO_DATABASE, STEPWISER_URL: base, STEPWISER_TOKEN: token });

  it("run list sends the flags as the query with the bearer token and prints {runs, nextOffset}", async () => {
    seen.length = 0;
    const result = await runCliInProcess(["run", "list", "--kind", "chunk-reset", "--limit", "1"], remoteEnv());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ runs: [{ id: "r1", kind: "chunk_reset" }], nextOffset: 1 });
    expect(seen).toEqual([{ method: "GET", url: "/api/v1/runs?kind=chunk_reset&limit=1&offset=0", authorization: `Bearer ${TOKEN}` }]);
  });

  it("--url and --token win over the environment; endpoint list prints the endpoints", async () => {
    const result = await runCliInProcess(["--url", base, "endpoint", "list", "--token", TOKEN], { ...remoteEnv("sw_wrong"), STEPWISER_URL: "http://127.0.0.1:9" });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ name: "sim-judge-strong", role: "judge" }]);
  });

  it("prints the API's code, field and message: exit 2 for a 400, 1 otherwise, and never the token", async () => {
    const refused = await runCliInProcess(["run", "cancel", "r9"], remoteEnv());
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toBe("stepwiser: POST /api/v1/runs/r9/cancel answered 400 BAD_REQUEST (field id): run r9 has ended (completed)\n");

    const badToken = "sw_not_the_right_one";
    const unauthorized = await runCliInProcess(["run", "list"], remoteEnv(badToken));
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toContain("GET /api/v1/runs answered 401 UNAUTHORIZED: the API token sw_… is not valid");
    expect(unauthorized.stderr).not.toContain(badToken);
  });

  it("refuses a command that needs the database (exit 2), and names the address it cannot reach (exit 1)", async () => {
    const local = await runCliInProcess(["run", "relabel", "r1", "--rule", "abs-q"], remoteEnv());
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('"run relabel" needs database access; remote mode (STEPWISER_URL) supports: run list,');
    const prmbench = await runCliInProcess(["run", "predictions", "r1", "--format", "prmbench"], remoteEnv());
    expect(prmbench.code).toBe(2);
    expect(prmbench.stderr).toContain("run predictions --format prmbench is local-only");

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await runCliInProcess(["run", "status", "r1"], { ...remoteEnv(), STEPWISER_URL: `http://127.0.0.1:${port}` });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach the studio at http://127.0.0.1:${port} (GET /api/v1/runs/r1: ECONNREFUSED)`);
    expect(unreachable.stderr).not.toContain(TOKEN);
  });
});
