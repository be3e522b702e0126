import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import type { Pool } from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { readTrpc, trpcRequest, type TrpcRequestOptions } from "./trpc-request";
import { appRouter, authPool, createAuth, createUserWithPassword, handleRestRequest, handleTrpcRequest, type Auth, type ContextDeps, type SessionUser } from "../src";

const BASE_URL = "http://localhost:3995";
const PASSWORD = "correct-horse-battery";
const DAY_MS = 24 * 60 * 60 * 1000;

interface CreatedToken {
  id: string;
  token: string;
  scope: string;
  expiresAt: string;
}

describe("API token expiry, scope, and tokens made only from sessions", () => {
  let database: TestDatabase;
  let pool: Pool;
  let auth: Auth;
  let deps: ContextDeps;
  let rita: SessionUser;
  let cookie: string;
  const noQueue = async () => {
    throw new Error("no job queue in API token scope tests");
  };

  const trpc = (path: string, options: Omit<TrpcRequestOptions, "origin"> = {}) => handleTrpcRequest(trpcRequest(BASE_URL, path, { origin: BASE_URL, ...options }), deps);
  const read = readTrpc;

  function rest(method: "GET" | "POST", path: string, token: string, body?: unknown) {
    const request = new Request(`${BASE_URL}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return handleRestRequest(request, deps, path);
  }
  const restError = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

  /** A token made from rita's signed-in session, as the tokens page makes it. */
  async function create(input: { name: string; expiresInDays?: number; scope?: "read" | "read-write" }): Promise<CreatedToken> {
    const response = await trpc("token.create", { cookie, input, method: "POST" });
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
    const json = (await read(response)).result?.data.json as CreatedToken;
    return json;
  }

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "z".repeat(32) }, pool);
    deps = { db: database.db, auth, getQueue: noQueue };
    rita = await createUserWithPassword(database.db, { email: "rita@scope.test", name: "rita", role: "researcher", password: PASSWORD });
    const response = await auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email: "rita@scope.test", password: PASSWORD }),
      }),
    );
    expect(response.status).toBe(200);
    cookie = response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  });
  /** For the suite's summary line. */
  const tally = { tests: 0, assertions: 0 };
  afterEach(() => {
    tally.tests += 1;
    tally.assertions += expect.getState().assertionCalls;
  });
  afterAll(async () => {
    console.log(`api tokens: ${tally.tests} cases, ${tally.assertions} assertions held`);
    await pool?.end();
    await database?.drop();
  });

  it("a new token lasts 90 days and is read-write unless chosen otherwise; at most 365 days", async () => {
    const before = Date.now();
    const plain = await create({ name: "defaults" });
    const row = await database.db.apiToken.findUniqueOrThrow({ where: { id: plain.id } });
    expect(row.scope).toBe("read-write");
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(90 * DAY_MS);
    expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const week = await create({ name: "a week", expiresInDays: 7, scope: "read" });
    const weekRow = await database.db.apiToken.findUniqueOrThrow({ where: { id: week.id } });
    expect(weekRow).toMatchObject({ scope: "read" });
    expect(weekRow.expiresAt.getTime() - weekRow.createdAt.getTime()).toBe(7 * DAY_MS);
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { entityId: week.id, action: "api_token.created" } });
    expect(audit.after).toMatchObject({ scope: "read", expiresAt: weekRow.expiresAt.toISOString() });

    for (const expiresInDays of [366, 0, 1.5]) {
      const refused = await trpc("token.create", { cookie, input: { name: "too long", expiresInDays }, method: "POST" });
      expect(refused.status, String(expiresInDays)).toBe(400);
    }
    const badScope = await trpc("token.create", { cookie, input: { name: "admin scope", scope: "admin" }, method: "POST" });
    expect(badScope.status).toBe(400);
  });

  it("an expired token is a 401 saying it expired, on tRPC and REST, distinct from a revoked one", async () => {
    const { db } = database;
    const expiring = await create({ name: "expiring" });
    expect((await trpc("me.get", { token: expiring.token })).status).toBe(200);
    await db.apiToken.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000), lastUsedAt: null } });

    const byTrpc = await trpc("me.get", { token: expiring.token });
    expect(byTrpc.status).toBe(401);
    expect((await read(byTrpc)).error?.json.message).toBe("API token has expired");
    const byRest = await rest("GET", "/datasets", expiring.token);
    expect(byRest.status).toBe(401);
    expect(await restError(byRest)).toMatchObject({ code: "UNAUTHORIZED", message: "API token has expired" });
    // A refused token is not "used".
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: expiring.id } })).lastUsedAt).toBeNull();

    const revoked = await create({ name: "revoked" });
    await appRouter.createCaller({ db, user: rita, getQueue: noQueue }).token.revoke({ id: revoked.id });
    expect((await read(await trpc("me.get", { token: revoked.token }))).error?.json.message).toBe("API token is invalid or revoked");
    // Revoked and past its expiry: it reads as revoked.
    await db.apiToken.update({ where: { id: revoked.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await read(await trpc("me.get", { token: revoked.token }))).error?.json.message).toBe("API token is invalid or revoked");
  });

  it("a read token calls queries and GET operations, and is refused (403) on every tRPC mutation and state-changing REST operation", async () => {
    const reader = await create({ name: "reader", scope: "read" });
    const writer = await create({ name: "writer", scope: "read-write" });

    expect((await trpc("me.get", { token: reader.token })).status).toBe(200);
    expect((await trpc("token.list", { token: reader.token })).status).toBe(200);
    expect((await rest("GET", "/runs", reader.token)).status).toBe(200);
    expect((await rest("GET", "/datasets", reader.token)).status).toBe(200);

    const mutation = await trpc("token.revoke", { token: reader.token, input: { id: writer.id }, method: "POST" });
    expect(mutation.status).toBe(403);
    expect((await read(mutation)).error?.json.message).toMatch(/read scope and cannot change anything/);
    expect((await database.db.apiToken.findUniqueOrThrow({ where: { id: writer.id } })).revokedAt).toBeNull();
    // The refusal comes before the procedure's input is read, on a procedure of any tier.
    expect((await trpc("run.cancel", { token: reader.token, input: {}, method: "POST" })).status).toBe(403);

    for (const [path, body] of [
      ["/runs/no-such-run/cancel", undefined],
      ["/runs/no-such-run/resume", undefined],
      ["/runs", { kind: "annotate" }],
    ] as const) {
      const refused = await rest("POST", path, reader.token, body);
      expect(refused.status, path).toBe(403);
      expect(await restError(refused)).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/read scope/) });
    }
    // The same calls with a read-write token get past the scope: the missing run is a 404.
    expect((await rest("POST", "/runs/no-such-run/cancel", writer.token)).status).toBe(404);
    expect((await trpc("token.revoke", { token: writer.token, input: { id: "no-such-token" }, method: "POST" })).status).toBe(404);
  });

  it("a token cannot make a token, on any scope; revoking a token leaves nothing it made working", async () => {
    const { db } = database;
    const parent = await create({ name: "parent", scope: "read-write" });
    const before = await db.apiToken.count({ where: { userId: rita.id } });
    const readParent = await create({ name: "read parent", scope: "read" });
    for (const [token, message] of [
      [parent.token, /^API tokens are created from a signed-in session/],
      // A read token is refused as read-only before the rule on tokens is reached.
      [readParent.token, /read scope/],
    ] as const) {
      const refused = await trpc("token.create", { token, input: { name: "offspring" }, method: "POST" });
      expect(refused.status).toBe(403);
      expect((await read(refused)).error?.json.message).toMatch(message);
    }
    expect(await db.apiToken.count({ where: { userId: rita.id } })).toBe(before + 1);
    expect(await db.apiToken.count({ where: { name: "offspring" } })).toBe(0);

    const revoked = await trpc("token.revoke", { cookie, input: { id: parent.id }, method: "POST" });
    expect(revoked.status).toBe(200);
    expect((await trpc("me.get", { token: parent.token })).status).toBe(401);
    const live = await db.apiToken.findMany({ where: { userId: rita.id, revokedAt: null, createdAt: { gte: (await db.apiToken.findUniqueOrThrow({ where: { id: parent.id } })).createdAt } } });
    expect(live.map((t) => t.name)).toEqual(["read parent"]);
  });

  it("the list shows each token's scope, expiry and when it was last used", async () => {
    const used = await create({ name: "used", scope: "read", expiresInDays: 30 });
    const unused = await create({ name: "unused" });
    expect((await trpc("me.get", { token: used.token })).status).toBe(200);

    const response = await trpc("token.list", { cookie });
    expect(response.status).toBe(200);
    const listed = (await read(response)).result?.data.json as Array<Record<string, unknown>>;
    const usedRow = listed.find((t) => t.id === used.id)!;
    const unusedRow = listed.find((t) => t.id === unused.id)!;
    expect(Object.keys(usedRow).sort()).toEqual(["createdAt", "expiresAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scope"]);
    expect(usedRow).toMatchObject({ scope: "read", lastUsedAt: expect.any(String) });
    expect(Date.parse(usedRow.lastUsedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(usedRow.expiresAt as string) - Date.parse(usedRow.createdAt as string)).toBe(30 * DAY_MS);
    expect(unusedRow).toMatchObject({ scope: "read-write", lastUsedAt: null });
  });
});
