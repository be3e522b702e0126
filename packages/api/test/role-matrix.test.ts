import { ROLES, roleAtLeast, type UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Pool } from "pg";
import { appRouter, authPool, createAuth, createUserWithPassword, handleTrpcRequest, type Access, type Auth } from "../src";

/**
 * The minimal role of every procedure, stated once more by hand: a procedure
 * added without a line here, or whose declared tier differs, fails this test.
 */
const EXPECTED_ACCESS: Record<string, Access> = {
  "health.ping": "public",
  "me.get": "viewer",
  "dataset.list": "viewer",
  "dataset.get": "viewer",
  "dataset.overview": "viewer",
  "trajectory.list": "viewer",
  "trajectory.neighbors": "viewer",
  "trajectory.get": "viewer",
  "trajectory.inspect": "viewer",
  "rollout.list": "viewer",
  "run.get": "viewer",
  "run.list": "viewer",
  "run.schemas": "viewer",
  "run.progress": "viewer",
  "run.failures": "viewer",
  "run.launch": "researcher",
  "run.cancel": "researcher",
  "run.resume": "researcher",
  "run.relabel": "researcher",
  "import.processbench": "researcher",
  "import.preview": "researcher",
  "import.start": "researcher",
  "import.startBatchOutput": "researcher",
  "import.list": "viewer",
  "user.list": "admin",
  "user.create": "admin",
  "user.setRole": "admin",
  "endpoint.list": "viewer",
  "endpoint.create": "admin",
  "endpoint.update": "admin",
  "endpoint.delete": "admin",
  "endpoint.test": "researcher",
  "endpoint.metrics": "viewer",
  "worker.list": "viewer",
  "annotation.createQueue": "researcher",
  "annotation.updateQueue": "researcher",
  "annotation.listQueues": "viewer",
  "annotation.queue": "viewer",
  "annotation.next": "annotator",
  "annotation.assignment": "annotator",
  "annotation.submit": "annotator",
  "annotation.undo": "annotator",
  "annotation.skip": "annotator",
  "annotation.agreement": "viewer",
  "annotation.itemHistory": "researcher",
  "annotation.adjudicate": "researcher",
  "annotation.exportLabels": "researcher",
  "compare.candidates": "viewer",
  "compare.checkpoints": "viewer",
  "compare.disagreements": "viewer",
  "compare.item": "viewer",
  "compare.threeWay": "viewer",
  "compare.calibration": "viewer",
  "compare.scaling": "viewer",
  "token.create": "viewer",
  "token.list": "viewer",
  "token.revoke": "viewer",
  "exports.start": "researcher",
  "exports.list": "viewer",
  "exports.sources": "viewer",
};

const BASE_URL = "http://localhost:3999";
const PASSWORD = "correct-horse-battery";

type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { access?: Access } } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);

describe("role matrix over HTTP with real sessions", () => {
  let database: TestDatabase;
  let auth: Auth;
  let pool: Pool;
  let queue: JobQueue | undefined;
  const cookies = new Map<UserRole, string>();

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "x".repeat(32) }, pool);
    for (const role of ROLES) {
      await createUserWithPassword(database.db, { email: `${role}@example.test`, name: role, role, password: PASSWORD });
      const response = await auth.handler(
        new Request(`${BASE_URL}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE_URL },
          body: JSON.stringify({ email: `${role}@example.test`, password: PASSWORD }),
        }),
      );
      expect(response.status, `sign-in of ${role}`).toBe(200);
      const setCookie = response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      cookies.set(role, setCookie);
    }
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await pool?.end();
    await database?.drop();
  });

  const call = (path: string, type: Procedure["_def"]["type"], cookie?: string) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (cookie) headers.cookie = cookie;
    const request =
      type === "query"
        ? new Request(`${BASE_URL}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers })
        : new Request(`${BASE_URL}/api/trpc/${path}`, { method: "POST", headers, body: JSON.stringify({ json: {} }) });
    return handleTrpcRequest(request, {
      db: database.db,
      auth,
      getQueue: async () => (queue ??= await connectJobQueue(database.url)),
    });
  };

  it("every procedure declares the access the table above states", () => {
    const declared = Object.fromEntries(procedures.map(([path, p]) => [path, p._def.meta?.access ?? "(none)"]));
    expect(declared).toEqual(EXPECTED_ACCESS);
  });

  it.each(procedures.map(([path, p]) => [path, p._def.type] as const))("%s: anonymous, each role", async (path, type) => {
    const access = EXPECTED_ACCESS[path]!;
    const anonymous = await call(path, type);
    if (access === "public") expect([401, 403]).not.toContain(anonymous.status);
    else expect(anonymous.status).toBe(401);

    for (const role of ROLES) {
      const response = await call(path, type, cookies.get(role));
      const allowed = access === "public" || roleAtLeast(role, access);
      if (allowed) expect([401, 403], `${role} on ${path}`).not.toContain(response.status);
      else expect(response.status, `${role} on ${path}`).toBe(403);
    }
  });

  it("a forged or expired session cookie is anonymous", async () => {
    const response = await call("me.get", "query", "better-auth.session_token=forged.value");
    expect(response.status).toBe(401);
  });
});
