import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { batchRequestLines, createAndExecuteRun, createRun, createSimWorldDataset, EndpointClients, holdRunGrading, UNIT_RUN_KINDS } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, runCli } from "./run-cli";

describe("stepwiser batch: offline execution with vllm run-batch", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let scratch: string;
  let datasetId: string;
  let releaseGrading: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // One grading pool for the file: each in-process command's worker would otherwise start its grading threads, and warm up their CAS, again.
    releaseGrading = holdRunGrading();
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // Without a prefix cache the cached-token counters do not depend on what the replicas saw before.
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 500, capacity: { prefixCacheTokens: 0 } });
    await database.db.endpoint.create({ data: { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "cli-batch", problems: 3, seed: 91 }));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-batch-"));
  });
  afterAll(async () => {
    await releaseGrading?.();
    await cluster?.stop();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const env = () => ({ DATABASE_URL: database.url });
  const serverRequests = () => cluster.replicas.reduce((n, r) => n + r.metrics().requests, 0);
  const labelsOf = async (runId: string) =>
    (await database.db.chunkLabel.findMany({ where: { runId }, select: { chunkId: true, rule: true, paramsKey: true, label: true }, orderBy: [{ chunkId: "asc" }, { rule: "asc" }, { paramsKey: "asc" }] })).map(
      (l) => `${l.chunkId} ${l.rule} ${l.paramsKey} ${l.label}`,
    );

  it("run --offline, batch export, sim run-batch and batch import give the online run's labels and counters", async () => {
    const config = { datasetId, policyEndpoint: "sim-policy", rollouts: 4, seed: 7 };
    const endpoints = new EndpointClients();
    const online = await createAndExecuteRun(database.db, { kind: "annotate", config }, { endpoints });
    await endpoints.close();
    expect(online.status).toBe("completed");

    const configFile = path.join(scratch, "annotate.json");
    await writeFile(configFile, JSON.stringify(config));
    const created = await runCliInProcess(["run", "annotate", "--config", configFile, "--offline"], env());
    expect(created.code, created.stderr).toBe(0);
    const { runId } = jsonOf(created) as { runId: string };
    expect(jsonOf(created)).toEqual({ runId, name: "annotate · sim-policy · M=4 · fixed", status: "queued", execution: "offline" });

    const requests = path.join(scratch, "requests.jsonl");
    // As the executable: the requests go to the file, the count to stderr.
    const exported = await runCli(["batch", "export", runId, "-o", requests], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = (await readFile(requests, "utf8")).trim().split("\n");
    expect(exported.stderr).toContain(`exported ${lines.length} requests of run ${runId}`);
    expect(lines.length).toBe(online.requests);
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: "POST", url: "/v1/chat/completions", body: { model: "sim-policy", n: 4 } });

    const output = path.join(scratch, "output.jsonl");
    const answered = await runCliInProcess(["sim", "run-batch", "-i", requests, "-o", output, "--url", cluster.urls[0]!, "--concurrency", "8"], env());
    expect(answered.code, answered.stderr).toBe(0);
    expect(jsonOf(answered)).toMatchObject({ requests: lines.length, failed: 0 });

    const before = serverRequests();
    const imported = await runCliInProcess(["batch", "import", runId, output], env());
    expect(imported.code, imported.stderr).toBe(0);
    expect(serverRequests()).toBe(before); // everything was answered offline
    expect(imported.stderr).toContain(`imported ${lines.length} requests (${lines.length * 4} samples) from ${output}; 0 lines skipped`);
    const finished = jsonOf(imported) as Record<string, unknown>;
    expect(finished).toMatchObject({
      runId,
      status: "completed",
      requests: online.requests,
      promptTokens: Number(online.promptTokens),
      completionTokens: Number(online.completionTokens),
      cachedTokens: Number(online.cachedTokens),
    });
    const offlineLabels = await labelsOf(runId);
    expect(offlineLabels.length).toBeGreaterThan(0);
    expect(offlineLabels).toEqual(await labelsOf(online.id));
  });

  it("batch import refuses a malformed output with its file, line and field, and stores nothing", async () => {
    const { db } = database;
    const run = await createRun(db, { kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 2, seed: 3 } });
    const lines = [];
    for await (const line of batchRequestLines(db, run.id, UNIT_RUN_KINDS)) lines.push(line);
    const first = lines[0];
    const answer = (customId: string) => ({
      id: "vllm-1",
      custom_id: customId,
      response: { status_code: 200, request_id: "vllm-batch-1", body: { choices: [0, 1].map((index) => ({ index, message: { role: "assistant", content: "x" } })), usage: null } },
      error: null,
    });
    const bad = path.join(scratch, "bad-output.jsonl");
    await writeFile(bad, `${JSON.stringify(answer(first!.custom_id))}\n${JSON.stringify(answer(first!.custom_id.replace(run.id, "someotherrun")))}\n`);
    const result = await runCliInProcess(["batch", "import", run.id, bad], env());
    expect(result.code).toBe(2);
    // The job reads the uploaded copy, which keeps the file's name.
    expect(result.stderr).toContain(`bad-output.jsonl:2, field "custom_id": the request belongs to run someotherrun, not to run ${run.id}`);
    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("queued");
  });
});
