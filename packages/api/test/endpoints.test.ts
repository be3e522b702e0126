import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster, type SimModel } from "@stepwiser/inference/sim";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ZodError } from "zod";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";

const SECRET_KEY = "sk-test-d0-not-leak-7f3a9c";
const OTHER_KEY = "sk-test-second-key-41b2e8";

/** Many one-token words, so a sequence keeps a slot busy for seconds at the default decode rate. */
const slowModel: SimModel = { id: "slow", generate: () => Array.from({ length: 2_000 }, (_, i) => `w${i % 26}`).join(" ") };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  const origin = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `${origin}/v1`;
}

describe("endpoints through tRPC", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let loadCluster: SimCluster;
  /** Answers /v1/models only with the right bearer token, recording what it received; no /health; a /metrics page without vLLM's metrics. */
  let keyServer: Server;
  let keyServerUrl: string;
  const receivedAuthorization: Array<string | undefined> = [];
  const users = {} as Record<"admin" | "researcher" | "viewer", { id: string; email: string; name: string; role: UserRole }>;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    for (const role of ["admin", "researcher", "viewer"] as const) {
      users[role] = await createUserWithPassword(database.db, { email: `${role}@example.test`, name: role, role, password: "long-enough-password" });
    }
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2 });
    loadCluster = await startSimCluster({ models: [slowModel], replicas: 1, capacity: { maxConcurrentSequences: 1, tickMs: 10 } });
    keyServer = createServer((req, res) => {
      receivedAuthorization.push(req.headers.authorization);
      if (req.url === "/metrics") return void res.writeHead(200, { "content-type": "text/plain" }).end("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n");
      if (req.url !== "/v1/models") return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${SECRET_KEY}`) return void res.writeHead(401).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "keyed-model" }] }));
    });
    keyServerUrl = `${await listen(keyServer)}/v1`;
  });
  afterAll(async () => {
    await cluster?.stop();
    await loadCluster?.stop();
    await new Promise((resolve) => keyServer?.close(resolve));
    await database?.drop();
  });

  const as = (role: keyof typeof users) => createCallerFactory(appRouter)({ db: database.db, getQueue: () => Promise.reject(new Error("no queue here")), user: users[role] });
  const auditRows = () => database.db.auditLog.findMany({ where: { entityType: "Endpoint" }, orderBy: { id: "asc" } });

  it("creates endpoints, normalises URLs, lists them by role then name, and never returns the key", async () => {
    const judge = await as("admin").endpoint.create({
      name: "a-judge",
      baseUrls: ["http://127.0.0.1:8001/v1/", "  HTTP://Gpu-Node-2:8000/v1// "],
      model: "judge-model",
      role: "judge",
      maxConcurrency: 32,
      apiKey: SECRET_KEY,
    });
    expect(judge).toMatchObject({ name: "a-judge", baseUrls: ["http://127.0.0.1:8001/v1", "http://gpu-node-2:8000/v1"], hasApiKey: true, maxConcurrency: 32 });
    expect(judge).not.toHaveProperty("apiKey");
    expect(JSON.stringify(judge)).not.toContain(SECRET_KEY);
    const policy = await as("admin").endpoint.create({ name: "z-policy", baseUrls: ["http://127.0.0.1:8002"], model: "policy-model", role: "policy" });
    expect(policy).toMatchObject({ hasApiKey: false, maxConcurrency: 64, baseUrls: ["http://127.0.0.1:8002"] });

    const listed = await as("viewer").endpoint.list();
    expect(listed.map((e) => e.name)).toEqual(["z-policy", "a-judge"]);
    expect(listed.find((e) => e.name === "a-judge")).toMatchObject({ hasApiKey: true });
    expect(JSON.stringify(listed)).not.toContain(SECRET_KEY);
    for (const endpoint of listed) expect(endpoint).not.toHaveProperty("apiKey");
    expect((await database.db.endpoint.findUniqueOrThrow({ where: { name: "a-judge" } })).apiKey).toBe(SECRET_KEY);
  });

  it("refuses a duplicate name as CONFLICT, on create and on rename", async () => {
    const error = await as("admin")
      .endpoint.create({ name: "a-judge", baseUrls: ["http://127.0.0.1:9/v1"], model: "m", role: "judge", maxConcurrency: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: "CONFLICT", message: expect.stringContaining('an endpoint named "a-judge" already exists') });
    const policy = await database.db.endpoint.findUniqueOrThrow({ where: { name: "z-policy" } });
    await expect(as("admin").endpoint.update({ id: policy.id, name: " a-judge " })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await database.db.endpoint.count()).toBe(2);
  });

  it("refuses a bad URL as BAD_REQUEST naming the field, storing nothing", async () => {
    for (const [baseUrls, message] of [
      [["ftp://host/v1"], /http\(s\)/],
      [["not a url"], /is not a URL/],
      [["http://user:pw@host:8000/v1"], /API key field/],
      [["http://host:8000/v1?key=abc"], /query string/],
    ] as const) {
      const error = await as("admin")
        .endpoint.create({ name: "bad", baseUrls: [...baseUrls], model: "m", role: "policy", maxConcurrency: 8 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "BAD_REQUEST" });
      const issues = ((error as TRPCError).cause as ZodError).issues;
      expect((error as TRPCError).cause).toBeInstanceOf(ZodError);
      expect(issues[0]!.path).toEqual(["baseUrls", 0]);
      expect(issues[0]!.message).toMatch(message);
    }
    const empty = await as("admin").endpoint.create({ name: "bad", baseUrls: [], model: "m", role: "policy" }).catch((e: unknown) => e);
    expect(((empty as TRPCError).cause as ZodError).issues[0]).toMatchObject({ path: ["baseUrls"], message: "needs at least one replica URL" });
    const tooMany = await as("admin")
      .endpoint.create({ name: "bad", baseUrls: ["http://h/v1"], model: "m", role: "policy", maxConcurrency: 5000 })
      .catch((e: unknown) => e);
    expect(((tooMany as TRPCError).cause as ZodError).issues[0]!.path).toEqual(["maxConcurrency"]);
    expect(await database.db.endpoint.count({ where: { name: "bad" } })).toBe(0);
  });

  it("keeps the key when it is absent on update, replaces it when given, clears it on an empty string", async () => {
    const { id } = await database.db.endpoint.findUniqueOrThrow({ where: { name: "a-judge" } });
    const storedKey = async () => (await database.db.endpoint.findUniqueOrThrow({ where: { id } })).apiKey;

    const kept = await as("admin").endpoint.update({ id, maxConcurrency: 16, baseUrls: ["http://127.0.0.1:8001/v1"] });
    expect(kept).toMatchObject({ maxConcurrency: 16, hasApiKey: true, model: "judge-model", baseUrls: ["http://127.0.0.1:8001/v1"] });
    expect(await storedKey()).toBe(SECRET_KEY);

    await as("admin").endpoint.update({ id, apiKey: OTHER_KEY });
    expect(await storedKey()).toBe(OTHER_KEY);

    const cleared = await as("admin").endpoint.update({ id, apiKey: "" });
    expect(cleared.hasApiKey).toBe(false);
    expect(await storedKey()).toBeNull();

    await expect(as("admin").endpoint.update({ id: "no-such-endpoint", model: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as("researcher").endpoint.update({ id, model: "x" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("audits every change with before/after and never the key", async () => {
    const rows = await auditRows();
    const text = JSON.stringify(rows, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v));
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(OTHER_KEY);
    expect(rows.map((r) => r.action)).toEqual(["endpoint.created", "endpoint.created", "endpoint.updated", "endpoint.updated", "endpoint.updated"]);
    expect(rows.every((r) => r.actorId === users.admin.id)).toBe(true);
    expect(rows[0]!.after).toMatchObject({ name: "a-judge", apiKey: "[set]", role: "judge" });
    expect(rows[1]!.after).toMatchObject({ name: "z-policy", apiKey: "[none]" });
    expect(rows[2]).toMatchObject({ before: { maxConcurrency: 32, apiKey: "[set]" }, after: { maxConcurrency: 16, apiKey: "[set]" } });
    expect(rows[4]).toMatchObject({ before: { apiKey: "[set]" }, after: { apiKey: "[none]" } });
  });

  it("tests every replica of a simulated cluster: models listed, serves the model, /health up", async () => {
    const endpoint = await as("admin").endpoint.create({ name: "sim-policy", baseUrls: [...cluster.urls], model: "sim-policy", role: "policy", maxConcurrency: 8 });
    const result = await as("researcher").endpoint.test({ id: endpoint.id });
    expect(result.ok).toBe(true);
    expect(result.replicas.map((r) => r.baseUrl)).toEqual(cluster.urls);
    for (const replica of result.replicas) {
      expect(replica).toMatchObject({ ok: true, servesModel: true, health: { ok: true, status: 200 } });
      expect(replica.error).toBeUndefined();
      expect(replica.models).toContain("sim-policy");
      expect(replica.latencyMs).toBeGreaterThanOrEqual(0);
    }

    const wrongModel = await as("admin").endpoint.create({ name: "sim-missing", baseUrls: [cluster.urls[0]!], model: "no-such-model", role: "judge", maxConcurrency: 8 });
    const missing = await as("researcher").endpoint.test({ id: wrongModel.id });
    expect(missing.ok).toBe(false);
    expect(missing.replicas[0]).toMatchObject({ ok: true, servesModel: false, error: 'does not serve "no-such-model"' });

    await expect(as("viewer").endpoint.test({ id: endpoint.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as("researcher").endpoint.test({ id: "no-such-endpoint" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("reports a closed port as not ok with a readable reason", async () => {
    const url = await closedPortUrl();
    const endpoint = await as("admin").endpoint.create({ name: "closed", baseUrls: [url], model: "m", role: "segmenter", maxConcurrency: 1 });
    const result = await as("researcher").endpoint.test({ id: endpoint.id });
    expect(result.ok).toBe(false);
    expect(result.replicas).toHaveLength(1);
    expect(result.replicas[0]).toMatchObject({ baseUrl: url, ok: false, models: [], servesModel: false, health: { ok: false, status: null } });
    expect(result.replicas[0]!.error).toMatch(/connection refused.*ECONNREFUSED/);

    const metrics = await as("viewer").endpoint.metrics({ id: endpoint.id });
    expect(metrics.replicas[0]).toMatchObject({ available: false, reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("sends the stored key as a bearer token from the server, and reports a refused key", async () => {
    const endpoint = await as("admin").endpoint.create({ name: "keyed", baseUrls: [keyServerUrl], model: "keyed-model", role: "judge", maxConcurrency: 4, apiKey: SECRET_KEY });
    const result = await as("researcher").endpoint.test({ id: endpoint.id });
    expect(result.replicas[0]).toMatchObject({ ok: true, servesModel: true, models: ["keyed-model"], health: { ok: false, status: 404 } });
    expect(receivedAuthorization).toContain(`Bearer ${SECRET_KEY}`);
    expect(JSON.stringify(result)).not.toContain(SECRET_KEY);

    await as("admin").endpoint.update({ id: endpoint.id, apiKey: "" });
    const refused = await as("researcher").endpoint.test({ id: endpoint.id });
    expect(refused.replicas[0]).toMatchObject({ ok: false, error: expect.stringMatching(/HTTP 401.*API key/) });
  });

  it("reads running and waiting requests and token counters from the cluster's /metrics", async () => {
    const endpoint = await as("admin").endpoint.create({ name: "slow", baseUrls: [...loadCluster.urls], model: "slow", role: "policy", maxConcurrency: 4 });
    const idle = await as("viewer").endpoint.metrics({ id: endpoint.id });
    expect(idle.replicas[0]).toMatchObject({ available: true, running: 0, waiting: 0, generationTokensTotal: 0, metricsUrl: loadCluster.urls[0]!.replace(/\/v1$/, "/metrics") });

    // One slot: the first request runs (for ~40 s at 40 tokens/s), the other two queue behind it.
    const abort = new AbortController();
    const requests = [0, 1, 2].map((i) =>
      fetch(`${loadCluster.urls[0]}/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "slow", prompt: `request ${i}`, max_tokens: 1_600 }),
        signal: abort.signal,
      }).catch(() => undefined),
    );
    try {
      await expect
        .poll(async () => {
          const replica = (await as("viewer").endpoint.metrics({ id: endpoint.id })).replicas[0]!;
          return replica.available ? { running: replica.running, waiting: replica.waiting } : replica.reason;
        }, { timeout: 5_000, interval: 50 })
        .toEqual({ running: 1, waiting: 2 });
      await expect
        .poll(async () => {
          const replica = (await as("viewer").endpoint.metrics({ id: endpoint.id })).replicas[0]!;
          return replica.available ? replica.generationTokensTotal : null;
        }, { timeout: 5_000, interval: 50 })
        .toBeGreaterThan(0);
      const busy = (await as("viewer").endpoint.metrics({ id: endpoint.id })).replicas[0]!;
      expect(busy).toMatchObject({ available: true, promptTokensTotal: expect.any(Number), prefixCacheQueriesTotal: expect.any(Number), prefixCacheHitsTotal: expect.any(Number) });
      if (busy.available) {
        expect(busy.kvCacheUsagePerc).toBeGreaterThan(0);
        expect(busy.scrapedAt).toBeGreaterThan(Date.now() - 10_000);
      }
    } finally {
      abort.abort();
      await Promise.all(requests);
    }
  });

  it("says why when a /metrics page has no vLLM metrics", async () => {
    const endpoint = await database.db.endpoint.findUniqueOrThrow({ where: { name: "keyed" } });
    const result = await as("viewer").endpoint.metrics({ id: endpoint.id });
    expect(result.replicas[0]).toMatchObject({ available: false, reason: expect.stringMatching(/no vLLM or SGLang metrics/) });
    await expect(as("viewer").endpoint.metrics({ id: "no-such-endpoint" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("deletes an endpoint (admin only) and audits it", async () => {
    const { id } = await database.db.endpoint.findUniqueOrThrow({ where: { name: "closed" } });
    await expect(as("researcher").endpoint.delete({ id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await as("admin").endpoint.delete({ id })).toEqual({ ok: true, id, name: "closed" });
    expect(await database.db.endpoint.findUnique({ where: { id } })).toBeNull();
    const row = await database.db.auditLog.findFirstOrThrow({ where: { entityType: "Endpoint", entityId: id, action: "endpoint.deleted" } });
    expect(row).toMatchObject({ actorId: users.admin.id, before: { name: "closed", apiKey: "[none]" }, after: null });
    await expect(as("admin").endpoint.delete({ id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("shows the slots workers hold of each replica's limit, and the workers themselves", async () => {
    const url = await closedPortUrl();
    const endpoint = await as("admin").endpoint.create({ name: "shared", baseUrls: [url], model: "m", role: "policy", maxConcurrency: 8 });
    const { db } = database;
    await db.workerProcess.create({ data: { id: "w-live", hostname: "gpu-host", pid: 101, activeRuns: 1 } });
    await db.workerProcess.create({ data: { id: "w-gone", hostname: "old-host", pid: 7, heartbeatAt: new Date(Date.now() - 3_600_000) } });
    await db.endpointCapacityLease.createMany({
      data: [
        { replicaKey: `shared@${url}`, holderId: "w-live", slots: 5, demand: 9 },
        { replicaKey: `shared@${url}`, holderId: "w-other", slots: 3, demand: 3 },
        { replicaKey: "elsewhere@http://x/v1", holderId: "w-live", slots: 2, demand: 2 },
      ],
    });
    const metrics = await as("viewer").endpoint.metrics({ id: endpoint.id });
    expect(metrics.replicas[0]).toMatchObject({ available: false, workerSlots: { held: 8, limit: 8, workers: 2 } });

    const workers = await as("viewer").worker.list();
    expect(workers.map((w) => [w.id, w.live, w.slots, w.replicasHeld])).toEqual([
      ["w-live", true, 7, 2],
      ["w-gone", false, 0, 0],
    ]);
    await expect(createCallerFactory(appRouter)({ db, getQueue: () => Promise.reject(new Error("no queue")), user: null }).worker.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
  it("keeps optional prices per 1M tokens, audited; a bad price is refused naming its field", async () => {
    const created = await as("admin").endpoint.create({ name: "priced", baseUrls: ["http://127.0.0.1:8003/v1"], model: "m", role: "judge", promptPricePerMTokens: 0.15, completionPricePerMTokens: 0.6 });
    expect(created).toMatchObject({ promptPricePerMTokens: 0.15, cachedPromptPricePerMTokens: null, completionPricePerMTokens: 0.6 });
    const updated = await as("admin").endpoint.update({ id: created.id, cachedPromptPricePerMTokens: 0.075, promptPricePerMTokens: null });
    expect(updated).toMatchObject({ promptPricePerMTokens: null, cachedPromptPricePerMTokens: 0.075, completionPricePerMTokens: 0.6 });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "endpoint.updated", entityId: created.id } });
    expect(audit).toMatchObject({ before: { promptPricePerMTokens: 0.15, cachedPromptPricePerMTokens: null }, after: { promptPricePerMTokens: null, cachedPromptPricePerMTokens: 0.075 } });
    const error = await as("admin")
      .endpoint.update({ id: created.id, completionPricePerMTokens: -1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect(((error as TRPCError).cause as ZodError).issues[0]).toMatchObject({ path: ["completionPricePerMTokens"], message: "a price cannot be negative" });
    await as("admin").endpoint.delete({ id: created.id });
  });

  it("keeps the judge protocols an endpoint declares, audited; an unknown, repeated or empty list is refused naming the field", async () => {
    const created = await as("admin").endpoint.create({ name: "prm", baseUrls: ["http://127.0.0.1:8004"], model: "Qwen/Qwen2.5-Math-PRM-7B", role: "judge" });
    expect(created.protocols).toEqual(["stepwiser-chunk", "processbench-critic"]);
    const updated = await as("admin").endpoint.update({ id: created.id, protocols: ["discriminative-prm"] });
    expect(updated.protocols).toEqual(["discriminative-prm"]);
    expect((await as("viewer").endpoint.list()).find((e) => e.id === created.id)?.protocols).toEqual(["discriminative-prm"]);
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "endpoint.updated", entityId: created.id } });
    expect(audit).toMatchObject({ before: { protocols: ["stepwiser-chunk", "processbench-critic"] }, after: { protocols: ["discriminative-prm"] } });
    const refused = async (protocols: unknown) => {
      const error = await as("admin")
        .endpoint.update({ id: created.id, protocols: protocols as never })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("BAD_REQUEST");
      return ((error as TRPCError).cause as ZodError).issues[0];
    };
    expect(await refused(["thinkprm", "reward-magic"])).toMatchObject({ path: ["protocols", 1], message: expect.stringMatching(/^"reward-magic" is not a judge protocol; expected one of stepwiser-chunk, processbench-critic, thinkprm/) });
    expect(await refused([])).toMatchObject({ path: ["protocols"], message: "needs at least one protocol the server speaks" });
    expect(await refused(["genprm", "genprm"])).toMatchObject({ path: ["protocols"], message: "lists the same protocol twice" });
    expect((await database.db.endpoint.findUniqueOrThrow({ where: { id: created.id } })).protocols).toEqual(["discriminative-prm"]);
    await as("admin").endpoint.delete({ id: created.id });
  });
});
