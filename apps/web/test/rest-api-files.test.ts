import { createHash } from "node:crypto";
import { appRouter, REST_OPERATIONS } from "@stepwiser/api";
import { can, type UserRole } from "@stepwiser/core";
import { runExport, runImport } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startHarness, type Harness } from "./route-harness";
import { errorOf, restClient, type RestClient } from "./rest-client";

/*
 * The REST API's file, import, export, endpoint and annotation-queue
 * operations through the real catch-all route on a test database, as a script
 * without database credentials uses them: upload a file, import it, export a
 * training set from the labels it brought and download the files. The queued
 * runs are worked here, in this process (runImport, runExport), as a worker
 * would. Every answer is checked against the served OpenAPI document.
 */

type Json = Record<string, unknown>;

/** The tags of the operations this file covers; rest-api.test.ts covers the others. */
const TAGS_HERE = ["files", "imports", "exports", "endpoints", "annotation-queues"];
const ENDPOINT_KEY = "sk-rest-SECRET-5e0b7c1d";
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** Generic JSONL: `count` solutions of five steps with hard labels (three +, two -); line `badLine` has its steps as a string. */
function labelledJsonl(count: number, badLine: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    const steps = [`Start ${i}.`, "Add two.", "Check it.", "Slip.", `The answer is ${i + 3}.`];
    lines.push(JSON.stringify({ uid: `r-${i}`, question: `What is ${i} + 2?`, steps: i === badLine ? "not an array" : steps, labels: steps.map((_, k) => (k < 3 ? "+" : "-")) }));
  }
  return `${lines.join("\n")}\n`;
}

describe("REST API: uploads, imports, exports, file downloads, endpoints and annotation queues", () => {
  let harness: Harness;
  let client: RestClient;
  let readToken: string;
  const content = labelledJsonl(8, 5);
  let uploaded: { fileId: string; fileName: string; sizeBytes: number; sha256: string };
  let importRunId: string;
  let datasetId: string;
  let exportRunId: string;

  beforeAll(async () => {
    harness = await startHarness(inject("postgresAdminUrl"));
    client = await restClient(harness);
    const { db } = harness.database;
    await db.endpoint.create({
      data: { name: "rest-judge", model: "judge-7b", role: "judge", baseUrls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"], maxConcurrency: 8, apiKey: ENDPOINT_KEY, promptPricePerMTokens: 0.2, completionPricePerMTokens: 0.6 },
    });
    const caller = appRouter.createCaller({ db, user: harness.users.get("researcher")!, getQueue: async () => Promise.reject(new Error("no job queue here")) });
    readToken = (await caller.token.create({ name: "read script", scope: "read" })).token;
  });
  afterAll(async () => {
    await harness?.close();
  });

  const api = (...args: Parameters<RestClient["api"]>) => client.api(...args);
  const researcherCaller = () => appRouter.createCaller({ db: harness.database.db, user: harness.users.get("researcher")!, getQueue: async () => Promise.reject(new Error("no job queue here")) });

  it("uploads raw bytes (201, stored under its base name with its size and SHA-256), imports them, and the worked run makes the dataset", async () => {
    const upload = await api("POST", `/uploads?fileName=${encodeURIComponent("../scripts/rest set.jsonl")}`, { bytes: content });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    uploaded = upload.body as typeof uploaded;
    expect(uploaded).toMatchObject({ fileName: "rest set.jsonl", sizeBytes: Buffer.byteLength(content), sha256: sha256(content) });

    const started = await api("POST", "/imports", {
      body: { format: "jsonl", fileIds: [uploaded.fileId], name: "REST import", map: "problem=question,steps=steps,labels=labels,labelKind=hard,id=uid", onInvalid: "skip", maxInvalidShare: 0.2 },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runs = (started.body as { runs: Json[] }).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: "import", status: "queued" });
    importRunId = runs[0]!.id as string;
    const queued = await harness.database.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = $1`, importRunId);
    expect(queued[0]!.n).toBe(1);

    await runImport(harness.database.db, importRunId);
    const run = (await api("GET", `/runs/${importRunId}`, { role: "viewer" })).body as Json;
    expect(run).toMatchObject({ id: importRunId, status: "completed" });
    datasetId = run.datasetId as string;
    const datasets = (await api("GET", "/datasets", { role: "viewer" })).body as { items: Json[] };
    expect(datasets.items).toEqual([expect.objectContaining({ id: datasetId, name: "REST import", solutionCount: 7, importRunId })]);

    // The record left out (line 5) is in the run's report, as JSON Lines.
    const report = await api("GET", `/imports/${importRunId}/report`, { role: "viewer" });
    expect(report.status).toBe(200);
    expect(report.lines).toEqual([expect.objectContaining({ file: "rest set.jsonl", line: 5, record: 4, field: "steps", kind: "invalid" })]);
  });

  it("exports a training set from the imported labels (201, an export run), refuses its files until it has completed (409), then lists them and downloads each byte-exact", async () => {
    const options = { labelRule: { rule: "abs-q", evidence: "own-prefix" }, format: "trl", seed: 3, heldOutFraction: 0.25 };
    const started = await api("POST", "/exports", { body: { kind: "training-set", runId: importRunId, options } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    exportRunId = (started.body as Json).id as string;
    expect(started.body).toMatchObject({ kind: "export", status: "queued", config: { export: { kind: "training-set", annotateRunId: importRunId, format: "trl", seed: 3 } } });
    const early = await api("GET", `/exports/${exportRunId}/files`);
    expect(early.status).toBe(409);
    expect(errorOf(early)).toMatchObject({ code: "CONFLICT" });
    expect(errorOf(early).message).toContain("queued");

    await runExport(harness.database.db, exportRunId);
    expect(((await api("GET", `/runs/${exportRunId}`)).body as Json).status).toBe("completed");
    const listed = await api("GET", `/exports/${exportRunId}/files`, { role: "viewer" });
    expect(listed.status).toBe(200);
    const files = (listed.body as { files: Array<{ fileId: string; name: string; sizeBytes: number; sha256: string }> }).files;
    const stored = await harness.database.db.storedFile.findMany({ where: { producedByRunId: exportRunId }, orderBy: { fileName: "asc" } });
    expect(files.map((f) => f.name)).toEqual(stored.map((f) => f.fileName));
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const download = await api("GET", `/files/${file.fileId}`);
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe("application/octet-stream");
      expect(download.headers.get("content-disposition")).toContain(`filename="${file.name}"`);
      expect(download.bytes!.byteLength).toBe(file.sizeBytes);
      expect(sha256(download.bytes!)).toBe(file.sha256);
    }
    // The upload downloads as it was sent.
    const original = await api("GET", `/files/${uploaded.fileId}`, { token: readToken });
    expect(Buffer.from(original.bytes!).toString("utf8")).toBe(content);
  });

  it("lists the endpoints with their URLs and prices and never a key", async () => {
    const listed = await api("GET", "/endpoints", { role: "viewer" });
    expect(listed.status).toBe(200);
    expect((listed.body as { endpoints: Json[] }).endpoints).toEqual([
      expect.objectContaining({
        name: "rest-judge",
        model: "judge-7b",
        role: "judge",
        urls: ["http://gpu-1:8000/v1", "http://gpu-2:8000/v1"],
        maxConcurrency: 8,
        hasApiKey: true,
        prices: { promptPerMTokens: 0.2, cachedPromptPerMTokens: null, completionPerMTokens: 0.6 },
      }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(ENDPOINT_KEY);
    expect(JSON.stringify(listed.body)).not.toContain("apiKey");
  });

  it("lists and reads annotation queues (an annotator: member queues only, no agreement) and downloads a queue's human labels as JSON Lines", async () => {
    const researcher = researcherCaller();
    const annotator = harness.users.get("annotator")!;
    const selection = { kind: "filter" as const, filter: { datasetId }, limit: 2 };
    const { queueId } = await researcher.annotationQueue.createQueue({ name: "REST queue", datasetId, segmentationMethod: "source-steps", selection, annotatorIds: [annotator.id] });
    const { queueId: otherId } = await researcher.annotationQueue.createQueue({ name: "Closed queue", datasetId, segmentationMethod: "source-steps", selection });
    const asAnnotator = appRouter.createCaller({ db: harness.database.db, user: annotator, getQueue: async () => Promise.reject(new Error("no job queue here")) });
    const view = await asAnnotator.annotationQueue.next({ queueId });
    if (!view) throw new Error("the queue handed out no item");
    await asAnnotator.annotationQueue.submit({ assignmentId: view.assignmentId, labels: view.chunks.map((c) => ({ chunkId: c.id, rating: c.index < 3 ? 1 : -1 })) });

    const listed = await api("GET", "/annotation-queues", { role: "viewer" });
    expect(listed.status).toBe(200);
    const queues = (listed.body as { queues: Json[] }).queues;
    expect(queues.map((q) => q.id).sort()).toEqual([queueId, otherId].sort());
    expect(queues.find((q) => q.id === queueId)).toMatchObject({ name: "REST queue", datasetId, datasetName: "REST import", items: 2, annotatorsPerItem: 1, progress: { completedItems: 1, submissions: 1, fraction: 0.5 } });
    const mine = (await api("GET", "/annotation-queues", { role: "annotator" })).body as { queues: Json[] };
    expect(mine.queues.map((q) => q.id)).toEqual([queueId]);
    expect(mine.queues[0]!.datasetName).toBeNull();

    const read = await api("GET", `/annotation-queues/${queueId}`);
    expect(read.status).toBe(200);
    const queue = read.body as { progress: { annotators: Json[] }; agreement: Json | null };
    expect(queue.progress.annotators).toEqual([expect.objectContaining({ userId: annotator.id, submitted: 1 })]);
    expect(queue.agreement).toMatchObject({ scheme: "rating", ratedUnits: view.chunks.length });
    const annotatorRead = await api("GET", `/annotation-queues/${queueId}`, { role: "annotator" });
    expect(annotatorRead.status).toBe(200);
    expect((annotatorRead.body as Json).agreement).toBeNull();
    expect((await api("GET", `/annotation-queues/${otherId}`, { role: "annotator" })).status).toBe(404);
    expect((await api("GET", "/annotation-queues/no-such-queue")).status).toBe(404);

    const labels = await api("GET", `/annotation-queues/${queueId}/labels`);
    expect(labels.status).toBe(200);
    expect(labels.lines).toHaveLength(view.chunks.length);
    expect(labels.lines.map((l) => (l as Json).rating)).toEqual(view.chunks.map((c) => (c.index < 3 ? 1 : -1)));
    expect(labels.lines.every((l) => (l as Json).author_id === annotator.id && (l as Json).queue_id === queueId)).toBe(true);
    expect((await api("GET", "/annotation-queues/no-such-queue/labels")).status).toBe(404);
  });

  it("refuses bad input with 400 naming the field, an oversized or binary upload with 413 and 415, and stores nothing of a refused upload", async () => {
    const files = await harness.database.db.storedFile.count();
    const cases: Array<[string, Promise<{ status: number; body: unknown }>, string]> = [
      ["upload without a name", api("POST", "/uploads", { bytes: content }), "fileName"],
      ["upload of nothing", api("POST", "/uploads?fileName=empty.jsonl", { bytes: "" }), "body"],
      ["import of an unknown format", api("POST", "/imports", { body: { format: "csv", fileIds: [uploaded.fileId] } }), "format"],
      ["import without files", api("POST", "/imports", { body: { format: "jsonl", fileIds: [] } }), "fileIds"],
      ["import of a file that is no upload", api("POST", "/imports", { body: { format: "processbench", fileIds: [uploaded.fileId, "no-such-file"] } }), "fileIds.1"],
      ["import with a bad mapping", api("POST", "/imports", { body: { format: "jsonl", fileIds: [uploaded.fileId], map: "problem=question,colour=red" } }), "map"],
      ["import of jsonl without a mapping", api("POST", "/imports", { body: { format: "jsonl", fileIds: [uploaded.fileId] } }), "map"],
      ["import with both a name and a dataset", api("POST", "/imports", { body: { format: "processbench", fileIds: [uploaded.fileId], name: "x", datasetId } }), "name"],
      ["import with an unknown option", api("POST", "/imports", { body: { format: "processbench", fileIds: [uploaded.fileId], dataset: "x" } }), "dataset"],
      ["export of an unknown kind", api("POST", "/exports", { body: { kind: "tarball", runId: importRunId } }), "kind"],
      ["export of a run that does not exist", api("POST", "/exports", { body: { kind: "labels", runId: "no-such-run" } }), "runId"],
      ["training set in an unknown format", api("POST", "/exports", { body: { kind: "training-set", runId: importRunId, options: { labelRule: { rule: "abs-q" }, format: "csv" } } }), "options.format"],
      ["training set under a rule the run has no labels of", api("POST", "/exports", { body: { kind: "training-set", runId: importRunId, options: { labelRule: { rule: "rel-ratio", gamma: 0.7 }, format: "trl" } } }), "options.labelRule"],
      ["labels export with an option it does not take", api("POST", "/exports", { body: { kind: "labels", runId: importRunId, options: { seed: 1 } } }), "options.seed"],
      ["export naming its run in options", api("POST", "/exports", { body: { kind: "labels", runId: importRunId, options: { runId: importRunId } } }), "options.runId"],
      ["a query parameter the operation does not take", api("GET", `/exports/${exportRunId}/files?full=1`), "full"],
    ];
    for (const [what, answer, field] of cases) {
      const { status, body } = await answer;
      expect(status, `${what}: ${JSON.stringify(body)}`).toBe(400);
      expect((body as { error: { code: string; field?: string } }).error, what).toMatchObject({ code: "BAD_REQUEST", field });
    }
    expect(errorOf(await api("POST", "/exports", { body: { kind: "labels", runId: importRunId, options: { seed: 1 } } })).message).toContain("is not an option of a labels export (its options: none)");
    expect((await api("GET", "/exports/no-such-run/files")).status).toBe(404);
    expect((await api("GET", `/exports/${importRunId}/files`)).status).toBe(404);
    expect((await api("GET", "/files/no-such-file")).status).toBe(404);
    expect((await api("GET", `/imports/${exportRunId}/report`)).status).toBe(404);

    // An upload past the cap is refused unread when it says so (Content-Length), and while it streams when it does not.
    const declared = await api("POST", "/uploads?fileName=big.jsonl", { bytes: "x".repeat(64), headers: { "content-length": String(9 * 1024 ** 3) } });
    expect(declared.status).toBe(413);
    expect(errorOf(declared)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(errorOf(declared).message).toContain("big.jsonl is larger than the upload limit of 8,589,934,592 bytes");
    const binary = await api("POST", "/uploads?fileName=data.jsonl.gz", { bytes: new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00]) });
    expect(binary.status).toBe(415);
    expect(errorOf(binary)).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    expect(errorOf(binary).message).toContain("data.jsonl.gz is not a text file");
    expect(await harness.database.db.storedFile.count()).toBe(files);
  });

  it("refuses each new operation without a token (401), for a role without its capability (403), and a read-only token on every state change (403)", async () => {
    const examples: Record<string, { path: string; body?: unknown; bytes?: string }> = {
      "GET /endpoints": { path: "/endpoints" },
      "POST /uploads": { path: "/uploads?fileName=probe.jsonl", bytes: '{"probe":true}\n' },
      "POST /imports": { path: "/imports", body: { format: "jsonl", fileIds: [uploaded.fileId], map: "problem=question,steps=steps" } },
      "GET /imports/{id}/report": { path: `/imports/${importRunId}/report` },
      "POST /exports": { path: "/exports", body: { kind: "labels", runId: importRunId } },
      "GET /exports/{id}/files": { path: `/exports/${exportRunId}/files` },
      "GET /files/{id}": { path: `/files/${uploaded.fileId}` },
      "GET /annotation-queues": { path: "/annotation-queues" },
      "GET /annotation-queues/{id}": { path: "/annotation-queues/no-such-queue" },
      "GET /annotation-queues/{id}/labels": { path: "/annotation-queues/no-such-queue/labels" },
    };
    const newOperations = REST_OPERATIONS.filter((op) => TAGS_HERE.includes(op.tag));
    expect(newOperations.map((op) => `${op.method} ${op.path}`).sort()).toEqual(Object.keys(examples).sort());
    const runsBefore = await harness.database.db.run.count();
    const filesBefore = await harness.database.db.storedFile.count();
    for (const op of newOperations) {
      const example = examples[`${op.method} ${op.path}`]!;
      const send = (options: { role?: UserRole | null; token?: string }) => api(op.method, example.path, { ...options, body: example.body, bytes: example.bytes });
      const anonymous = await send({ role: null });
      expect(anonymous.status, `${op.id} anonymous`).toBe(401);
      expect(errorOf(anonymous).code).toBe("UNAUTHORIZED");
      const lacking = (["annotator", "viewer"] as const).find((role) => !can(role, op.access));
      if (lacking) {
        const refused = await send({ role: lacking });
        expect(refused.status, `${op.id} as ${lacking}`).toBe(403);
        expect(errorOf(refused).message).toContain(op.access);
      }
      if (op.method === "POST") {
        const readOnly = await send({ token: readToken });
        expect(readOnly.status, `${op.id} with a read token`).toBe(403);
        expect(errorOf(readOnly).message).toMatch(/read scope and cannot change anything/);
      }
    }
    expect(await harness.database.db.run.count()).toBe(runsBefore);
    expect(await harness.database.db.storedFile.count()).toBe(filesBefore);
  });

  it("the document describes every new operation: its parameters, JSON or raw request body, and success answer", () => {
    for (const op of REST_OPERATIONS.filter((o) => TAGS_HERE.includes(o.tag))) {
      const described = client.document.paths[op.path]![op.method.toLowerCase()]!;
      const success = described.responses[String(op.status)]!.content!;
      if (op.response === "bytes") expect(Object.keys(success), op.id).toEqual(["application/octet-stream"]);
      else expect(Object.keys(success), op.id).toEqual([op.response === "jsonl" ? "application/x-ndjson" : "application/json"]);
      if (op.body === "bytes") expect(Object.keys(described.requestBody!.content), op.id).toEqual(["application/octet-stream"]);
      else if (op.body) expect(Object.keys(described.requestBody!.content), op.id).toEqual(["application/json"]);
      else expect(described.requestBody, op.id).toBeUndefined();
    }
    const importRequest = client.validatorOf("#/components/schemas/ImportRequest");
    expect(importRequest({ format: "jsonl", fileIds: ["f1"], map: { problem: "q", steps: "s" } }), JSON.stringify(importRequest.errors)).toBe(true);
    expect(importRequest({ format: "csv", fileIds: ["f1"] })).toBe(false);
    const exportRequest = client.validatorOf("#/components/schemas/ExportRequest");
    expect(exportRequest({ kind: "training-set", runId: "r1", options: { labelRule: { rule: "abs-q" }, format: "trl" } }), JSON.stringify(exportRequest.errors)).toBe(true);
    expect(exportRequest({ kind: "training-set", runId: "r1", options: { labelRule: { rule: "abs-q" }, format: "csv" } })).toBe(false);
    expect(exportRequest({ kind: "labels", runId: "r1", options: { seed: 1 } })).toBe(false);
  });

  it("every operation of this file's tags had its success answer checked against the document", () => {
    for (const op of REST_OPERATIONS.filter((o) => TAGS_HERE.includes(o.tag))) expect(client.covered, `${op.method} ${op.path}`).toContain(`${op.method} ${op.path} ${op.status}`);
  });
});

