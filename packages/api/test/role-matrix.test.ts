import { allows, ROLES, type UserRole } from "@stepwiser/core";
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
  "me.get": "account",
  "dataset.list": "research.read",
  "dataset.get": "research.read",
  "dataset.overview": "research.read",
  "trajectory.list": "research.read",
  "trajectory.neighbors": "research.read",
  "trajectory.get": "research.read",
  "trajectory.inspect": "research.read",
  "rollout.list": "research.read",
  "run.get": "research.read",
  "run.list": "research.read",
  "run.schemas": "research.read",
  "run.progress": "research.read",
  "run.failures": "research.read",
  "run.launch": "research.manage",
  "run.cancel": "research.manage",
  "run.resume": "research.manage",
  "run.relabel": "research.manage",
  "import.processbench": "research.manage",
  "import.preview": "research.manage",
  "import.start": "research.manage",
  "import.startBatchOutput": "research.manage",
  "import.list": "research.read",
  "user.list": "users.manage",
  "user.create": "users.manage",
  "user.setRole": "users.manage",
  "endpoint.list": "research.read",
  "endpoint.create": "endpoints.manage",
  "endpoint.update": "endpoints.manage",
  "endpoint.delete": "endpoints.manage",
  "endpoint.test": "research.manage",
  "endpoint.metrics": "research.read",
  "worker.list": "research.read",
  "annotation.createQueue": "queues.manage",
  "annotation.updateQueue": "queues.manage",
  "annotation.addMembers": "queues.manage",
  "annotation.removeMember": "queues.manage",
  "annotation.annotatorCandidates": "queues.manage",
  "annotation.listQueues": "queues.view",
  "annotation.queue": "queues.view",
  "annotation.next": "queues.annotate",
  "annotation.assignment": "queues.annotate",
  "annotation.submit": "queues.annotate",
  "annotation.undo": "queues.annotate",
  "annotation.skip": "queues.annotate",
  "annotation.agreement": "research.read",
  "annotation.itemHistory": "queues.manage",
  "annotation.adjudicate": "queues.manage",
  "annotation.exportLabels": "queues.manage",
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
  "exports.start": "research.manage",
  "exports.list": "research.read",
  "exports.sources": "research.read",
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
      const allowed = allows(access, role);
      if (allowed) expect([401, 403], `${role} on ${path}`).not.toContain(response.status);
      else expect(response.status, `${role} on ${path}`).toBe(403);
    }
  });

  it("a forged or expired session cookie is anonymous", async () => {
    const response = await call("me.get", "query", "better-auth.session_token=forged.value");
    expect(response.status).toBe(401);
  });
});
