import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, createSimWorldDataset, type JobQueue } from "@stepwiser/jobs";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";

describe("launching runs through tRPC", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let datasetId: string;
  let researcherId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
    await database.db.endpoint.create({ data: { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 } });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "trpc", problems: 2 }));
    ({ id: researcherId } = await createUserWithPassword(database.db, { email: "r@example.test", name: "R", role: "researcher", password: "long-enough-password" }));
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  const caller = () =>
    createCallerFactory(appRouter)({
      db: database.db,
      getQueue: async () => queue,
      user: { id: researcherId, email: "r@example.test", name: "R", role: "researcher" },
    });

  it("queues a run with its config snapshot, then cancels it", async () => {
    const { runId } = await caller().run.launch({ kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 4 } });
    const run = await database.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ kind: "annotate", status: "queued", datasetId });
    expect(run.config).toMatchObject({ rollouts: 4, strategy: "fixed", policy: { model: "sim-policy", baseUrls: ["http://127.0.0.1:9/v1"] } });
    await caller().run.cancel({ id: runId });
    expect((await database.db.run.findUniqueOrThrow({ where: { id: runId } })).cancelRequestedAt).not.toBeNull();
  });

  it("refuses a bad config as BAD_REQUEST naming the field, storing nothing", async () => {
    const before = await database.db.run.count();
    const error = await caller()
      .run.launch({ kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", strategy: "early-stop", labelRules: [{ rule: "rel-ratio", gamma: 0.7 }] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: "BAD_REQUEST" });
    expect((error as Error).message).toMatch(/field "labelRules".*only estimates Abs-Q/);
    expect(await database.db.run.count()).toBe(before);
    await expect(caller().run.cancel({ id: "no-such-run" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("names a run at launch, or generates its name from kind, model and key parameters", async () => {
    const named = await caller().run.launch({
      kind: "annotate",
      config: { datasetId, policyEndpoint: "sim-policy", rollouts: 4 },
      name: "  pilot   M=4 ",
      tags: ["pilot", " baseline ", "Pilot"],
      notes: "First look at **M = 4**.",
    });
    const run = await caller().run.get({ id: named.runId });
    expect(run).toMatchObject({ name: "pilot M=4", tags: ["pilot", "baseline"], notes: "First look at **M = 4**." });
    expect(run.label).toMatch(/^pilot M=4 · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "run.submitted", entityId: named.runId } });
    expect(audit.after).toMatchObject({ name: "pilot M=4", tags: ["pilot", "baseline"] });

    const generated = await caller().run.launch({ kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 8 } });
    expect((await caller().run.get({ id: generated.runId })).name).toBe("annotate · sim-policy · M=8 · fixed");
    // The run list shows names and tags.
    const listed = await caller().run.list({ datasetId });
    expect(listed.find((r) => r.id === named.runId)).toMatchObject({ name: "pilot M=4", tags: ["pilot", "baseline"] });
  });

  it("refuses a bad name or tag naming the field, storing nothing", async () => {
    const before = await database.db.run.count();
    const config = { datasetId, policyEndpoint: "sim-policy", rollouts: 4 };
    await expect(caller().run.launch({ kind: "annotate", config, name: "   " })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/field "name".*cannot be empty/) });
    await expect(caller().run.launch({ kind: "annotate", config, tags: ["ok", "a,b"] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/field "tags.1".*letters, digits/) });
    await expect(caller().run.launch({ kind: "annotate", config, name: "x".repeat(121) })).rejects.toMatchObject({ message: expect.stringMatching(/at most 120/) });
    expect(await database.db.run.count()).toBe(before);
  });

  it("renames a run and changes its tags and notes, audited with only what changed; annotators cannot", async () => {
    const { runId } = await caller().run.launch({ kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 4 }, tags: ["a"] });
    const generatedName = (await caller().run.get({ id: runId })).name;
    expect(await caller().run.update({ id: runId, name: "renamed", tags: ["a"], notes: "see <script>alert(1)</script>" })).toEqual({ id: runId, changed: ["name", "notes"] });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "run.updated", entityId: runId } });
    expect(audit).toMatchObject({ actorId: researcherId, before: { name: generatedName, notes: "" }, after: { name: "renamed", notes: "see <script>alert(1)</script>" } });
    // Nothing changed: nothing audited.
    expect(await caller().run.update({ id: runId, tags: ["a"] })).toEqual({ id: runId, changed: [] });
    expect(await database.db.auditLog.count({ where: { action: "run.updated", entityId: runId } })).toBe(1);
    // null goes back to the generated name.
    await caller().run.update({ id: runId, name: null, tags: [] });
    expect(await caller().run.get({ id: runId })).toMatchObject({ name: generatedName, tags: [] });
    await expect(caller().run.update({ id: runId, tags: ["x".repeat(41)] })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/field "tags.0"/) });
    await expect(caller().run.update({ id: "no-such-run", name: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });

    const { id: annotatorId } = await createUserWithPassword(database.db, { email: "a@example.test", name: "A", role: "annotator", password: "long-enough-password" });
    const annotator = createCallerFactory(appRouter)({ db: database.db, getQueue: async () => queue, user: { id: annotatorId, email: "a@example.test", name: "A", role: "annotator" } });
    await expect(annotator.run.update({ id: runId, name: "mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
