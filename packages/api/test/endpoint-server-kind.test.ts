import type { UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "@stepwiser/jobs";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ZodError } from "zod";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";
import { MANY_REQUESTS } from "../src/services/endpoint/cache-report";

/**
 * An endpoint's server kind (set, or read from the server's model list), and the
 * endpoints page's warning when a priced endpoint's runs reported no cached
 * prompt token over many requests: real judge runs against simulated clusters
 * that report cached tokens and that do not (as vLLM without
 * --enable-prompt-tokens-details and SGLang without --enable-cache-report).
 */
describe("endpoints: server kind and cached-token reports", () => {
  let database: TestDatabase;
  let vllm: SimCluster;
  let silentSglang: SimCluster;
  let endpoints: EndpointClients;
  const users = {} as Record<"admin" | "viewer", { id: string; email: string; name: string; role: UserRole }>;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    for (const role of ["admin", "viewer"] as const) {
      users[role] = await createUserWithPassword(database.db, { email: `${role}@example.test`, name: role, role, password: "long-enough-password" });
    }
    vllm = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    silentSglang = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000, dialect: "sglang", reportCachedTokens: false });
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await vllm?.stop();
    await silentSglang?.stop();
    await database?.drop();
  });

  const as = (role: keyof typeof users) => createCallerFactory(appRouter)({ db: database.db, getQueue: () => Promise.reject(new Error("no queue here")), user: users[role] });
  const judge = (name: string, cluster: SimCluster, extra: object = {}) =>
    as("admin").endpoint.create({ name, model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 32, ...extra });

  it("stores the server kind (auto by default), refuses an unknown one by name, and the connection test says what the server is", async () => {
    const detected = await judge("judge-auto", silentSglang);
    expect(detected.serverKind).toBe("auto");
    const pinned = await judge("judge-pinned", vllm, { serverKind: "vllm" });
    expect(pinned.serverKind).toBe("vllm");
    const refused = await judge("judge-bad", vllm, { serverKind: "tgi" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("BAD_REQUEST");
    expect(((refused as TRPCError).cause as ZodError).issues).toMatchObject([
      { path: ["serverKind"], message: '"tgi" is not a server kind; expected one of auto, vllm, sglang, openai-compatible' },
    ]);

    const onSglang = await as("admin").endpoint.test({ id: detected.id });
    expect(onSglang.serverKind).toBe("auto");
    expect(onSglang.replicas.map((r) => r.serverKind)).toEqual(["sglang"]);
    const onVllm = await as("admin").endpoint.test({ id: pinned.id });
    expect(onVllm.replicas.map((r) => r.serverKind)).toEqual(["vllm"]);

    const changed = await as("admin").endpoint.update({ id: detected.id, serverKind: "sglang" });
    expect(changed.serverKind).toBe("sglang");
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { entityId: detected.id, action: "endpoint.updated" } });
    expect(audit.before).toMatchObject({ serverKind: "auto" });
    expect(audit.after).toMatchObject({ serverKind: "sglang" });
  });

  it("warns on a priced endpoint whose runs reported no cached prompt token over many requests, and not on one that reports them", async () => {
    const { db } = database;
    const price = { promptPricePerMTokens: 0.5, cachedPromptPricePerMTokens: 0.05, completionPricePerMTokens: 1.5 };
    await judge("priced-silent", silentSglang, price);
    await judge("priced-reporting", vllm, price);
    await judge("unpriced-silent", silentSglang);
    // 60 solutions of about 5 chunks: one judge request per chunk, more than MANY_REQUESTS, every prompt sharing the judge's instructions.
    const { datasetId } = await createSimWorldDataset(db, { name: "cache-report", problems: 60, seed: 41 });
    for (const judgeEndpoint of ["priced-silent", "priced-reporting", "unpriced-silent"]) {
      const run = await createAndExecuteRun(db, { kind: "judge", config: { datasetId, judgeEndpoint, samples: 1 } }, { endpoints });
      expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
    }

    const listed = await as("viewer").endpoint.list();
    const byName = new Map(listed.map((endpoint) => [endpoint.name, endpoint]));
    const silent = byName.get("priced-silent")!.cacheReport!;
    expect(silent.runs).toBe(1);
    expect(silent.requests).toBeGreaterThanOrEqual(MANY_REQUESTS);
    expect(silent.cachedTokens).toBe(0);
    expect(silent.warning).toMatch(/^no cached prompt token was reported over \d+ requests of its last 1 run: .*--enable-prompt-tokens-details.*--enable-cache-report/);
    const reporting = byName.get("priced-reporting")!.cacheReport!;
    expect(reporting.requests).toBeGreaterThanOrEqual(MANY_REQUESTS);
    expect(reporting.cachedTokens).toBeGreaterThan(0);
    expect(reporting.warning).toBeNull();
    expect(byName.get("unpriced-silent")!.cacheReport).toBeNull();
    expect(byName.get("judge-auto")!.cacheReport).toBeNull();

    // The metrics panel reads SGLang's names: the server did serve prefixes from its cache, it only left them out of usage.
    const metrics = await as("viewer").endpoint.metrics({ id: byName.get("priced-silent")!.id });
    expect(metrics.replicas[0]).toMatchObject({ available: true, running: 0, waiting: 0 });
    const replica = metrics.replicas[0] as { generationTokensTotal: number; prefixCacheHitsTotal: number; prefixCacheQueriesTotal: number };
    expect(replica.generationTokensTotal).toBeGreaterThan(0);
    expect(replica.prefixCacheHitsTotal).toBeGreaterThan(0);
    expect(replica.prefixCacheHitsTotal).toBeLessThan(replica.prefixCacheQueriesTotal);
  });
});
