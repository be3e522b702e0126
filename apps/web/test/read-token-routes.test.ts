import { appRouter } from "@stepwiser/api";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { APP_ORIGIN, startHarness, type Harness } from "./route-harness";

/** The plain HTTP routes that take API tokens hold a read-scoped token to reading, as tRPC and REST do. */
describe("read-scoped API tokens on the file routes", () => {
  let harness: Harness;
  let readToken: string;

  beforeAll(async () => {
    harness = await startHarness(inject("postgresAdminUrl"));
    const researcher = harness.users.get("researcher")!;
    const caller = appRouter.createCaller({ db: harness.database.db, user: researcher, getQueue: async () => Promise.reject(new Error("no job queue here")) });
    readToken = (await caller.token.create({ name: "read script", scope: "read", expiresInDays: 7 })).token;
  });
  afterAll(async () => {
    await harness?.close();
  });

  const upload = (token: string) =>
    harness.call(
      "/api/uploads",
      "POST",
      new Request(`${APP_ORIGIN}/api/uploads?fileName=probe.jsonl`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
        body: '{"probe":true}\n',
      }),
    );

  it("an upload with a read token is refused (403) and stores nothing; a read-write token of the same account uploads", async () => {
    const files = await harness.database.db.storedFile.count();
    const refused = await upload(readToken);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/read scope and cannot change anything/);
    expect(await harness.database.db.storedFile.count()).toBe(files);

    const stored = await upload(harness.tokens.get("researcher")!);
    expect(stored.status).toBe(201);
    const { fileId } = (await stored.json()) as { fileId: string };

    // Reading what was stored is what a read token is for.
    const download = await harness.call("/api/files/[id]", "GET", new Request(`${APP_ORIGIN}/api/files/${fileId}`, { headers: { authorization: `Bearer ${readToken}` } }), { id: fileId });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('{"probe":true}\n');
    const labels = await harness.call(
      "/api/annotation-queues/[id]/labels",
      "GET",
      new Request(`${APP_ORIGIN}/api/annotation-queues/no-such-queue/labels`, { headers: { authorization: `Bearer ${readToken}` } }),
      { id: "no-such-queue" },
    );
    expect(labels.status).toBe(404);
  });
});
