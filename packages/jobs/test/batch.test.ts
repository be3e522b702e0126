import { piecesOf, readLines } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, runBatch, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  batchRequestLines,
  createAndExecuteRun,
  createRun,
  createSimWorldDataset,
  EndpointClients,
  executeRun,
  connectJobQueue,
  importBatchOutput,
  unknownModelOfBatchError,
  readStoredFile,
  runExport,
  runImport,
  UNIT_RUN_KINDS,
  storeFile,
  submitBatchOutputImport,
  submitExport,
  type AnnotateConfigInput,
} from "../src";

describe("offline execution with vllm run-batch", () => {
  let database: TestDatabase;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // No prefix cache: cached-token counts then depend only on the requests, not on
    // what the replicas happened to have seen, so online and offline counters compare.
    cluster = await startSimCluster({ models: createSimModels(), replicas: 2, timeScale: 500, capacity: { prefixCacheTokens: 0 } });
    const { db } = database;
    await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    await db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 64 } });
    // Same models, nothing listening: an execution that sent a request would fail.
    await db.endpoint.create({ data: { name: "policy-offline", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 } });
    await db.endpoint.create({ data: { name: "judge-offline", model: "sim-judge-strong", role: "judge", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 } });
    endpoints = new EndpointClients({ timeouts: { connectMs: 500 } });
    ({ datasetId } = await createSimWorldDataset(db, { name: "batch", problems: 8, seed: 40 }));
  });
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await database?.drop();
  });

  const annotateConfig = (overrides: Partial<AnnotateConfigInput> = {}): AnnotateConfigInput => ({
    datasetId,
    policyEndpoint: "policy",
    strategy: "fixed",
    rollouts: 4,
    seed: 7,
    concurrency: 4,
    ...overrides,
  });
  const serverRequests = () => cluster.replicas.reduce((n, r) => n + r.metrics().requests, 0);
  /** Executes an offline run and checks that the simulated cluster saw no request meanwhile. */
  async function executeSendingNothing(runId: string) {
    const before = serverRequests();
    await executeRun(database.db, runId, UNIT_RUN_KINDS, { endpoints });
    expect(serverRequests()).toBe(before);
  }

  async function* jsonLines(runId: string) {
    for await (const line of batchRequestLines(database.db, runId, UNIT_RUN_KINDS)) yield JSON.stringify(line);
  }
  /** Export → simulated `vllm run-batch` → the output file's lines. */
  async function answeredOffline(runId: string): Promise<string[]> {
    const output: string[] = [];
    for await (const line of runBatch({ input: jsonLines(runId), baseUrl: cluster.urls[0]!, concurrency: 16 })) output.push(JSON.stringify(line));
    return output;
  }
  const importText = (runId: string, lines: string[], file = "out.jsonl") => importBatchOutput(database.db, runId, UNIT_RUN_KINDS, readLines(piecesOf(`${lines.join("\n")}\n`), file), file);

  async function annotationOf(db: Db, runId: string) {
    const [values, labels, rollouts, run] = await Promise.all([
      db.chunkValue.findMany({ where: { runId }, select: { segmentationId: true, prefixLength: true, qValue: true, rolloutCount: true, correctCount: true }, orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }] }),
      db.chunkLabel.findMany({ where: { runId }, select: { chunkId: true, rule: true, paramsKey: true, label: true }, orderBy: [{ chunkId: "asc" }, { rule: "asc" }, { paramsKey: "asc" }] }),
      db.rollout.findMany({
        where: { runId },
        select: { segmentationId: true, prefixLength: true, sampleIndex: true, seed: true, text: true, extractedAnswer: true, correct: true, completionTokens: true },
        orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }, { sampleIndex: "asc" }],
      }),
      db.run.findUniqueOrThrow({ where: { id: runId } }),
    ]);
    const counters = { requests: run.requests, promptTokens: run.promptTokens, completionTokens: run.completionTokens, cachedTokens: run.cachedTokens };
    return { status: run.status, values, labels, rollouts, counters, summary: run.summary };
  }

  it("a fixed-M run answered by run-batch and imported stores the same rollouts, Q-values, labels and token counts as the online run, with no request at execution", async () => {
    const { db } = database;
    const online = await createAndExecuteRun(db, { kind: "annotate", config: annotateConfig() }, { endpoints });
    expect(online.status).toBe("completed");

    const offline = await createRun(db, { kind: "annotate", config: annotateConfig({ policyEndpoint: "policy-offline" }) });
    const output = await answeredOffline(offline.id);
    const chunkTotal = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect(output).toHaveLength(chunkTotal); // one request per prefix 0..k-1, n = M
    const imported = await importText(offline.id, output);
    expect(imported).toEqual({ requests: chunkTotal, samples: chunkTotal * 4, skipped: 0 });

    await executeSendingNothing(offline.id);

    const a = await annotationOf(db, online.id);
    const b = await annotationOf(db, offline.id);
    expect(b.status).toBe("completed");
    expect(b.values).toEqual(a.values);
    expect(b.labels).toEqual(a.labels);
    expect(b.labels.length).toBe(chunkTotal * 3);
    expect(b.rollouts).toEqual(a.rollouts);
    expect(b.counters).toEqual(a.counters);
    expect(b.summary).toEqual(a.summary);
  });

  it("early-stop answered offline gives the same Abs-Q labels as its online run", async () => {
    const { db } = database;
    const config = annotateConfig({ strategy: "early-stop", labelRules: [{ rule: "abs-q" }] });
    const online = await createAndExecuteRun(db, { kind: "annotate", config }, { endpoints });
    const offline = await createRun(db, { kind: "annotate", config: { ...config, policyEndpoint: "policy-offline" } });
    const output = await answeredOffline(offline.id);
    const fixedLines = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect(output.length).toBeLessThan(fixedLines); // no bare-problem prefix, and the solution itself needs no rollout
    await importText(offline.id, output);
    await executeSendingNothing(offline.id);
    const a = await annotationOf(db, online.id);
    const b = await annotationOf(db, offline.id);
    expect(b.status).toBe("completed");
    expect(b.labels).toEqual(a.labels);
    expect(b.labels.length).toBeGreaterThan(0);
  });

  it("a judge run answered offline keeps the same samples and votes as online", async () => {
    const { db } = database;
    const config = { datasetId, judgeEndpoint: "judge", samples: 3, temperature: 1, seed: 4, limit: 4 };
    const online = await createAndExecuteRun(db, { kind: "judge", config }, { endpoints });
    const offline = await createRun(db, { kind: "judge", config: { ...config, judgeEndpoint: "judge-offline" } });
    await importText(offline.id, await answeredOffline(offline.id));
    await executeSendingNothing(offline.id);
    const samples = (runId: string) =>
      db.judgeSample.findMany({ where: { runId }, select: { chunkId: true, sampleIndex: true, rationale: true, verdict: true, promptTokens: true, completionTokens: true }, orderBy: [{ chunkId: "asc" }, { sampleIndex: "asc" }] });
    const votes = async (runId: string) => (await db.runUnit.findMany({ where: { runId }, select: { key: true, result: true }, orderBy: { key: "asc" } })).map((u) => [u.key, u.result]);
    expect((await db.run.findUniqueOrThrow({ where: { id: offline.id } })).status).toBe("completed");
    expect(await samples(offline.id)).toEqual(await samples(online.id));
    expect(await votes(offline.id)).toEqual(await votes(online.id));
  });

  it("an output whose every line is vLLM's unknown-model error is skipped with the reason named", async () => {
    const { db } = database;
    const offline = await createRun(db, { kind: "annotate", config: annotateConfig({ limit: 2 }) });
    const requests = [];
    for await (const line of batchRequestLines(db, offline.id, UNIT_RUN_KINDS)) requests.push(line);
    expect(requests.length).toBeGreaterThan(1);
    const model = requests[0]!.body.model;
    // What `vllm run-batch --model other` writes for each line: the serving layer's 404, as the line's error.
    const notFound = (custom_id: string, flat: boolean) => {
      const error = { message: `The model \`${model}\` does not exist.`, type: "NotFoundError", param: null, code: 404 };
      return JSON.stringify({ id: "vllm-x", custom_id, response: { status_code: 404, request_id: "vllm-batch-x", body: null }, error: flat ? { object: "error", ...error } : { error } });
    };
    const output = requests.map((r, i) => notFound(r.custom_id, i % 2 === 1));
    const result = await importText(offline.id, output);
    expect(result).toMatchObject({ requests: 0, samples: 0, skipped: requests.length });
    expect(result.skippedReason).toContain(`every line failed with vLLM's "The model \`${model}\` does not exist." (404)`);
    expect(result.skippedReason).toContain(`--served-model-name ${model}`);
    // One line answered, or another failure: the counts alone, no reason claimed.
    const mixed = [...output];
    mixed[0] = JSON.stringify({ id: "vllm-y", custom_id: requests[0]!.custom_id, response: { status_code: 400, request_id: "r", body: null }, error: "The model does not support Chat Completions API" });
    const partly = await importText(offline.id, mixed);
    expect(partly.skipped).toBe(requests.length);
    expect(partly.skippedReason).toBeUndefined();
    expect(unknownModelOfBatchError("The model `a b` does not exist.")).toBe("a b");
    expect(unknownModelOfBatchError({ error: { message: "Request must not be sent in stream mode" } })).toBeNull();
  });

  it("a failed request is skipped at import and sent online at execution; the labels are unchanged", async () => {
    const { db } = database;
    const config = annotateConfig({ limit: 3 });
    const online = await createAndExecuteRun(db, { kind: "annotate", config }, { endpoints });
    const offline = await createRun(db, { kind: "annotate", config });
    const output = await answeredOffline(offline.id);
    const failed = JSON.parse(output[1]!) as { custom_id: string };
    output[1] = JSON.stringify({ id: "vllm-x", custom_id: failed.custom_id, response: { status_code: 400, request_id: "vllm-batch-x", body: null }, error: "The model does not support Chat Completions API" });
    expect(await importText(offline.id, output)).toMatchObject({ requests: output.length - 1, skipped: 1 });
    // Importing the same file again stores nothing twice.
    expect(await importText(offline.id, output)).toMatchObject({ requests: 0, samples: 0, skipped: output.length });

    const remaining = [];
    for await (const line of batchRequestLines(db, offline.id, UNIT_RUN_KINDS)) remaining.push(line.custom_id);
    expect(remaining).toEqual([failed.custom_id]);

    const before = serverRequests();
    await executeRun(db, offline.id, UNIT_RUN_KINDS, { endpoints });
    expect(serverRequests()).toBe(before + 1);
    const a = await annotationOf(db, online.id);
    const b = await annotationOf(db, offline.id);
    expect(b.status).toBe("completed");
    expect(b.labels).toEqual(a.labels);
    expect(b.rollouts).toEqual(a.rollouts);
    await expect(importText(offline.id, output)).rejects.toThrow(/is completed/);
  });

  describe("a malformed output file is rejected with its line and field, and stores nothing", () => {
    let runId: string;
    let output: string[];
    beforeAll(async () => {
      const run = await createRun(database.db, { kind: "annotate", config: annotateConfig({ limit: 2 }) });
      runId = run.id;
      output = await answeredOffline(runId);
    });
    /** The fields of an output line that the cases below edit. */
    interface OutputLine {
      custom_id?: string;
      response: { body: { choices: Array<{ message?: unknown }> } };
    }
    const edited = (line: number, edit: (value: OutputLine) => void) => {
      const lines = [...output];
      const value = JSON.parse(lines[line - 1]!) as OutputLine;
      edit(value);
      lines[line - 1] = JSON.stringify(value);
      return lines;
    };
    const cases: Array<[string, () => string[], RegExp | (() => RegExp)]> = [
      ["a line that is not JSON", () => output.map((l, i) => (i === 1 ? l.slice(0, -5) : l)), /^bad\.jsonl:2: not valid JSON/],
      ["an unknown custom_id", () => edited(3, (v) => (v.custom_id = `annotate:${runId}:nosuchsegmentation:0:0-3`)), /^bad\.jsonl:3, field "custom_id": segmentation nosuchsegmentation is not one of run/],
      ["a custom_id not written by an export", () => edited(2, (v) => (v.custom_id = "request-1")), /^bad\.jsonl:2, field "custom_id": "request-1" is not a request id/],
      ["a prefix beyond the solution", () => edited(1, (v) => (v.custom_id = v.custom_id!.replace(/:\d+:0-3$/, ":99:0-3"))), /^bad\.jsonl:1, field "custom_id": prefix length 99 does not exist/],
      ["a wrong number of choices", () => edited(1, (v) => v.response.body.choices.pop()), /^bad\.jsonl:1, field "response\.body\.choices": 3 choices, but the request asked for n = 4/],
      ["a choice without its message", () => edited(2, (v) => delete v.response.body.choices[0]!.message), /^bad\.jsonl:2, field "response\.body\.choices\.0\.message"/],
      ["a line without custom_id", () => edited(2, (v) => delete v.custom_id), /^bad\.jsonl:2, field "custom_id"/],
      ["a duplicate custom_id", () => [...output, output[0]!], () => new RegExp(`^bad\\.jsonl:${output.length + 1}, field "custom_id": custom_id ".*" appears twice \\(first on line 1\\)`)],
      ["another run's request", () => edited(2, (v) => (v.custom_id = v.custom_id!.replace(runId, "otherrun"))), /^bad\.jsonl:2, field "custom_id": the request belongs to run otherrun, not to run/],
    ];
    for (const [name, lines, message] of cases) {
      it(name, async () => {
        const { db } = database;
        const before = { rollouts: await db.rollout.count(), run: await db.run.findUniqueOrThrow({ where: { id: runId } }) };
        await expect(importText(runId, lines(), "bad.jsonl")).rejects.toThrow(typeof message === "function" ? message() : message);
        expect(await db.rollout.count()).toBe(before.rollouts);
        const after = await db.run.findUniqueOrThrow({ where: { id: runId } });
        expect({ requests: after.requests, completionTokens: after.completionTokens }).toEqual({ requests: before.run.requests, completionTokens: before.run.completionTokens });
      });
    }
  });

  it("refuses run kinds other than annotate and judge", async () => {
    const { db } = database;
    const run = await db.run.create({ data: { kind: "generate", config: {} } });
    const lines = batchRequestLines(db, run.id, UNIT_RUN_KINDS);
    await expect(lines.next()).rejects.toThrow("batch execution supports annotate and judge runs");
  });

  it("as jobs: the batch file is an export run's stored file, the output an import run that queues the offline run; labels equal the online run's", async () => {
    const { db } = database;
    const queue = await connectJobQueue(database.url);
    try {
      const config = annotateConfig({ seed: 11 });
      const online = await createAndExecuteRun(db, { kind: "annotate", config }, { endpoints });
      const offline = await createRun(db, { kind: "annotate", config: { ...config, policyEndpoint: "policy-offline" } });

      const exportRun = await submitExport(db, queue, { spec: { kind: "batch-requests", runId: offline.id } });
      await runExport(db, exportRun.id);
      const exported = await db.run.findUniqueOrThrow({ where: { id: exportRun.id } });
      expect(exported.status, exported.error ?? "").toBe("completed");
      const [file] = await db.storedFile.findMany({ where: { producedByRunId: exportRun.id } });
      async function* requestLines() {
        let text = "";
        for await (const part of readStoredFile(db, file!.id)) text += new TextDecoder().decode(part);
        yield* text.trim().split("\n");
      }
      const output: string[] = [];
      for await (const line of runBatch({ input: requestLines(), baseUrl: cluster.urls[0]!, concurrency: 16 })) output.push(JSON.stringify(line));
      expect(output).toHaveLength((exported.summary as { report: { requests: number } }).report.requests);

      const upload = await storeFile(db, { fileName: "results.jsonl", purpose: "upload" }, [new TextEncoder().encode(`${output.join("\n")}\n`)]);
      const importRun = await submitBatchOutputImport(db, queue, { fileId: upload.id, runId: offline.id });
      await runImport(db, importRun.id, { queue });
      const imported = await db.run.findUniqueOrThrow({ where: { id: importRun.id } });
      expect(imported.status, imported.error ?? "").toBe("completed");
      expect(imported.summary).toMatchObject({ targetRunId: offline.id, requests: output.length, skipped: 0 });
      // The import queued the offline run for the workers.
      const queued = await queue.fetch("run", { batchSize: 10 });
      expect(queued?.map((job) => (job.data as { runId: string }).runId)).toContain(offline.id);

      await executeSendingNothing(offline.id);
      const a = await annotationOf(db, online.id);
      const b = await annotationOf(db, offline.id);
      expect(b.status).toBe("completed");
      expect(b.labels).toEqual(a.labels);
      expect(b.values).toEqual(a.values);
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
  });
});
