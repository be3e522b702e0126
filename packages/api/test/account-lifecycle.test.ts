import type { UserRole } from "@stepwiser/core";
import { ACCOUNT_DISABLED_CODE, DISABLED_ACCOUNT_SIGN_IN_MESSAGE } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import type { Pool } from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { readTrpc, trpcRequest, type TrpcRequestOptions } from "./trpc-request";
import { appRouter, authPool, createAuth, createUserWithPassword, handleTrpcRequest, type Auth, type ContextDeps, type SessionUser } from "../src";

const BASE_URL = "http://localhost:3996";
const PASSWORD = "correct-horse-battery";


describe("account lifecycle: disabling, enabling, password resets, ending sessions", () => {
  let database: TestDatabase;
  let pool: Pool;
  let auth: Auth;
  let deps: ContextDeps;
  const users = new Map<string, SessionUser>();
  const noQueue = async () => {
    throw new Error("no job queue in account lifecycle tests");
  };

  /** In-process, as the server's own code calls a procedure (no credential). */
  const caller = (name: string) => appRouter.createCaller({ db: database.db, user: users.get(name)!, getQueue: noQueue });

  /** A tRPC request as the browser (cookie and Origin) or a script (bearer token) sends it. */
  const call = (path: string, options: Omit<TrpcRequestOptions, "origin"> = {}) => handleTrpcRequest(trpcRequest(BASE_URL, path, { origin: BASE_URL, ...options }), deps);
  const read = readTrpc;
  const mutate = (path: string, cookie: string, input: unknown) => call(path, { cookie, input, method: "POST" });

  function signInResponse(email: string, password = PASSWORD) {
    return auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email, password }),
      }),
    );
  }
  async function signIn(email: string, password = PASSWORD): Promise<string> {
    const response = await signInResponse(email, password);
    expect(response.status, `sign-in of ${email}`).toBe(200);
    return response.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  }
  const emailOf = (name: string) => `${name}@lifecycle.test`;

  async function addUser(name: string, role: UserRole) {
    users.set(name, await createUserWithPassword(database.db, { email: emailOf(name), name, role, password: PASSWORD }));
    return users.get(name)!;
  }
  /** A token made the way a user makes one: from their signed-in session. */
  async function tokenOf(cookie: string, name = "script"): Promise<string> {
    const response = await mutate("token.create", cookie, { name });
    expect(response.status).toBe(200);
    return ((await read(response)).result?.data.json as { token: string }).token;
  }
  const sessionsOf = (name: string) => database.db.session.count({ where: { userId: users.get(name)!.id } });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "y".repeat(32) }, pool);
    deps = { db: database.db, auth, getQueue: noQueue };
    await addUser("ada", "admin");
    await addUser("abe", "admin");
    await addUser("rita", "researcher");
  });
  /** For the suite's summary line. */
  const tally = { tests: 0, assertions: 0 };
  afterEach(() => {
    tally.tests += 1;
    tally.assertions += expect.getState().assertionCalls;
  });
  afterAll(async () => {
    console.log(`accounts: ${tally.tests} cases, ${tally.assertions} assertions held`);
    await pool?.end();
    await database?.drop();
  });

  it("disabling ends the account's session and token on the very next request, in one audited transaction, and refuses its sign-in", async () => {
    const { db } = database;
    const dana = await addUser("dana", "researcher");
    const adminCookie = await signIn(emailOf("ada"));
    const cookie = await signIn(emailOf("dana"));
    const secondCookie = await signIn(emailOf("dana"));
    const token = await tokenOf(cookie);
    for (const options of [{ cookie }, { cookie: secondCookie }, { token }]) expect((await call("me.get", options)).status).toBe(200);

    const disabled = await mutate("user.disable", adminCookie, { userId: dana.id });
    expect(disabled.status).toBe(200);
    expect((await read(disabled)).result?.data.json).toMatchObject({ id: dana.id, sessionsEnded: 2, apiTokensRevoked: 1 });

    for (const c of [cookie, secondCookie]) {
      const response = await call("me.get", { cookie: c });
      expect(response.status).toBe(401);
      expect((await read(response)).error?.json.message).toBe("sign in first");
    }
    const byToken = await call("me.get", { token });
    expect(byToken.status).toBe(401);
    expect((await read(byToken)).error?.json.message).toBe("API token is invalid or revoked");

    expect(await sessionsOf("dana")).toBe(0);
    const row = await db.user.findUniqueOrThrow({ where: { id: dana.id }, select: { disabledAt: true } });
    expect(row.disabledAt).toBeInstanceOf(Date);
    const tokens = await db.apiToken.findMany({ where: { userId: dana.id } });
    expect(tokens.map((t) => t.revokedAt?.getTime())).toEqual([row.disabledAt!.getTime()]);
    const audit = await db.auditLog.findMany({ where: { entityType: "User", entityId: dana.id, action: "user.disabled" } });
    expect(audit).toMatchObject([{ actorId: users.get("ada")!.id, before: { disabledAt: null }, after: { disabledAt: row.disabledAt!.toISOString(), sessionsEnded: 2, apiTokensRevoked: 1 } }]);

    // The right password is told the account is disabled; a wrong one reads as any wrong password.
    const refused = await signInResponse(emailOf("dana"));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: ACCOUNT_DISABLED_CODE, message: DISABLED_ACCOUNT_SIGN_IN_MESSAGE });
    expect(refused.headers.getSetCookie()).toEqual([]);
    const wrong = await signInResponse(emailOf("dana"), "not-the-password");
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(await wrong.json())).not.toContain("disabled");
    expect(await sessionsOf("dana")).toBe(0);

    // Disabling again changes nothing and records nothing.
    expect(await caller("ada").user.disable({ userId: dana.id })).toMatchObject({ sessionsEnded: 0, apiTokensRevoked: 0, disabledAt: row.disabledAt });
    expect(await db.auditLog.count({ where: { entityId: dana.id, action: "user.disabled" } })).toBe(1);
  });

  it("a session or token of an account disabled behind the service's back is refused too", async () => {
    const erin = await addUser("erin", "viewer");
    const cookie = await signIn(emailOf("erin"));
    const token = await tokenOf(cookie);
    expect((await call("me.get", { token })).status).toBe(200);
    await database.db.user.update({ where: { id: erin.id }, data: { disabledAt: new Date() } });

    expect((await call("me.get", { cookie })).status).toBe(401);
    const byToken = await call("me.get", { token });
    expect(byToken.status).toBe(401);
    expect((await read(byToken)).error?.json.message).toBe("API token belongs to a disabled account");
  });

  it("enabling lets the account sign in again; its tokens stay revoked", async () => {
    const { db } = database;
    const fred = await addUser("fred", "researcher");
    const token = await tokenOf(await signIn(emailOf("fred")));
    await caller("ada").user.disable({ userId: fred.id });
    expect((await signInResponse(emailOf("fred"))).status).toBe(403);

    const adminCookie = await signIn(emailOf("abe"));
    const enabled = await mutate("user.enable", adminCookie, { userId: fred.id });
    expect(enabled.status).toBe(200);
    expect((await read(enabled)).result?.data.json).toEqual({ id: fred.id, disabledAt: null });
    const cookie = await signIn(emailOf("fred"));
    expect((await read(await call("me.get", { cookie }))).result?.data.json).toMatchObject({ id: fred.id });
    expect((await call("me.get", { token })).status).toBe(401);

    const audit = await db.auditLog.findMany({ where: { entityId: fred.id, action: { in: ["user.disabled", "user.enabled"] } }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([
      ["user.disabled", users.get("ada")!.id],
      ["user.enabled", users.get("abe")!.id],
    ]);
    // Enabling an enabled account changes nothing.
    await caller("abe").user.enable({ userId: fred.id });
    expect(await db.auditLog.count({ where: { entityId: fred.id, action: "user.enabled" } })).toBe(1);
  });

  it("an admin cannot disable themselves, only admins may disable, and the last active admin cannot be disabled", async () => {
    const adminCookie = await signIn(emailOf("ada"));
    const self = await mutate("user.disable", adminCookie, { userId: users.get("ada")!.id });
    expect(self.status).toBe(400);
    expect((await read(self)).error?.json.message).toMatch(/admins cannot disable their own account/);
    await expect(caller("rita").user.disable({ userId: users.get("abe")!.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(caller("ada").user.disable({ userId: "no-such-user" })).rejects.toMatchObject({ code: "NOT_FOUND" });

    // Two admins disabling each other at the same moment: one wins, the other is refused, an admin stays.
    const gil = await addUser("gil", "admin");
    const hal = await addUser("hal", "admin");
    await caller("ada").user.disable({ userId: users.get("abe")!.id });
    await caller("ada").user.disable({ userId: hal.id }); // ada and gil remain active
    await caller("gil").user.disable({ userId: users.get("ada")!.id }); // gil is the last active admin
    await expect(caller("ada").user.disable({ userId: gil.id })).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/last active admin/) });

    await caller("gil").user.enable({ userId: users.get("ada")!.id });
    const results = await Promise.allSettled([caller("ada").user.disable({ userId: gil.id }), caller("gil").user.disable({ userId: users.get("ada")!.id })]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ code: "CONFLICT" });
    expect(await database.db.user.count({ where: { role: "admin", disabledAt: null } })).toBe(1);

    // Put the admins back for the tests after this one.
    const active = await database.db.user.findFirstOrThrow({ where: { role: "admin", disabledAt: null } });
    const activeName = [...users].find(([, u]) => u.id === active.id)![0];
    for (const name of ["ada", "abe", "gil", "hal"]) if (name !== activeName) await caller(activeName).user.enable({ userId: users.get(name)!.id });
  });

  it("a password reset ends the account's sessions: the old password fails, the new one works; a generated one is returned once and never recorded", async () => {
    const { db } = database;
    const ivy = await addUser("ivy", "annotator");
    const first = await signIn(emailOf("ivy"));
    const second = await signIn(emailOf("ivy"));
    const token = await tokenOf(first);
    const adminCookie = await signIn(emailOf("ada"));

    const reset = await mutate("user.resetPassword", adminCookie, { userId: ivy.id, password: "a-brand-new-password" });
    expect(reset.status).toBe(200);
    expect((await read(reset)).result?.data.json).toEqual({ id: ivy.id, sessionsEnded: 2, generatedPassword: null });
    for (const cookie of [first, second]) expect((await call("me.get", { cookie })).status).toBe(401);
    expect((await signInResponse(emailOf("ivy"))).status).toBe(401);
    expect((await call("me.get", { cookie: await signIn(emailOf("ivy"), "a-brand-new-password") })).status).toBe(200);
    // A reset is not a disable: the account's scripts keep working.
    expect((await call("me.get", { token })).status).toBe(200);

    const short = await mutate("user.resetPassword", adminCookie, { userId: ivy.id, password: "short" });
    expect(short.status).toBe(400);

    const generated = await caller("ada").user.resetPassword({ userId: ivy.id });
    expect(generated.generatedPassword).toMatch(/^.{8,}$/);
    expect(generated.sessionsEnded).toBe(1);
    expect((await signInResponse(emailOf("ivy"), "a-brand-new-password")).status).toBe(401);
    await signIn(emailOf("ivy"), generated.generatedPassword!);

    const audit = await db.auditLog.findMany({ where: { entityId: ivy.id, action: "user.password_reset" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.after)).toEqual([
      { generated: false, sessionsEnded: 2 },
      { generated: true, sessionsEnded: 1 },
    ]);
    const recorded = JSON.stringify(audit.map((a) => [a.before, a.after]));
    expect(recorded).not.toContain(generated.generatedPassword);
    expect(recorded).not.toContain("a-brand-new-password");
  });

  it("ending sessions signs the account out everywhere and keeps its tokens; an admin ending their own keeps the session they did it from", async () => {
    const jon = await addUser("jon", "viewer");
    const cookies = [await signIn(emailOf("jon")), await signIn(emailOf("jon"))];
    const token = await tokenOf(cookies[0]!);
    const adminCookie = await signIn(emailOf("abe"));
    const otherAdminSession = await signIn(emailOf("abe"));

    const ended = await mutate("user.endSessions", adminCookie, { userId: jon.id });
    expect(ended.status).toBe(200);
    expect((await read(ended)).result?.data.json).toEqual({ id: jon.id, sessionsEnded: 2 });
    for (const cookie of cookies) expect((await call("me.get", { cookie })).status).toBe(401);
    expect((await call("me.get", { token })).status).toBe(200);
    expect(await database.db.auditLog.findMany({ where: { entityId: jon.id, action: "user.sessions_ended" } })).toMatchObject([{ actorId: users.get("abe")!.id, after: { sessionsEnded: 2 } }]);
    // Signing in again works: ending sessions is not disabling.
    await signIn(emailOf("jon"));

    const own = await mutate("user.endSessions", adminCookie, { userId: users.get("abe")!.id });
    expect((await read(own)).result?.data.json).toMatchObject({ sessionsEnded: 1 });
    expect((await call("me.get", { cookie: adminCookie })).status).toBe(200);
    expect((await call("me.get", { cookie: otherAdminSession })).status).toBe(401);
  });

  it("the users list shows whether each account is disabled and its live sessions and tokens", async () => {
    const kim = await addUser("kim", "viewer");
    const cookie = await signIn(emailOf("kim"));
    await tokenOf(cookie);
    let row = (await caller("ada").user.list()).find((u) => u.id === kim.id);
    expect(row).toMatchObject({ disabledAt: null, activeSessions: 1, activeApiTokens: 1 });
    await caller("ada").user.disable({ userId: kim.id });
    row = (await caller("ada").user.list()).find((u) => u.id === kim.id);
    expect(row?.disabledAt).toBeInstanceOf(Date);
    expect(row).toMatchObject({ activeSessions: 0, activeApiTokens: 0 });
  });
});
