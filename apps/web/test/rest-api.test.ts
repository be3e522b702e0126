import { Validator } from "@seriousme/openapi-schema-validator";
import { REST_OPERATIONS } from "@stepwiser/api";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { APP_ORIGIN, startHarness, type Harness } from "./route-harness";
import { errorOf, restClient, type OpenApiDocument, type RestClient } from "./rest-client";

/*
 * The REST API through the real route handlers (/api/v1/[...path] and
 * /api/openapi.json) on a test database holding a simulated-world dataset
 * with an annotate run and a judge run worked on the simulated cluster. Every
 * answer is checked against the response schema the OpenAPI document states
 * for its operation and status. The file, import, export, endpoint and queue
 * operations are rest-api-files.test.ts's.
 */

type Json = Record<string, unknown>;

/** The tags of the operations this file covers; rest-api-files.test.ts covers the others. */
const TAGS_HERE = ["runs", "datasets", "solutions"];

describe("REST API under /api/v1 and its OpenAPI document", () => {
  let harness: Harness;
  let cluster: SimCluster;
  let endpoints: EndpointClients;
  let client: RestClient;
  let document: OpenApiDocument;
  let datasetId: string;
  let annotateRunId: string;
  let judgeRunId: string;

  beforeAll(async () => {
    harness = await startHarness(inject("postgresAdminUrl"));
    const { db } = harness.database;
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    for (const [name, role] of [["sim-policy", "policy"], ["sim-judge-strong", "judge"]] as const) {
      await db.endpoint.create({ data: { name, model: name, role, baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    }
    endpoints = new EndpointClients();
    ({ datasetId } = await createSimWorldDataset(db, { name: "REST world", problems: 3, solutionsPerProblem: 2, seed: 11 }));
    annotateRunId = (await createAndExecuteRun(db, { kind: "annotate", config: { datasetId, policyEndpoint: "sim-policy", rollouts: 4 } }, { endpoints })).id;
    judgeRunId = (
      await createAndExecuteRun(db, { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 2, temperature: 1 }, name: "Strong judge, K=2", tags: ["rest", "k2"] }, { endpoints })
    ).id;
    client = await restClient(harness);
    document = client.document;
  }, 120_000);
  afterAll(async () => {
    await endpoints?.close();
    await cluster?.stop();
    await harness?.close();
  });

  const api = (...args: Parameters<RestClient["api"]>) => client.api(...args);
  const validatorOf = (ref: string) => client.validatorOf(ref);

  it("the served document is valid OpenAPI 3.1 and describes every operation of the table", async () => {
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 1000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const doc = document as unknown as Json & { components: { securitySchemes: Json }; servers: Array<{ url: string }> };
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["bearer", "session"]);
    expect(doc.servers[0]!.url).toBe(`${APP_ORIGIN}/api/v1`);
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(REST_OPERATIONS.map((o) => `${o.method} ${o.path}`).sort());
    // Reading the document needs no one signed in (the request above sent no credentials).
  });

  it("a document that breaks OpenAPI 3.1 is refused by the same validator", async () => {
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, Json>> };
    delete (broken.paths["/runs"]!.get!.parameters as Json[])[0]!.in;
    expect((await new Validator().validate(broken as unknown as Record<string, unknown>)).valid).toBe(false);
  });

  it("lists runs newest first, filtered by kind, status and dataset, paged by limit and offset", async () => {
    const all = await api("GET", "/runs");
    expect(all.status).toBe(200);
    const page = all.body as { items: Array<Json>; nextOffset: number | null };
    expect(page.items.map((r) => r.id)).toEqual([judgeRunId, annotateRunId]);
    expect(page.nextOffset).toBeNull();
    const judge = page.items[0]!;
    expect(typeof judge.promptTokens).toBe("number");
    expect(judge.promptTokens as number).toBeGreaterThan(0);
    expect(new Date(judge.createdAt as string).toISOString()).toBe(judge.createdAt);

    const judges = (await api("GET", `/runs?kind=judge&status=completed&datasetId=${datasetId}`)).body as { items: Array<Json> };
    expect(judges.items.map((r) => r.id)).toEqual([judgeRunId]);
    expect(((await api("GET", "/runs?status=running")).body as { items: unknown[] }).items).toEqual([]);
    expect(((await api("GET", "/runs?datasetId=elsewhere")).body as { items: unknown[] }).items).toEqual([]);

    const first = (await api("GET", "/runs?limit=1")).body as { items: Array<Json>; nextOffset: number | null };
    expect(first.items.map((r) => r.id)).toEqual([judgeRunId]);
    expect(first.nextOffset).toBe(1);
    const second = (await api("GET", `/runs?limit=1&offset=${first.nextOffset}`)).body as { items: Array<Json>; nextOffset: number | null };
    expect(second.items.map((r) => r.id)).toEqual([annotateRunId]);
    expect(second.nextOffset).toBeNull();

    // The Runs page's filters: part of the name (any case), a tag, a model; each run with its dataset, models and cost.
    const byName = (await api("GET", "/runs?search=STRONG%20judge")).body as { items: Array<Json>; total: number };
    expect(byName.items.map((r) => r.id)).toEqual([judgeRunId]);
    expect(byName.total).toBe(1);
    expect(byName.items[0]).toMatchObject({ name: "Strong judge, K=2", tags: ["rest", "k2"], models: [{ role: "judge", model: "sim-judge-strong" }], cost: { usd: null } });
    expect(((await api("GET", "/runs?tag=k2")).body as { items: Array<Json> }).items.map((r) => r.id)).toEqual([judgeRunId]);
    expect(((await api("GET", "/runs?tag=K2")).body as { items: unknown[] }).items).toEqual([]);
    expect(((await api("GET", "/runs?model=sim-policy")).body as { items: Array<Json> }).items.map((r) => r.id)).toEqual([annotateRunId]);
    expect(((await api("GET", "/runs?search=annotate")).body as { items: Array<Json> }).items.map((r) => r.id)).toEqual([annotateRunId]);

    const badLimit = await api("GET", "/runs?limit=0");
    expect(badLimit.status).toBe(400);
    expect(errorOf(badLimit)).toMatchObject({ code: "BAD_REQUEST", field: "limit" });
    const badKind = await api("GET", "/runs?kind=painting");
    expect(errorOf(badKind)).toMatchObject({ code: "BAD_REQUEST", field: "kind" });
    const unknown = await api("GET", "/runs?lmit=5");
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).message).toContain("lmit");
  });

  it("sorts runs on the server by a result column and leaves data jobs out unless asked", async () => {
    const { db } = harness.database;
    const ids = async (query: string) => ((await api("GET", `/runs${query}`)).body as { items: Array<Json> }).items.map((r) => r.id);
    // Each figure written when the run finished; a run of another kind has none and comes last, in either order.
    expect(await ids("?sort=negativeShare&order=desc")).toEqual([judgeRunId, annotateRunId]);
    expect(await ids("?sort=negativeShare&order=asc")).toEqual([judgeRunId, annotateRunId]);
    expect(await ids("?sort=labelBalance")).toEqual([annotateRunId, judgeRunId]);
    expect(await ids("?sort=mcAgreement&order=asc")).toEqual([judgeRunId, annotateRunId]);
    const items = ((await api("GET", "/runs?sort=duration")).body as { items: Array<Json & { results: Json; durationSeconds: number | null }> }).items;
    const verdicts = await db.judgeSample.groupBy({ by: ["verdict"], where: { runId: judgeRunId }, _count: { _all: true } });
    const count = (verdict: string) => verdicts.find((v) => v.verdict === verdict)?._count._all ?? 0;
    const judge = items.find((r) => r.id === judgeRunId)!;
    expect(judge.results.negativeShare).toBeCloseTo(count("Negative") / (count("Negative") + count("Positive")), 12);
    expect(judge.durationSeconds).toBeGreaterThanOrEqual(0);
    // Measured against the annotate run launched before it, under that run's first label rule.
    const stored = await db.run.findUniqueOrThrow({ where: { id: judgeRunId }, select: { mcAgreement: true } });
    expect(stored.mcAgreement).not.toBeNull();
    expect(judge.results.mcAgreement).toEqual({ value: stored.mcAgreement, run: { id: annotateRunId, name: expect.any(String) }, rule: "abs-q(evidence=own-prefix)" });
    // The annotate run's first label rule is the paper's first default, Abs-Q on each chunk's own prefix.
    const labels = await db.chunkLabel.groupBy({ by: ["label"], where: { runId: annotateRunId, rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' }, _count: { _all: true }, _avg: { confidence: true } });
    const positive = labels.find((l) => l.label === "Positive")?._count._all ?? 0;
    const annotate = items.find((r) => r.id === annotateRunId)!;
    expect(annotate.results).toMatchObject({ rule: expect.stringMatching(/^abs-q/), negativeShare: null, averageF1: null, mcAgreement: null });
    expect(annotate.results.labelBalance).toBeCloseTo(positive / labels.reduce((n, l) => n + l._count._all, 0), 12);
    expect(annotate.results.meanConfidence).not.toBeNull();

    const imported = await db.run.create({ data: { kind: "import", status: "completed", config: {}, name: "a data job" } });
    try {
      expect(await ids("")).not.toContain(imported.id);
      expect(await ids("?includeDataJobs=true")).toContain(imported.id);
      expect(await ids("?kind=import")).toEqual([imported.id]);
      expect(errorOf(await api("GET", "/runs?includeDataJobs=yes"))).toMatchObject({ code: "BAD_REQUEST", field: "includeDataJobs" });
    } finally {
      await db.run.delete({ where: { id: imported.id } });
    }
    const badSort = await api("GET", "/runs?sort=speed");
    expect(badSort.status).toBe(400);
    expect(errorOf(badSort)).toMatchObject({ code: "BAD_REQUEST", field: "sort" });
  });

  it("gets one run with its configuration and summary; an unknown id is a 404", async () => {
    const run = await api("GET", `/runs/${annotateRunId}`, { role: "viewer" });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ id: annotateRunId, kind: "annotate", status: "completed", datasetId, config: { rollouts: 4 } });
    expect((run.body as Json).summary).not.toBeNull();
    const missing = await api("GET", "/runs/no-such-run");
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ code: "NOT_FOUND", message: "run no-such-run does not exist" });
  });

  it("launches a run (201), refuses bad configurations by field, cancels and resumes it", async () => {
    const launched = await api("POST", "/runs", { body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 1 } } });
    expect(launched.status, JSON.stringify(launched.body)).toBe(201);
    const run = launched.body as Json;
    expect(run).toMatchObject({ kind: "judge", status: "queued", datasetId });
    const queuedJob = await harness.database.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = $1`, run.id);
    expect(queuedJob[0]!.n).toBe(1);

    const offline = await api("POST", "/runs", { body: { kind: "annotate", offline: true, config: { datasetId, policyEndpoint: "sim-policy", rollouts: 2 } } });
    expect(offline.status).toBe(201);
    const offlineJobs = await harness.database.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'runId' = $1`, (offline.body as Json).id);
    expect(offlineJobs[0]!.n).toBe(0);
    const offlineGenerate = await api("POST", "/runs", { body: { kind: "generate", offline: true, config: {} } });
    expect(offlineGenerate.status).toBe(400);
    expect(errorOf(offlineGenerate).message).toContain("offline execution supports");

    // The document describes each kind's configuration: the bodies sent here are what it accepts and refuses.
    const launchRequest = validatorOf("#/components/schemas/LaunchRequest");
    expect(launchRequest({ kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 1 } }), JSON.stringify(launchRequest.errors)).toBe(true);
    expect(launchRequest({ kind: "annotate", offline: true, config: { datasetId, policyEndpoint: "sim-policy", rollouts: 2 } })).toBe(true);
    expect(launchRequest({ kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: "many" } })).toBe(false);
    expect(launchRequest({ kind: "judge", config: { datasetId } })).toBe(false);
    expect(launchRequest({ kind: "painting", config: {} })).toBe(false);

    // The README's example: K = 2 votes at temperature 1 launches; at temperature 0 the refusal names config.temperature and says why.
    const readme = await api("POST", "/runs", { body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 2, temperature: 1 } } });
    expect(readme.status, JSON.stringify(readme.body)).toBe(201);
    const greedyVotes = await api("POST", "/runs", { body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 2, temperature: 0 } } });
    expect(greedyVotes.status).toBe(400);
    expect(errorOf(greedyVotes)).toEqual({
      code: "BAD_REQUEST",
      field: "config.samples",
      message:
        'field "config.samples": config.samples is 2 but config.temperature is 0: the 2 samples would be identical; set config.temperature > 0 (ProcessBench voting: 1.0) or config.samples 1',
    });
    // Without a temperature, K > 1 samples at the protocol's voting temperature (stepwiser-chunk: 1), not greedily.
    const voting = await api("POST", "/runs", { body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: 2 } } });
    expect(voting.status, JSON.stringify(voting.body)).toBe(201);
    expect((voting.body as { config: Json }).config.temperature).toBe(1);
    await harness.database.db.run.deleteMany({ where: { id: { in: [(readme.body as Json).id as string, (voting.body as Json).id as string] } } });

    const badSamples = await api("POST", "/runs", { body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong", samples: "many" } } });
    expect(badSamples.status).toBe(400);
    expect(errorOf(badSamples).field).toBe("config.samples");
    const badKind = await api("POST", "/runs", { body: { kind: "painting", config: {} } });
    expect(errorOf(badKind)).toMatchObject({ code: "BAD_REQUEST", field: "kind" });
    const notJson = await api("POST", "/runs", { body: "{kind: judge" });
    expect(notJson.status).toBe(400);
    expect(errorOf(notJson).message).toContain("not JSON");
    const asViewer = await api("POST", "/runs", { role: "viewer", body: { kind: "judge", config: { datasetId, judgeEndpoint: "sim-judge-strong" } } });
    expect(asViewer.status).toBe(403);
    expect(errorOf(asViewer).message).toContain("research.manage");

    const cancelled = await api("POST", `/runs/${run.id as string}/cancel`);
    expect(cancelled.status).toBe(200);
    expect((cancelled.body as Json).cancelRequestedAt ?? (cancelled.body as Json).status).toBeTruthy();
    // Nothing runs here: a worker would stop it; mark it stopped as the worker does, then resume.
    await harness.database.db.run.update({ where: { id: run.id as string }, data: { status: "cancelled", finishedAt: new Date() } });
    const again = await api("POST", `/runs/${run.id as string}/cancel`);
    expect(again.status).toBe(400);
    expect(errorOf(again).message).toContain("only queued or running runs can be cancelled");
    const resumed = await api("POST", `/runs/${run.id as string}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ id: run.id, status: "queued", cancelRequestedAt: null });
    const completed = await api("POST", `/runs/${annotateRunId}/resume`);
    expect(completed.status).toBe(400);
    expect((await api("POST", "/runs/no-such-run/cancel")).status).toBe(404);
    expect((await api("POST", "/runs/no-such-run/resume")).status).toBe(404);
    await harness.database.db.run.deleteMany({ where: { id: { in: [run.id as string, (offline.body as Json).id as string] } } });
  });

  it("downloads an annotate run's labels and a judge run's predictions as JSON Lines", async () => {
    const { db } = harness.database;
    const labels = await api("GET", `/runs/${annotateRunId}/labels`, { role: "viewer" });
    expect(labels.status).toBe(200);
    const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect(labels.lines).toHaveLength(chunks);
    const line = labels.lines[0] as Json & { labels: unknown[] };
    expect(line.run_id).toBe(annotateRunId);
    expect(line.labels).toHaveLength(3);
    expect(typeof line.q_value).toBe("number");

    const predictions = await api("GET", `/runs/${judgeRunId}/predictions`);
    expect(predictions.status).toBe(200);
    expect(predictions.lines).toHaveLength(await db.solution.count({ where: { datasetId } }));
    const stats = await db.solutionRunStat.findMany({ where: { runId: judgeRunId }, select: { firstNegative: true, solution: { select: { externalId: true } } } });
    expect(new Map(predictions.lines.map((l) => [(l as Json).id, (l as Json).prediction]))).toEqual(new Map(stats.map((s) => [s.solution.externalId, s.firstNegative])));

    const wrongKind = await api("GET", `/runs/${judgeRunId}/labels`);
    expect(wrongKind.status).toBe(400);
    expect(errorOf(wrongKind)).toMatchObject({ field: "id" });
    expect(errorOf(await api("GET", `/runs/${annotateRunId}/predictions`)).message).toContain("predictions come from benchmark or judge runs");
    expect((await api("GET", "/runs/no-such-run/labels")).status).toBe(404);
  });

  it("lists datasets, a dataset's solutions (paged, filtered, with run stats) and one solution's chunks with Q-values, labels and verdicts", async () => {
    const { db } = harness.database;
    const datasets = (await api("GET", "/datasets", { role: "viewer" })).body as { items: Array<Json> };
    expect(datasets.items).toEqual([expect.objectContaining({ id: datasetId, name: "REST world", solutionCount: 6, problemCount: 3, status: "ready" })]);

    const first = await api("GET", `/datasets/${datasetId}/solutions?pageSize=4&annotateRunId=${annotateRunId}&judgeRunId=${judgeRunId}`);
    expect(first.status).toBe(200);
    const page = first.body as { items: Array<Json>; total: number; hasMore: boolean; pageCount: number };
    expect(page).toMatchObject({ total: 6, hasMore: true, pageCount: 2 });
    expect(page.items).toHaveLength(4);
    expect(page.items.every((s) => typeof s.qMin === "number" && typeof s.judgeFirstNegative === "number")).toBe(true);
    const rest = (await api("GET", `/datasets/${datasetId}/solutions?pageSize=4&page=2`)).body as { items: Array<Json>; hasMore: boolean };
    expect(rest.items).toHaveLength(2);
    expect(new Set([...page.items, ...rest.items].map((s) => s.id)).size).toBe(6);
    const wrong = ((await api("GET", `/datasets/${datasetId}/solutions?correct=false`)).body as { items: Array<Json> }).items;
    expect(wrong.every((s) => s.finalAnswerCorrect === false)).toBe(true);
    expect(wrong.length).toBe(await db.solution.count({ where: { datasetId, finalAnswerCorrect: false } }));
    const qWithoutRun = await api("GET", `/datasets/${datasetId}/solutions?qMin=0.2`);
    expect(errorOf(qWithoutRun)).toMatchObject({ code: "BAD_REQUEST", field: "qMin" });
    expect(errorOf(qWithoutRun).message).toContain("annotateRunId");
    expect(errorOf(await api("GET", `/datasets/${datasetId}/solutions?correct=maybe`))).toMatchObject({ field: "correct" });

    const noDataset = await api("GET", "/datasets/no-such-dataset/solutions");
    expect(noDataset.status).toBe(404);
    expect(errorOf(noDataset).message).toBe("dataset no-such-dataset does not exist");

    const solutionId = page.items[0]!.id as string;
    const chunks = await api("GET", `/solutions/${solutionId}/chunks`, { role: "viewer" });
    expect(chunks.status).toBe(200);
    const view = chunks.body as { id: string; runs: Array<Json>; segmentations: Array<{ chunks: Array<Json & { qValues: Json[]; labels: Json[]; verdicts: Json[] }> }> };
    expect(view.id).toBe(solutionId);
    expect(view.runs.map((r) => r.runId).sort()).toEqual([annotateRunId, judgeRunId].sort());
    const stored = await db.chunk.findMany({
      where: { segmentation: { solutionId: solutionId } },
      orderBy: { index: "asc" },
      select: { id: true, index: true, segmentationId: true, labels: { select: { id: true } }, judgeSamples: { select: { verdict: true } } },
    });
    const values = await db.chunkValue.findMany({ where: { runId: annotateRunId, segmentationId: stored[0]!.segmentationId } });
    const rows = view.segmentations[0]!.chunks;
    expect(rows.map((c) => c.id)).toEqual(stored.map((c) => c.id));
    for (const [i, row] of rows.entries()) {
      const value = values.find((v) => v.prefixLength === i + 1)!;
      expect(row.qValues).toEqual([{ runId: annotateRunId, qValue: value.qValue, rollouts: value.rolloutCount, correct: value.correctCount }]);
      expect(row.labels).toHaveLength(stored[i]!.labels.length);
      expect(row.verdicts.map((v) => v.verdict).sort()).toEqual(stored[i]!.judgeSamples.map((s) => s.verdict).sort());
      expect(row.verdicts).toHaveLength(2);
    }
    expect((await api("GET", "/solutions/no-such-solution/chunks")).status).toBe(404);
  });

  it("refuses the anonymous (401), roles without the capability (403), unknown API tokens (401) and cross-site cookie writes (403), in the error body", async () => {
    const anonymous = await api("GET", "/runs", { role: null });
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous).code).toBe("UNAUTHORIZED");
    const annotator = await api("GET", "/runs", { role: "annotator" });
    expect(annotator.status).toBe(403);
    expect(errorOf(annotator)).toMatchObject({ code: "FORBIDDEN" });
    expect(errorOf(annotator).message).toContain("research.read");
    const forged = await api("GET", "/runs", { role: null, headers: { authorization: "Bearer sw_not-a-real-token" } });
    expect(forged.status).toBe(401);

    const byCookie = await api("GET", "/datasets", { cookie: true });
    expect(byCookie.status).toBe(200);
    const crossSite = await api("POST", `/runs/${annotateRunId}/resume`, { cookie: true, headers: { origin: "https://attacker.example" } });
    expect(crossSite.status).toBe(403);
    expect(errorOf(crossSite).message).toContain("cross-site");
  });

  it("answers unknown paths with 404 and wrong methods with 405, in the error body", async () => {
    const nowhere = await api("GET", "/nowhere");
    expect(nowhere.status).toBe(404);
    expect(errorOf(nowhere).message).toContain("/api/openapi.json");
    const segments = ["runs", annotateRunId, "labels"];
    const wrongMethod = await harness.call(
      "/api/v1/[...path]",
      "POST",
      new Request(`${APP_ORIGIN}/api/v1/runs/${annotateRunId}/labels`, { method: "POST", headers: { authorization: `Bearer ${harness.tokens.get("researcher")}` } }),
      { path: segments },
    );
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_SUPPORTED");
  });

  it("every operation of this file's tags had its success answer checked against the document above", () => {
    for (const op of REST_OPERATIONS.filter((o) => TAGS_HERE.includes(o.tag))) expect(client.covered, `${op.method} ${op.path}`).toContain(`${op.method} ${op.path} ${op.status}`);
  });
});
