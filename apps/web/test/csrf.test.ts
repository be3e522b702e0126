import { appRouter } from "@stepwiser/api";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { APP_ORIGIN, startHarness, TRUSTED_ORIGIN, type Harness } from "./route-harness";

const EVIL = "https://evil.example.test";

/**
 * Cookie-authenticated writes from another site's page are refused; the same
 * request from the app's own pages, a trusted origin or a script with an API
 * token goes through. Every case runs the real route handlers and then checks
 * the database for what the request would have written.
 */
describe("cross-site request forgery: cookie-authenticated writes need the app's own origin", () => {
  let harness: Harness;
  let refused = 0;
  let allowed = 0;

  beforeAll(async () => {
    harness = await startHarness(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    process.stderr.write(`csrf: ${refused} forged writes refused with nothing stored, ${allowed} same-origin, trusted or bearer writes let through\n`);
    await harness?.close();
  });

  const tokenCount = () => harness.database.db.apiToken.count({ where: { userId: harness.users.get("researcher")!.id } });

  /** token.create as the researcher: a mutation whose effect is one row. */
  function createToken(headers: Record<string, string>, name = "via csrf test") {
    const request = new Request(`${APP_ORIGIN}/api/trpc/token.create`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ json: { name } }),
    });
    return harness.call("/api/trpc/[trpc]", "POST", request, { trpc: "token.create" });
  }
  const cookie = () => ({ cookie: harness.cookies.get("researcher")! });

  it.each([
    ["another site's Origin", { origin: EVIL }],
    ['the opaque Origin "null" (sandboxed frame, data: URL)', { origin: "null" }],
    ["a look-alike Origin", { origin: `${APP_ORIGIN}.evil.example.test` }],
    ["no Origin but another site's Referer", { referer: `${EVIL}/attack.html` }],
    ["no Origin, no Referer, and Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
    ["no Origin, no Referer, and Sec-Fetch-Site same-site (a sibling subdomain)", { "sec-fetch-site": "same-site" }],
  ])("a tRPC mutation with the session cookie and %s is refused with 403 and writes nothing", async (_case, headers) => {
    const before = await tokenCount();
    const response = await createToken({ ...cookie(), ...headers });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { json: { message: string } } };
    expect(body.error.json.message).toMatch(/^cross-site request refused: /);
    expect(await tokenCount()).toBe(before);
    refused++;
  });

  it.each([
    ["the app's own Origin", { origin: APP_ORIGIN }],
    ["a trusted Origin (STEPWISER_TRUSTED_ORIGINS)", { origin: TRUSTED_ORIGIN }],
    ["no Origin and a Referer on the app", { referer: `${APP_ORIGIN}/settings/tokens` }],
    ["no Origin or Referer, Sec-Fetch-Site same-origin", { "sec-fetch-site": "same-origin" }],
  ])("the same mutation with %s goes through", async (_case, headers) => {
    const before = await tokenCount();
    const response = await createToken({ ...cookie(), ...headers });
    expect(response.status).toBe(200);
    expect(await tokenCount()).toBe(before + 1);
    allowed++;
  });

  it("an API token is unaffected by any Origin: a browser never attaches one by itself", async () => {
    // Tokens are made from sessions only, so the write a token makes here is revoking another token of its owner.
    const researcher = harness.users.get("researcher")!;
    const caller = appRouter.createCaller({ db: harness.database.db, user: researcher, getQueue: async () => Promise.reject(new Error("no job queue here")) });
    const other = await caller.token.create({ name: "revoked via csrf test" });
    const request = new Request(`${APP_ORIGIN}/api/trpc/token.revoke`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${harness.tokens.get("researcher")}`, origin: EVIL },
      body: JSON.stringify({ json: { id: other.id } }),
    });
    const response = await harness.call("/api/trpc/[trpc]", "POST", request, { trpc: "token.revoke" });
    expect(response.status).toBe(200);
    expect((await harness.database.db.apiToken.findUniqueOrThrow({ where: { id: other.id } })).revokedAt).toBeInstanceOf(Date);
    allowed++;
  });

  it("reads are not refused: a cross-site page cannot see the answer anyway", async () => {
    const request = new Request(`${APP_ORIGIN}/api/trpc/me.get`, { headers: { ...cookie(), origin: EVIL } });
    expect((await harness.call("/api/trpc/[trpc]", "GET", request, { trpc: "me.get" })).status).toBe(200);
  });

  it("a batched tRPC POST from another site is refused as a whole", async () => {
    const before = await tokenCount();
    const request = new Request(`${APP_ORIGIN}/api/trpc/token.create,token.create?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json", ...cookie(), origin: EVIL },
      body: JSON.stringify({ 0: { json: { name: "a" } }, 1: { json: { name: "b" } } }),
    });
    const response = await harness.call("/api/trpc/[trpc]", "POST", request, { trpc: "token.create,token.create" });
    expect(response.status).toBe(403);
    expect(await tokenCount()).toBe(before);
    refused++;
  });

  it("POST /api/uploads with the session cookie from another site is refused before anything is stored", async () => {
    const files = () => harness.database.db.storedFile.count();
    const before = await files();
    const upload = (headers: Record<string, string>) =>
      harness.call("/api/uploads", "POST", new Request(`${APP_ORIGIN}/api/uploads?fileName=x.jsonl`, { method: "POST", headers: { ...cookie(), ...headers }, body: '{"a":1}\n' }));
    const forged = await upload({ origin: EVIL });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toMatch(/^cross-site request refused: Origin https:\/\/evil\.example\.test is not this app's origin/);
    expect(await files()).toBe(before);
    refused++;
    const own = await upload({ origin: APP_ORIGIN });
    expect(own.status).toBe(201);
    expect(await files()).toBe(before + 1);
    allowed++;
  });

  it("a REST write (/api/v1) with the session cookie from another site is refused and changes nothing; from the app or with a token it goes through", async () => {
    const { db } = harness.database;
    const queuedRun = () => db.run.create({ data: { kind: "judge", config: {}, status: "queued" }, select: { id: true } });
    const cancel = (id: string, headers: Record<string, string>) =>
      harness.call("/api/v1/[...path]", "POST", new Request(`${APP_ORIGIN}/api/v1/runs/${id}/cancel`, { method: "POST", headers }), { path: ["runs", id, "cancel"] });
    const cancelRequested = async (id: string) => (await db.run.findUniqueOrThrow({ where: { id }, select: { cancelRequestedAt: true } })).cancelRequestedAt !== null;

    const target = await queuedRun();
    const forged = await cancel(target.id, { ...cookie(), origin: EVIL });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/^cross-site request refused: /) });
    expect(await cancelRequested(target.id)).toBe(false);
    refused++;
    const own = await cancel(target.id, { ...cookie(), origin: APP_ORIGIN });
    expect(own.status).toBe(200);
    expect(await cancelRequested(target.id)).toBe(true);
    allowed++;
    const other = await queuedRun();
    const byToken = await cancel(other.id, { authorization: `Bearer ${harness.tokens.get("researcher")}`, origin: EVIL });
    expect(byToken.status).toBe(200);
    expect(await cancelRequested(other.id)).toBe(true);
    allowed++;
  });

  it("a forged sign-out (an auth write better-auth itself lets through from any origin) is refused and the session lives on", async () => {
    const signOut = (origin: string) =>
      harness.call(
        "/api/auth/[...all]",
        "POST",
        new Request(`${APP_ORIGIN}/api/auth/sign-out`, { method: "POST", headers: { ...cookie(), origin, "content-type": "application/json" }, body: "{}" }),
        { all: ["sign-out"] },
      );
    const sessions = () => harness.database.db.session.count({ where: { userId: harness.users.get("researcher")!.id } });
    const before = await sessions();
    const forged = await signOut(EVIL);
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { message: string }).message).toMatch(/^cross-site request refused/);
    expect(await sessions()).toBe(before);
    refused++;
    const me = new Request(`${APP_ORIGIN}/api/trpc/me.get`, { headers: cookie() });
    expect((await harness.call("/api/trpc/[trpc]", "GET", me, { trpc: "me.get" })).status).toBe(200);
  });
});
