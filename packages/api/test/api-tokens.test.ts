import { createHash } from "node:crypto";
import type { UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readTrpc, trpcRequest, type TrpcRequestOptions } from "./trpc-request";
import {
  appRouter,
  authPool,
  createAuth,
  createUserWithPassword,
  handleTrpcRequest,
  InvalidApiTokenError,
  userFromRequestHeaders,
  type Auth,
  type ContextDeps,
  type SessionUser,
} from "../src";

const BASE_URL = "http://localhost:3997";
const PASSWORD = "correct-horse-battery";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");


describe("API tokens", () => {
  let database: TestDatabase;
  let pool: Pool;
  let auth: Auth;
  let deps: ContextDeps;
  const users = new Map<string, SessionUser>();

  const caller = (name: string) =>
    appRouter.createCaller({
      db: database.db,
      user: users.get(name)!,
      getQueue: async () => {
        throw new Error("no job queue in API token tests");
      },
    });

  /** A request as a script sends it: no cookie, no Origin, just the header. */
  const call = (path: string, options: Omit<TrpcRequestOptions, "origin"> = {}) => handleTrpcRequest(trpcRequest(BASE_URL, path, { ...options }), deps);
  const read = readTrpc;

  async function signIn(email: string): Promise<string> {
    const response = await auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email, password: PASSWORD }),
      }),
    );
    expect(response.status, `sign-in of ${email}`).toBe(200);
    return response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  }

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "x".repeat(32) }, pool);
    deps = {
      db: database.db,
      auth,
      getQueue: async () => {
        throw new Error("no job queue in API token tests");
      },
    };
    const people: Array<[string, UserRole]> = [
      ["vera", "viewer"],
      ["rita", "researcher"],
      ["alice", "annotator"],
      ["bob", "annotator"],
      ["ada", "admin"],
    ];
    for (const [name, role] of people) {
      users.set(name, await createUserWithPassword(database.db, { email: `${name}@tokens.test`, name, role, password: PASSWORD }));
    }
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it("create shows the token once and stores only its SHA-256 and a display prefix", async () => {
    const created = await caller("vera").token.create({ name: "  nightly export  " });
    expect(created.token).toMatch(/^sw_[A-Za-z0-9_-]{43}$/);
    expect(created.name).toBe("nightly export");
    expect(created.prefix).toBe(created.token.slice(0, 11));

    const row = await database.db.apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toBe(sha256(created.token));
    expect(row.userId).toBe(users.get("vera")!.id);
    expect(Object.values(row)).not.toContain(created.token);

    const audit = await database.db.auditLog.findMany({ where: { entityType: "ApiToken", entityId: created.id } });
    expect(audit).toMatchObject([{ action: "api_token.created", actorId: users.get("vera")!.id }]);
    expect(JSON.stringify(audit.map((a) => [a.before, a.after]))).not.toContain(created.token);
  });

  it("a bearer token reaches a protected procedure over HTTP as its owner, with the owner's role", async () => {
    const { token } = await caller("rita").token.create({ name: "script" });
    const me = await call("me.get", { token });
    expect(me.status).toBe(200);
    expect((await read(me)).result?.data.json).toEqual(users.get("rita"));

    // Past the role check: the missing item is a 404, not a 401 or 403.
    const history = await call("annotationQueue.itemHistory", { token, input: { itemId: "no-such-item" } });
    expect(history.status).toBe(404);
  });

  it("the role comes from the user row at each request: a viewer's token cannot call researcher procedures, a demotion applies at once", async () => {
    const viewerToken = (await caller("vera").token.create({ name: "viewer script" })).token;
    const denied = await call("annotationQueue.itemHistory", { token: viewerToken, input: { itemId: "x" } });
    expect(denied.status).toBe(403);
    expect((await read(denied)).error?.json.message).toMatch(/needs the annotationQueues.manage capability \(roles: researcher, admin\); you are viewer/);

    const { db } = database;
    const demoted = await createUserWithPassword(db, { email: "demoted@tokens.test", name: "demoted", role: "researcher", password: PASSWORD });
    users.set("demoted", demoted);
    const { token } = await caller("demoted").token.create({ name: "before demotion" });
    expect((await call("annotationQueue.itemHistory", { token, input: { itemId: "x" } })).status).toBe(404);
    await db.user.update({ where: { id: demoted.id }, data: { role: "viewer" } });
    expect((await call("annotationQueue.itemHistory", { token, input: { itemId: "x" } })).status).toBe(403);
    expect((await read(await call("me.get", { token }))).result?.data.json).toMatchObject({ id: demoted.id, role: "viewer" });
  });

  it("a revoked token is a 401 with its reason, and never falls back to the session cookie sent with it", async () => {
    const cookie = await signIn("rita@tokens.test");
    expect((await call("me.get", { cookie })).status).toBe(200);

    const created = await caller("rita").token.create({ name: "to revoke" });
    await caller("rita").token.revoke({ id: created.id });
    for (const options of [{ token: created.token }, { token: created.token, cookie }]) {
      const response = await call("me.get", options);
      expect(response.status).toBe(401);
      expect((await read(response)).error?.json.message).toBe("API token is invalid or revoked");
    }
  });

  it("a malformed or unknown bearer token is a 401, even on a public procedure", async () => {
    const unknown = `sw_${"A".repeat(43)}`;
    for (const token of ["garbage", "", unknown, `${unknown}x`]) {
      const response = await call("me.get", { token });
      expect(response.status, JSON.stringify(token)).toBe(401);
      expect((await read(response)).error?.json.message).toBe("API token is invalid or revoked");
    }
    expect((await call("health.ping", { token: unknown })).status).toBe(401);
  });

  it("other authorization schemes are not tokens: the session cookie still decides", async () => {
    const cookie = await signIn("vera@tokens.test");
    const request = new Request(`${BASE_URL}/api/trpc/me.get`, { headers: { cookie, authorization: "Basic dXNlcjpwYXNz" } });
    const response = await handleTrpcRequest(request, deps);
    expect(response.status).toBe(200);
    expect((await read(response)).result?.data.json).toMatchObject({ id: users.get("vera")!.id });
  });

  it("a script calls mutations with a token alone (POST, JSON body, no cookie, no Origin)", async () => {
    const { token } = await caller("alice").token.create({ name: "bootstrap" });
    const old = await caller("alice").token.create({ name: "replaced by the script" });
    const response = await call("token.revoke", { token, method: "POST", input: { id: old.id } });
    expect(response.status).toBe(200);
    expect((await read(response)).result?.data.json).toMatchObject({ id: old.id });
    expect((await database.db.apiToken.findUniqueOrThrow({ where: { id: old.id } })).revokedAt).toBeInstanceOf(Date);
    expect((await call("me.get", { token: old.token })).status).toBe(401);
    expect((await call("me.get", { token })).status).toBe(200);
  });

  it("lastUsedAt is set on first use and written at most once a minute after that", async () => {
    const { db } = database;
    const created = await caller("bob").token.create({ name: "busy script" });
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).toBeNull();

    const before = Date.now();
    expect((await call("me.get", { token: created.token })).status).toBe(200);
    const first = (await db.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt!;
    expect(first.getTime()).toBeGreaterThanOrEqual(before - 1000);

    for (let i = 0; i < 3; i++) expect((await call("me.get", { token: created.token })).status).toBe(200);
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).toEqual(first);

    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await db.apiToken.update({ where: { id: created.id }, data: { lastUsedAt: twoMinutesAgo } });
    expect((await call("me.get", { token: created.token })).status).toBe(200);
    const refreshed = (await db.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt!;
    expect(refreshed.getTime()).toBeGreaterThan(twoMinutesAgo.getTime() + 60_000);
  });

  it("list shows the caller's own tokens, revoked ones included, and never their hash", async () => {
    const mine = await caller("ada").token.create({ name: "admin script" });
    const old = await caller("ada").token.create({ name: "old" });
    await caller("ada").token.revoke({ id: old.id });

    const listed = await caller("ada").token.list();
    expect(listed.map((t) => t.id).sort()).toEqual([old.id, mine.id].sort());
    for (const row of listed) expect(Object.keys(row).sort()).toEqual(["createdAt", "expiresAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "scope"]);
    expect(listed.find((t) => t.id === old.id)!.revokedAt).toBeInstanceOf(Date);
    expect(listed.find((t) => t.id === mine.id)).toMatchObject({ name: "admin script", prefix: mine.prefix, revokedAt: null });

    const response = await call("token.list", { token: mine.token });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toContain("tokenHash");
    expect(text).not.toContain(sha256(mine.token));
    expect(text).not.toContain(mine.token);
  });

  it("revoke: someone else's token is NOT_FOUND and keeps working; an admin may revoke it; revoking twice changes nothing", async () => {
    const { db } = database;
    const bobs = await caller("bob").token.create({ name: "bob's" });
    await expect(caller("alice").token.revoke({ id: bobs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller("alice").token.revoke({ id: "no-such-token" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await call("me.get", { token: bobs.token })).status).toBe(200);
    expect((await caller("alice").token.list()).map((t) => t.id)).not.toContain(bobs.id);

    const first = await caller("ada").token.revoke({ id: bobs.id });
    expect(first.revokedAt).toBeInstanceOf(Date);
    expect((await call("me.get", { token: bobs.token })).status).toBe(401);
    const again = await caller("bob").token.revoke({ id: bobs.id });
    expect(again).toEqual(first);

    const audit = await db.auditLog.findMany({ where: { entityType: "ApiToken", entityId: bobs.id }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([
      ["api_token.created", users.get("bob")!.id],
      ["api_token.revoked", users.get("ada")!.id],
    ]);
    expect(audit[1]!.before).toMatchObject({ userId: users.get("bob")!.id, revokedAt: null });
  });

  it("the helper the HTTP routes share resolves tokens and cookies alike and throws on a bad token", async () => {
    const cookie = await signIn("alice@tokens.test");
    const { token } = await caller("bob").token.create({ name: "export" });
    expect(await userFromRequestHeaders(deps, new Headers({ authorization: `Bearer ${token}` }))).toEqual(users.get("bob"));
    expect(await userFromRequestHeaders(deps, new Headers({ cookie }))).toEqual(users.get("alice"));
    expect(await userFromRequestHeaders(deps, new Headers())).toBeNull();
    await expect(userFromRequestHeaders(deps, new Headers({ cookie, authorization: "Bearer nope" }))).rejects.toBeInstanceOf(InvalidApiTokenError);
  });
});
