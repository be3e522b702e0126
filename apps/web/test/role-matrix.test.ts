import { appRouter, REST_OPERATIONS } from "@stepwiser/api";
import { allows, ROLES, type Access, type UserRole } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PER_OPERATION, PER_PROCEDURE, ROUTE_ACCESS, type HttpMethod } from "../src/server/route-access";
import { APP_ORIGIN, discoverRouteFiles, exportedMethods, startHarness, type Harness } from "./route-harness";

/**
 * The access tier of every tRPC procedure, stated once more by hand: a
 * procedure added without a line here, or whose declared tier differs, fails
 * this test. What each tier lets each role do is the capability table in
 * packages/core/src/access/capabilities.ts.
 */
const EXPECTED_ACCESS: Record<string, Access> = {
  "health.ping": "public",
  "me.get": "account",
  "dataset.list": "research.read",
  "dataset.get": "research.read",
  "dataset.overview": "research.read",
  "solution.list": "research.read",
  "solution.neighbors": "research.read",
  "solution.get": "research.read",
  "solution.inspect": "research.read",
  "rollout.list": "research.read",
  "run.get": "research.read",
  "run.list": "research.read",
  "run.filterOptions": "research.read",
  "run.schemas": "research.read",
  "run.progress": "research.read",
  "run.failures": "research.read",
  "run.confidence": "research.read",
  "run.results": "research.read",
  "run.launch": "research.manage",
  "run.validate": "research.manage",
  "run.plan": "research.read",
  "run.cancel": "research.manage",
  "run.cancelMany": "research.manage",
  "run.resume": "research.manage",
  "run.relabel": "research.manage",
  "run.update": "research.manage",
  "import.processbench": "research.manage",
  "import.preview": "research.manage",
  "import.start": "research.manage",
  "import.startBatchOutput": "research.manage",
  "import.list": "research.read",
  "import.report": "research.read",
  "user.list": "users.manage",
  "user.create": "users.manage",
  "user.setRole": "users.manage",
  "user.disable": "users.manage",
  "user.enable": "users.manage",
  "user.resetPassword": "users.manage",
  "user.endSessions": "users.manage",
  "audit.actions": "users.manage",
  "audit.list": "users.manage",
  "endpoint.list": "research.read",
  "endpoint.create": "endpoints.manage",
  "endpoint.update": "endpoints.manage",
  "endpoint.delete": "endpoints.manage",
  "endpoint.test": "research.manage",
  "endpoint.metrics": "research.read",
  "worker.list": "research.read",
  "annotationQueue.createQueue": "annotationQueues.manage",
  "annotationQueue.updateQueue": "annotationQueues.manage",
  "annotationQueue.addMembers": "annotationQueues.manage",
  "annotationQueue.removeMember": "annotationQueues.manage",
  "annotationQueue.annotatorCandidates": "annotationQueues.manage",
  "annotationQueue.listQueues": "annotationQueues.view",
  "annotationQueue.queue": "annotationQueues.view",
  "annotationQueue.next": "annotationQueues.annotate",
  "annotationQueue.assignment": "annotationQueues.annotate",
  "annotationQueue.submit": "annotationQueues.annotate",
  "annotationQueue.undo": "annotationQueues.annotate",
  "annotationQueue.skip": "annotationQueues.annotate",
  "annotationQueue.agreement": "research.read",
  "annotationQueue.itemHistory": "annotationQueues.manage",
  "annotationQueue.adjudicate": "annotationQueues.manage",
  "annotationQueue.exportLabels": "annotationQueues.manage",
  "compare.candidates": "research.read",
  "compare.checkpoints": "research.read",
  "compare.disagreements": "research.read",
  "compare.item": "research.read",
  "compare.threeWay": "research.read",
  "compare.calibration": "research.read",
  "compare.scaling": "research.read",
  "token.create": "account",
  "token.list": "account",
  "token.revoke": "account",
  "export.start": "research.manage",
  "export.list": "research.read",
  "export.sources": "research.read",
};

/** The capability of every REST operation under /api/v1, stated by hand as the procedures' are. */
const EXPECTED_REST_ACCESS: Record<string, Access> = {
  "GET /runs": "research.read",
  "GET /runs/{id}": "research.read",
  "POST /runs": "research.manage",
  "POST /runs/{id}/cancel": "research.manage",
  "POST /runs/{id}/resume": "research.manage",
  "GET /runs/{id}/labels": "research.read",
  "GET /runs/{id}/predictions": "research.read",
  "GET /datasets": "research.read",
  "GET /datasets/{id}/solutions": "research.read",
  "GET /solutions/{id}/chunks": "research.read",
  "GET /endpoints": "research.read",
  "POST /uploads": "research.manage",
  "POST /imports": "research.manage",
  "GET /imports/{id}/report": "research.read",
  "POST /exports": "research.manage",
  "GET /exports/{id}/files": "research.read",
  "GET /files/{id}": "research.manage",
  "GET /annotation-queues": "annotationQueues.view",
  "GET /annotation-queues/{id}": "annotationQueues.view",
  "GET /annotation-queues/{id}/labels": "annotationQueues.manage",
};

type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { access?: Access } } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);
const CALLERS: Array<UserRole | null> = [null, ...ROLES];
const who = (role: UserRole | null) => role ?? "anonymous";

describe("role matrix: every tRPC procedure and every HTTP route, called as anonymous and as each role", () => {
  let harness: Harness;
  let storedFileId: string;
  let checks = 0;
  const routesChecked = new Set<string>();

  beforeAll(async () => {
    harness = await startHarness(inject("postgresAdminUrl"));
    const upload = await harness.call(
      "/api/uploads",
      "POST",
      new Request(`${APP_ORIGIN}/api/uploads?fileName=matrix.jsonl`, { method: "POST", headers: { authorization: `Bearer ${harness.tokens.get("researcher")}` }, body: '{"a":1}\n' }),
    );
    expect(upload.status).toBe(201);
    storedFileId = ((await upload.json()) as { fileId: string }).fileId;
  });
  afterAll(async () => {
    const routes = new Set([...routesChecked].map((handler) => handler.split(" ")[1]));
    process.stderr.write(`role matrix: ${procedures.length} procedures + ${REST_OPERATIONS.length} REST operations + ${routes.size} routes × ${CALLERS.length} roles checked (${routesChecked.size} route handlers, ${checks} calls)\n`);
    await harness?.close();
  });

  /** A browser's request: the role's session cookie (none for anonymous) and this app's Origin. */
  const browserRequest = (role: UserRole | null, url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", APP_ORIGIN);
    if (role) headers.set("cookie", harness.cookies.get(role)!);
    return new Request(`${APP_ORIGIN}${url}`, { ...init, headers, duplex: "half" } as RequestInit);
  };

  const expectAccess = (access: Access, role: UserRole | null, status: number, what: string) => {
    checks++;
    if (allows(access, role)) expect([401, 403], `${who(role)} on ${what}: allowed, answered ${status}`).not.toContain(status);
    else expect(status, `${who(role)} on ${what}: denied`).toBe(role ? 403 : 401);
  };

  it("every procedure declares the access the table above states", () => {
    const declared = Object.fromEntries(procedures.map(([path, p]) => [path, p._def.meta?.access ?? "(none)"]));
    expect(declared).toEqual(EXPECTED_ACCESS);
  });

  it("every route handler under app/api (found on disk) declares its access per method, and nothing else is declared", async () => {
    const found: Record<string, HttpMethod[]> = {};
    for (const { route } of discoverRouteFiles()) found[route] = exportedMethods(harness.routes.get(route)!);
    const declared = Object.fromEntries(Object.entries(ROUTE_ACCESS).map(([route, methods]) => [route, Object.keys(methods).sort()]));
    expect(Object.fromEntries(Object.entries(found).map(([route, methods]) => [route, [...methods].sort()]))).toEqual(declared);
  });

  it("every REST operation declares the access the table above states", () => {
    expect(Object.fromEntries(REST_OPERATIONS.map((op) => [`${op.method} ${op.path}`, op.access]))).toEqual(EXPECTED_REST_ACCESS);
  });

  it.each(REST_OPERATIONS.map((op) => [`${op.method} ${op.path}`, op] as const))("%s through /api/v1: anonymous, each role, by API token and by cookie", async (name, op) => {
    const access = EXPECTED_REST_ACCESS[name]!;
    const path = op.path.replace(/\{id\}/g, "no-such-id");
    const segments = path.split("/").filter(Boolean);
    const init = op.method === "POST" ? { method: "POST", headers: { "content-type": "application/json" }, body: "{}" } : {};
    for (const role of CALLERS) {
      const byCookie = await harness.call("/api/v1/[...path]", op.method, browserRequest(role, `/api/v1${path}`, init), { path: segments });
      expectAccess(access, role, byCookie.status, `${name} (cookie)`);
      if (!role) continue;
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${harness.tokens.get(role)}`);
      const byToken = await harness.call("/api/v1/[...path]", op.method, new Request(`${APP_ORIGIN}/api/v1${path}`, { ...init, headers }), { path: segments });
      expectAccess(access, role, byToken.status, `${name} (token)`);
      const body = (await byToken.json()) as { error?: { code: string } };
      if (byToken.status >= 400) expect(body.error?.code, `${name} as ${role}: ${JSON.stringify(body)}`).toMatch(/^[A-Z_]+$/);
    }
    routesChecked.add(`${op.method} /api/v1/[...path]`);
  });

  it.each(procedures.map(([path, p]) => [path, p._def.type] as const))("%s through /api/trpc: anonymous, each role", async (path, type) => {
    const access = EXPECTED_ACCESS[path]!;
    const body = JSON.stringify({ json: {} });
    for (const role of CALLERS) {
      const request =
        type === "query"
          ? browserRequest(role, `/api/trpc/${path}?input=${encodeURIComponent(body)}`)
          : browserRequest(role, `/api/trpc/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      const response = await harness.call("/api/trpc/[trpc]", type === "query" ? "GET" : "POST", request, { trpc: path });
      expectAccess(access, role, response.status, path);
    }
    routesChecked.add(`${type === "query" ? "GET" : "POST"} /api/trpc/[trpc]`);
  });

  /** One real request per route and method other than tRPC, with what it needs to succeed when allowed. */
  const probes: Array<{ route: keyof typeof ROUTE_ACCESS; method: HttpMethod; request: (role: UserRole | null) => Request; params: () => Record<string, string | string[]> }> = [
    {
      route: "/api/auth/[...all]",
      method: "GET",
      request: (role) => browserRequest(role, "/api/auth/get-session"),
      params: () => ({ all: ["get-session"] }),
    },
    {
      route: "/api/auth/[...all]",
      method: "POST",
      request: (role) =>
        browserRequest(role, "/api/auth/sign-in/email", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "viewer@routes.test", password: "route-harness-password" }),
        }),
      params: () => ({ all: ["sign-in", "email"] }),
    },
    { route: "/api/files/[id]", method: "GET", request: (role) => browserRequest(role, `/api/files/${storedFileId}`), params: () => ({ id: storedFileId }) },
    { route: "/api/health", method: "GET", request: (role) => browserRequest(role, "/api/health"), params: () => ({}) },
    { route: "/api/imports/[id]/report", method: "GET", request: (role) => browserRequest(role, "/api/imports/no-such-run/report"), params: () => ({ id: "no-such-run" }) },
    { route: "/api/openapi.json", method: "GET", request: (role) => browserRequest(role, "/api/openapi.json"), params: () => ({}) },
    { route: "/api/annotation-queues/[id]/labels", method: "GET", request: (role) => browserRequest(role, "/api/annotation-queues/no-such-queue/labels"), params: () => ({ id: "no-such-queue" }) },
    {
      route: "/api/uploads",
      method: "POST",
      request: (role) => browserRequest(role, "/api/uploads?fileName=probe.jsonl", { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: '{"probe":true}\n' }),
      params: () => ({}),
    },
  ];

  it("the probes below cover every declared route and method except the tRPC and REST ones, which the procedures and operations cover", () => {
    const declared = Object.entries(ROUTE_ACCESS).flatMap(([route, methods]) =>
      Object.entries(methods).flatMap(([method, access]) => (access === PER_PROCEDURE || access === PER_OPERATION ? [] : [`${method} ${route}`])),
    );
    expect(probes.map((p) => `${p.method} ${p.route}`).sort()).toEqual(declared.sort());
  });

  it.each(probes.map((p) => [`${p.method} ${p.route}`, p] as const))("%s: anonymous, each role", async (_name, probe) => {
    const access = (ROUTE_ACCESS[probe.route] as Partial<Record<HttpMethod, Access>>)[probe.method]!;
    for (const role of CALLERS) {
      const response = await harness.call(probe.route, probe.method, probe.request(role), probe.params());
      await response.body?.cancel();
      expectAccess(access, role, response.status, `${probe.method} ${probe.route}`);
    }
    routesChecked.add(`${probe.method} ${probe.route}`);
  });

  it("a forged or expired session cookie is anonymous", async () => {
    const request = new Request(`${APP_ORIGIN}/api/trpc/me.get`, { headers: { cookie: "better-auth.session_token=forged.value" } });
    expect((await harness.call("/api/trpc/[trpc]", "GET", request, { trpc: "me.get" })).status).toBe(401);
  });
});
