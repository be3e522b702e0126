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
});
