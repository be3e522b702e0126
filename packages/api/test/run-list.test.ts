import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, createSimWorldDataset, recordRunCost, recordStoredRunsSpend, runEndpoints, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";

type Role = "researcher" | "admin";

describe("the runs list: filters, sort, pages and cost", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let datasetA: string;
  let datasetB: string;
  const users: Record<string, { id: string; email: string; name: string; role: Role }> = {};
  const ids: Record<string, string> = {};

  const callerAs = (who: string) => createCallerFactory(appRouter)({ db: database.db, getQueue: async () => queue, user: users[who]! });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
    const url = "http://127.0.0.1:9/v1";
    await database.db.endpoint.createMany({
      data: [
        // cached tokens at half the prompt price
        { name: "priced-policy", model: "sim-policy", role: "policy", baseUrls: [url], promptPricePerMTokens: 1, cachedPromptPricePerMTokens: 0.5, completionPricePerMTokens: 2 },
        // no cached price: cached tokens cost the prompt price
        { name: "priced-judge", model: "sim-judge-strong", role: "judge", baseUrls: [url], promptPricePerMTokens: 0.1, completionPricePerMTokens: 0.4 },
        { name: "plain-judge", model: "sim-judge-weak", role: "judge", baseUrls: [url] },
      ],
    });
    ({ datasetId: datasetA } = await createSimWorldDataset(database.db, { name: "list-a", problems: 2 }));
    ({ datasetId: datasetB } = await createSimWorldDataset(database.db, { name: "list-b", problems: 2 }));
    for (const [key, role] of [["ada", "researcher"], ["bo", "admin"]] as const) {
      const email = `${key}@example.test`;
      const { id } = await createUserWithPassword(database.db, { email, name: key.toUpperCase(), role, password: "long-enough-password" });
      users[key] = { id, email, name: key.toUpperCase(), role };
    }
    const launch = async (who: string, key: string, kind: "annotate" | "judge" | "chunk_reset", config: Record<string, unknown>, extra: { name?: string; tags?: string[] } = {}) => {
      ids[key] = (await callerAs(who).run.launch({ kind, config, ...extra })).runId;
    };
    await launch("ada", "annotate", "annotate", { datasetId: datasetA, policyEndpoint: "priced-policy", rollouts: 4 }, { name: "Alpha annotate", tags: ["baseline"] });
    await launch("ada", "judgeStrong", "judge", { datasetId: datasetA, judgeEndpoint: "priced-judge", samples: 3, temperature: 1 }, { name: "beta judge", tags: ["baseline", "paper"] });
    await launch("bo", "judgeWeak", "judge", { datasetId: datasetA, judgeEndpoint: "plain-judge" }, { name: "Gamma judge" });
    await launch("bo", "reset", "chunk_reset", { datasetId: datasetB, policyEndpoint: "priced-policy", judgeEndpoint: "priced-judge" }, { tags: ["paper"] });
    await launch("bo", "judgeB", "judge", { datasetId: datasetB, judgeEndpoint: "priced-judge" }, { name: "delta judge" });
    // What workers would have counted and reached.
    const counters = {
      annotate: { promptTokens: 1_000_000n, cachedTokens: 200_000n, completionTokens: 500_000n, status: "completed", unitsTotal: 10, unitsDone: 10 },
      judgeStrong: { promptTokens: 2_000_000n, cachedTokens: 1_000_000n, completionTokens: 100_000n, status: "running", unitsTotal: 8, unitsDone: 2 },
      judgeWeak: { promptTokens: 50_000n, cachedTokens: 0n, completionTokens: 5_000n, status: "failed", unitsTotal: 8, unitsDone: 1 },
      reset: { promptTokens: 10n, cachedTokens: 0n, completionTokens: 10n, status: "completed", unitsTotal: 2, unitsDone: 2 },
      judgeB: { promptTokens: 0n, cachedTokens: 0n, completionTokens: 0n, status: "queued", unitsTotal: 0, unitsDone: 0 },
    } as const;
    for (const [key, data] of Object.entries(counters)) {
      const run = await database.db.run.update({ where: { id: ids[key] }, data });
      // The cost kept with the counters, as the engine's flush keeps it.
      await recordRunCost(database.db, run.id, runEndpoints(run) ?? [], run);
    }
    // Creation days: the annotate run in October, the others today.
    await database.db.run.update({ where: { id: ids.annotate }, data: { createdAt: new Date("2026-10-05T12:00:00Z") } });
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  const list = (input: Parameters<ReturnType<typeof callerAs>["run"]["list"]>[0] = {}) => callerAs("ada").run.list(input);
  const keysOf = (runs: { id: string }[]) => runs.map((run) => Object.keys(ids).find((key) => ids[key] === run.id));

  it("prices a run's tokens at its endpoint's prices snapshotted at launch, and says why when it cannot", async () => {
    // Prices changed after launch do not move a launched run's cost.
    await database.db.endpoint.update({ where: { name: "priced-policy" }, data: { promptPricePerMTokens: 100, completionPricePerMTokens: 100 } });
    const { runs } = await list();
    const cost = (key: string) => runs.find((run) => run.id === ids[key])!.cost;
    // (800k × $1 + 200k × $0.5 + 500k × $2) / 1M
    expect(cost("annotate").usd).toBeCloseTo(1.9, 10);
    // (1M × $0.1 + 1M cached × $0.1 + 100k × $0.4) / 1M
    expect(cost("judgeStrong").usd).toBeCloseTo(0.24, 10);
    expect(cost("judgeB")).toEqual({ usd: 0, reason: null });
    expect(cost("judgeWeak")).toEqual({ usd: null, reason: expect.stringContaining('"plain-judge" had no prompt and completion prices') });
    expect(cost("reset")).toEqual({ usd: null, reason: expect.stringMatching(/"priced-policy" and "priced-judge" are counted together/) });
    const row = runs.find((run) => run.id === ids.reset)!;
    expect(row.models).toEqual([
      { role: "policy", model: "sim-policy" },
      { role: "judge", model: "sim-judge-strong" },
    ]);
    expect(row.dataset).toEqual({ id: datasetB, name: "list-b" });
    expect(row.createdBy).toEqual({ id: users.bo!.id, name: "BO", email: "bo@example.test" });
  });

  it("filters by kind, status, dataset, model, tag, creator, name and creation days", async () => {
    expect(keysOf((await list({ kinds: ["judge"] })).runs).sort()).toEqual(["judgeB", "judgeStrong", "judgeWeak"]);
    expect(keysOf((await list({ kinds: ["annotate", "chunk_reset"] })).runs).sort()).toEqual(["annotate", "reset"]);
    expect(keysOf((await list({ statuses: ["running", "queued"] })).runs).sort()).toEqual(["judgeB", "judgeStrong"]);
    expect(keysOf((await list({ datasetId: datasetB })).runs).sort()).toEqual(["judgeB", "reset"]);
    // A chunk-reset run serves both its models.
    expect(keysOf((await list({ model: "sim-judge-strong" })).runs).sort()).toEqual(["judgeB", "judgeStrong", "reset"]);
    expect(keysOf((await list({ model: "sim-policy" })).runs).sort()).toEqual(["annotate", "reset"]);
    expect(keysOf((await list({ tag: "paper" })).runs).sort()).toEqual(["judgeStrong", "reset"]);
    expect(keysOf((await list({ tag: "baseline", kinds: ["judge"] })).runs)).toEqual(["judgeStrong"]);
    expect(keysOf((await list({ createdById: users.ada!.id })).runs).sort()).toEqual(["annotate", "judgeStrong"]);
    // Any case, part of the name; LIKE wildcards are plain characters.
    expect(keysOf((await list({ search: "gAmMa" })).runs)).toEqual(["judgeWeak"]);
    // Generated names are searched too ("chunk-reset · sim-policy · judge sim-judge-strong · …").
    expect(keysOf((await list({ search: "JUDGE" })).runs).sort()).toEqual(["judgeB", "judgeStrong", "judgeWeak", "reset"]);
    expect((await list({ search: "%" })).total).toBe(0);
    expect(keysOf((await list({ createdFrom: "2026-10-01", createdTo: "2026-10-31" })).runs)).toEqual(["annotate"]);
    expect(keysOf((await list({ createdTo: "2026-10-05" })).runs)).toEqual(["annotate"]);
    expect((await list({ createdFrom: "2026-10-06" })).total).toBe(4);
    await expect(list({ createdFrom: "2026-10-06", createdTo: "2026-10-01" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/field "createdTo".*before/) });
  });

  it("sorts by creation, name, tokens, cost and status, runs without a cost last either way", async () => {
    expect(keysOf((await list()).runs)).toEqual(["judgeB", "reset", "judgeWeak", "judgeStrong", "annotate"]);
    expect(keysOf((await list({ sort: "createdAt", order: "asc" })).runs)[0]).toBe("annotate");
    expect(keysOf((await list({ sort: "name", order: "asc", kinds: ["annotate", "judge"] })).runs)).toEqual(["annotate", "judgeStrong", "judgeB", "judgeWeak"]);
    expect(keysOf((await list({ sort: "tokens", order: "desc" })).runs)).toEqual(["judgeStrong", "annotate", "judgeWeak", "reset", "judgeB"]);
    expect(keysOf((await list({ sort: "cost", order: "desc" })).runs).slice(0, 3)).toEqual(["annotate", "judgeStrong", "judgeB"]);
    const ascending = keysOf((await list({ sort: "cost", order: "asc" })).runs);
    expect(ascending.slice(0, 3)).toEqual(["judgeB", "judgeStrong", "annotate"]);
    expect(ascending.slice(3).sort()).toEqual(["judgeWeak", "reset"]);
    expect(keysOf((await list({ sort: "status", order: "asc" })).runs)).toEqual(["judgeStrong", "judgeB", "judgeWeak", "reset", "annotate"]);
  });

  it("records the models and cost of a run stored before they were recorded, once, when a worker starts", async () => {
    const { db } = database;
    await db.runModel.deleteMany({ where: { runId: ids.annotate } });
    await db.run.update({ where: { id: ids.annotate }, data: { costUsd: null, spendRecordedAt: null } });
    expect(keysOf((await list({ model: "sim-policy" })).runs)).toEqual(["reset"]);
    expect(await recordStoredRunsSpend(db)).toBe(1);
    expect(await recordStoredRunsSpend(db)).toBe(0);
    expect(keysOf((await list({ model: "sim-policy" })).runs).sort()).toEqual(["annotate", "reset"]);
    expect(keysOf((await list({ sort: "cost", order: "desc" })).runs)[0]).toBe("annotate");
    expect((await db.run.findUniqueOrThrow({ where: { id: ids.annotate } })).costUsd).toBeCloseTo(1.9, 10);
  });

  it("pages through the list with a total", async () => {
    const first = await list({ pageSize: 2 });
    const second = await list({ pageSize: 2, page: 2 });
    const third = await list({ pageSize: 2, page: 3 });
    expect([first.total, first.hasMore, second.hasMore, third.hasMore]).toEqual([5, true, true, false]);
    expect([...first.runs, ...second.runs, ...third.runs].map((run) => run.id)).toEqual((await list()).runs.map((run) => run.id));
    expect((await list({ pageSize: 2, page: 9 })).runs).toEqual([]);
  });

  it("offers the models, tags, creators and datasets runs have", async () => {
    const options = await callerAs("ada").run.filterOptions();
    expect(options.models).toEqual(["sim-judge-strong", "sim-judge-weak", "sim-policy"]);
    expect(options.tags).toEqual(["baseline", "paper"]);
    expect(options.creators.map((u) => u.name)).toEqual(["ADA", "BO"]);
    expect(options.datasets.map((d) => d.name)).toEqual(["list-a", "list-b"]);
  });

  it("cancels the queued and running runs of a selection, each audited, and says why it skipped the others", async () => {
    const result = await callerAs("ada").run.cancelMany({ ids: [ids.judgeStrong!, ids.judgeB!, ids.annotate!, "no-such-run"] });
    expect(result.cancelled.sort()).toEqual([ids.judgeStrong, ids.judgeB].sort());
    expect(result.skipped).toEqual([
      { id: ids.annotate, reason: expect.stringContaining("is completed; only queued or running runs can be cancelled") },
      { id: "no-such-run", reason: "run no-such-run does not exist" },
    ]);
    const audited = await database.db.auditLog.findMany({ where: { action: "run.cancel_requested" }, select: { entityId: true, actorId: true } });
    expect(audited.map((entry) => entry.entityId).sort()).toEqual([ids.judgeStrong, ids.judgeB].sort());
    expect(audited.every((entry) => entry.actorId === users.ada!.id)).toBe(true);
    await expect(callerAs("ada").run.cancelMany({ ids: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
