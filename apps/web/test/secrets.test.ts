import { createHash } from "node:crypto";
import { appRouter, REST_OPERATIONS } from "@stepwiser/api";
import { allows, type Access, type UserRole } from "@stepwiser/core";
import { createSimWorldDataset, isTerminal, startWorker, type RunningWorker } from "@stepwiser/jobs";
import { startSimClusterProcess, type ClusterProcess } from "@stepwiser/config/bench/processes";
import { verifyPassword } from "better-auth/crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { APP_ORIGIN, PASSWORD, startHarness, type Harness } from "./route-harness";

/*
 * Secrets stay secret: an endpoint's API key and every API token are searched
 * for in every answer the API gives (each read procedure as viewer, researcher
 * and admin, the mutations that touch them, the file and label downloads), in
 * the files exports write, and in every log line the web handlers and a real
 * worker print while a run uses the key against a simulated cluster that
 * demands it. Sign-in's rate limit is proven in packages/api/test/auth-rate-limit.test.ts.
 */

const ENDPOINT_KEY = "sk-live-SECRET-7d1f0c9a4b2e4f6a";
/** A rotated-out key the replicas refuse: its failures go through every error path (retries, failed units, run errors). */
const STALE_KEY = "sk-live-STALE-93b1e0d24c7a5f18";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { access?: Access } } };
const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures);

/** Everything written to stdout, stderr or the console while the suite runs, line by line. */
function captureLogs(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const record = (chunk: unknown) => lines.push(...String(chunk).split("\n").filter(Boolean));
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (record(chunk), stdout(chunk as string, ...(rest as [])))) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (record(chunk), stderr(chunk as string, ...(rest as [])))) as typeof process.stderr.write;
  const methods = ["log", "info", "warn", "error", "debug"] as const;
  const originals = methods.map((m) => console[m]);
  methods.forEach((method, i) => {
    console[method] = (...args: unknown[]) => {
      record(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      originals[i]!.apply(console, args);
    };
  });
  return {
    lines,
    restore() {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
      methods.forEach((method, i) => (console[method] = originals[i]!));
    },
  };
}

describe("secrets never leave the server: API answers, exports, logs", () => {
  let harness: Harness;
  let cluster: ClusterProcess;
  let worker: RunningWorker;
  let logs: ReturnType<typeof captureLogs>;
  let endpointId: string;
  let datasetId: string;
  let annotateRunId: string;
  let benchmarkRunId: string;
  let responsesSearched = 0;
  let exportFilesSearched = 0;
  let logLinesSearched = 0;

  /** The API tokens of every account, their hashes, and the endpoint key. */
  const secrets = () => [ENDPOINT_KEY, STALE_KEY, ...[...harness.tokens.values()].flatMap((token) => [token, sha256(token)])];
  const expectClean = (text: string, where: string) => {
    for (const secret of secrets()) expect(text.includes(secret), `${where} holds a secret (${secret.slice(0, 10)}…)`).toBe(false);
  };

  const trpc = async (role: UserRole, path: string, type: "query" | "mutation", input: unknown) => {
    const body = JSON.stringify({ json: input });
    const headers = { cookie: harness.cookies.get(role)!, origin: APP_ORIGIN, "content-type": "application/json" };
    const request =
      type === "query"
        ? new Request(`${APP_ORIGIN}/api/trpc/${path}?input=${encodeURIComponent(body)}`, { headers })
        : new Request(`${APP_ORIGIN}/api/trpc/${path}`, { method: "POST", headers, body });
    const response = await harness.call("/api/trpc/[trpc]", type === "query" ? "GET" : "POST", request, { trpc: path });
    const text = await response.text();
    responsesSearched++;
    expectClean(text, `${role} ${path}`);
    return { status: response.status, text, json: () => (JSON.parse(text) as { result: { data: { json: unknown } } }).result.data.json };
  };

  const waitForRun = async (runId: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const run = await harness.database.db.run.findUniqueOrThrow({ where: { id: runId } });
      if (isTerminal(run.status)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  beforeAll(async () => {
    logs = captureLogs();
    harness = await startHarness(inject("postgresAdminUrl"));
    // Replicas in a process of their own that, like vLLM started with --api-key, refuse any request without the key;
    // a few injected 5xx and 429 answers make the client retry and log, where a careless message would show headers.
    cluster = await startSimClusterProcess({ replicas: 2, timeScale: 500, apiKey: ENDPOINT_KEY, faults: { error5xxRate: 0.03, rateLimitRate: 0.02, retryAfterSeconds: 0 } });
    const { db } = harness.database;
    ({ datasetId } = await createSimWorldDataset(db, { name: "secrets", problems: 4, seed: 3 }));
    worker = await startWorker({ databaseUrl: harness.database.url, db, log: (line) => console.log(line), settings: { workerId: "secrets-worker" } });
  });
  afterAll(async () => {
    await worker?.stop();
    await cluster?.stop();
    logs?.restore();
    process.stderr.write(
      `secrets: 2 endpoint keys and ${harness?.tokens.size ?? 0} API tokens (and their hashes) searched in ${responsesSearched} API responses, ${exportFilesSearched} export files and ${logLinesSearched} log lines; none found\n`,
    );
    await harness?.close();
  });

  it("an admin stores an endpoint key that no answer returns, only whether one is set", async () => {
    const created = await trpc("admin", "endpoint.create", "mutation", {
      name: "policy",
      model: "sim-policy",
      role: "policy",
      baseUrls: [...cluster.urls],
      maxConcurrency: 16,
      apiKey: ENDPOINT_KEY,
    });
    expect(created.status).toBe(200);
    endpointId = (created.json() as { id: string }).id;
    expect(created.json()).toMatchObject({ hasApiKey: true });
    const judge = await trpc("admin", "endpoint.create", "mutation", { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: [...cluster.urls], maxConcurrency: 16, apiKey: ENDPOINT_KEY });
    expect(judge.status).toBe(200);
    expect((await trpc("admin", "endpoint.update", "mutation", { id: endpointId, maxConcurrency: 12 })).status).toBe(200);
    expect((await harness.database.db.endpoint.findUniqueOrThrow({ where: { id: endpointId } })).apiKey).toBe(ENDPOINT_KEY);
    const audit = await harness.database.db.auditLog.findMany({ where: { entityId: endpointId } });
    expect(audit.length).toBeGreaterThan(0);
    for (const row of audit) expectClean(JSON.stringify([row.before, row.after]), "the endpoint's audit rows");
  });

  it("runs use the key against replicas that demand it (a connection test too), and the worker finishes them", async () => {
    const tested = await trpc("researcher", "endpoint.test", "mutation", { id: endpointId });
    expect(tested.status).toBe(200);
    const annotate = await trpc("researcher", "run.launch", "mutation", { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: 4, concurrency: 8 } });
    expect(annotate.status).toBe(200);
    annotateRunId = (annotate.json() as { runId: string }).runId;
    const benchmark = await trpc("researcher", "run.launch", "mutation", {
      kind: "benchmark",
      config: { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", concurrency: 8 },
    });
    expect(benchmark.status, benchmark.text).toBe(200);
    benchmarkRunId = (benchmark.json() as { runId: string }).runId;
    expect((await waitForRun(annotateRunId)).status).toBe("completed");
    expect((await waitForRun(benchmarkRunId)).status).toBe("completed");
    expect(Number((await harness.database.db.run.findUniqueOrThrow({ where: { id: annotateRunId } })).completionTokens)).toBeGreaterThan(0);
  });

  it("a run with a key the replicas refuse fails, and its errors (stored, answered, logged) do not repeat the key", async () => {
    const stale = await trpc("admin", "endpoint.create", "mutation", { name: "stale", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4, apiKey: STALE_KEY });
    expect(stale.status).toBe(200);
    const { id: staleId } = stale.json() as { id: string };
    const tested = await trpc("researcher", "endpoint.test", "mutation", { id: staleId });
    expect(tested.text).toMatch(/401/);
    const launched = await trpc("researcher", "run.launch", "mutation", { kind: "annotate", config: { datasetId, policyEndpoint: "stale", rollouts: 2, limit: 1 } });
    const { runId } = launched.json() as { runId: string };
    const run = await waitForRun(runId);
    expect(["failed", "completed_with_failures"]).toContain(run.status);
    const units = await harness.database.db.runUnit.findMany({ where: { runId }, select: { error: true } });
    const errors = [run.error ?? "", ...units.map((u) => u.error ?? "")].join("\n");
    expect(errors).toMatch(/401|Unauthorized/);
    expectClean(errors, "the failed run's stored errors");
    for (const path of ["run.get", "run.failures"]) expect((await trpc("researcher", path, "query", { id: runId })).status, path).toBe(200);
  });

  it("exports (training set, labels, predictions) hold no secret, in the files or their downloads", async () => {
    const specs = [
      { kind: "training-set", annotateRunId, labelRule: { rule: "abs-q" }, format: "openrlhf", heldOutFraction: 0 },
      { kind: "labels", runId: annotateRunId },
      { kind: "predictions", runId: benchmarkRunId },
    ];
    for (const spec of specs) {
      const started = await trpc("researcher", "export.start", "mutation", { spec });
      expect(started.status, started.text).toBe(200);
      const { runId } = started.json() as { runId: string };
      expect((await waitForRun(runId)).status, spec.kind).toBe("completed");
      const files = await harness.database.db.storedFile.findMany({ where: { producedByRunId: runId, completedAt: { not: null } }, select: { id: true, fileName: true } });
      expect(files.length, `${spec.kind}: ${JSON.stringify((await harness.database.db.run.findUniqueOrThrow({ where: { id: runId } })).summary)}`).toBeGreaterThan(0);
      let bytesOfSpec = 0;
      for (const file of files) {
        const download = await harness.call("/api/files/[id]", "GET", new Request(`${APP_ORIGIN}/api/files/${file.id}`, { headers: { cookie: harness.cookies.get("researcher")! } }), { id: file.id });
        expect(download.status).toBe(200);
        const bytes = Buffer.from(await download.arrayBuffer());
        bytesOfSpec += bytes.length;
        // Parquet and JSONL both keep strings as their UTF-8 bytes, so a plain search finds any.
        expectClean(bytes.toString("latin1"), `${spec.kind} export ${file.fileName}`);
        expectClean(bytes.toString("utf8"), `${spec.kind} export ${file.fileName}`);
        exportFilesSearched++;
        responsesSearched++;
      }
      expect(bytesOfSpec, `${spec.kind} wrote nothing`).toBeGreaterThan(0);
    }
  });

  it("the human labels export holds no secret", async () => {
    const created = await trpc("researcher", "annotationQueue.createQueue", "mutation", {
      name: "secrets queue",
      datasetId,
      annotateRunId,
      segmentationMethod: "self-segmented",
      selection: { kind: "filter", filter: { datasetId }, limit: 2 },
      annotatorIds: [harness.users.get("annotator")!.id],
    });
    expect(created.status, created.text).toBe(200);
    const { queueId } = created.json() as { queueId: string };
    const next = await trpc("annotator", "annotationQueue.next", "mutation", { queueId });
    const view = next.json() as { assignmentId: string; chunks: Array<{ id: string }> };
    expect((await trpc("annotator", "annotationQueue.submit", "mutation", { assignmentId: view.assignmentId, labels: view.chunks.map((c) => ({ chunkId: c.id, rating: 1 })) })).status).toBe(200);
    const exported = await harness.call(
      "/api/annotation-queues/[id]/labels",
      "GET",
      new Request(`${APP_ORIGIN}/api/annotation-queues/${queueId}/labels`, { headers: { authorization: `Bearer ${harness.tokens.get("researcher")}` } }),
      { id: queueId },
    );
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text.trim().split("\n").length).toBe(view.chunks.length);
    expectClean(text, "the human labels export");
    responsesSearched++;
  });

  it("no read procedure answers a viewer, researcher or admin with a key or a token, whatever ids it is given", async () => {
    const solution = await harness.database.db.solution.findFirstOrThrow({ where: { datasetId }, select: { id: true } });
    const queue = await harness.database.db.annotationQueue.findFirstOrThrow({ select: { id: true } });
    const inputs: unknown[] = [
      {},
      { id: endpointId },
      { id: annotateRunId },
      { id: benchmarkRunId },
      { id: datasetId },
      { id: solution.id },
      { datasetId, runId: annotateRunId, runIds: [annotateRunId, benchmarkRunId], queueId: queue.id, solutionId: solution.id, endpointId, id: endpointId },
    ];
    let answered = 0;
    for (const role of ["viewer", "researcher", "admin"] as const) {
      for (const [path, procedure] of procedures) {
        if (procedure._def.type !== "query" || !allows(procedure._def.meta?.access ?? "public", role)) continue;
        for (const input of inputs) if ((await trpc(role, path, "query", input)).status === 200) answered++;
      }
    }
    // Most probes find something: the search covered real answers, not only errors.
    expect(answered).toBeGreaterThan(100);
  });

  it("no REST read operation (/api/v1) answers a viewer, researcher or admin with a key or a token, whatever ids it is given", async () => {
    const solution = await harness.database.db.solution.findFirstOrThrow({ where: { datasetId }, select: { id: true } });
    const queue = await harness.database.db.annotationQueue.findFirstOrThrow({ select: { id: true } });
    const ids = [annotateRunId, benchmarkRunId, datasetId, solution.id, endpointId, queue.id];
    let answered = 0;
    for (const role of ["viewer", "researcher", "admin"] as const) {
      for (const op of REST_OPERATIONS.filter((o) => o.method === "GET" && allows(o.access, role))) {
        for (const id of op.path.includes("{id}") ? ids : [null]) {
          const path = id ? op.path.replace("{id}", id) : op.path;
          const request = new Request(`${APP_ORIGIN}/api/v1${path}`, { headers: { authorization: `Bearer ${harness.tokens.get(role)}` } });
          const response = await harness.call("/api/v1/[...path]", "GET", request, { path: path.split("/").filter(Boolean) });
          const text = await response.text();
          responsesSearched++;
          expectClean(text, `${role} GET /api/v1${path}`);
          if (response.status === 200) answered++;
        }
      }
    }
    // Every operation found its own kind of id: runs, both runs' labels or predictions, the dataset's solutions, the solution's chunks,
    // the endpoints and queues lists, the queue; its human labels for the two roles that may read them (not a viewer).
    expect(answered).toBe(3 * 11 + 2);
  });

  it("API tokens are stored as SHA-256 only; passwords are stored as hashes the auth library verifies", async () => {
    const { db } = harness.database;
    const stored = await db.apiToken.findMany({ select: { tokenHash: true, prefix: true, userId: true } });
    expect(stored.length).toBeGreaterThanOrEqual(harness.tokens.size);
    for (const [role, token] of harness.tokens) {
      const row = stored.find((r) => r.tokenHash === sha256(token));
      expect(row, role).toBeDefined();
      expect(token.startsWith(row!.prefix)).toBe(true);
      expect(row!.prefix.length).toBeLessThan(token.length / 2);
    }
    const rows = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(`SELECT * FROM "ApiToken"`);
    for (const row of rows) expect(Object.values(row).map(String)).not.toEqual(expect.arrayContaining([...harness.tokens.values()]));

    const accounts = await db.account.findMany({ where: { providerId: "credential", userId: { in: [...harness.users.values()].map((u) => u.id) } }, select: { password: true } });
    expect(accounts).toHaveLength(harness.users.size);
    for (const account of accounts) {
      expect(account.password).not.toBeNull();
      expect(account.password).not.toContain(PASSWORD);
      expect(await verifyPassword({ hash: account.password!, password: PASSWORD })).toBe(true);
      expect(await verifyPassword({ hash: account.password!, password: `${PASSWORD}x` })).toBe(false);
    }
  });

  it("no log line printed meanwhile (web handlers, worker, inference client) holds a key or a token", () => {
    logs.restore();
    expect(logs.lines.some((line) => line.includes(annotateRunId))).toBe(true);
    for (const line of logs.lines) expectClean(line, "a log line");
    logLinesSearched = logs.lines.length;
  });
});
