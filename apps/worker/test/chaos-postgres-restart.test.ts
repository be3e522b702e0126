import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { authPool, createAuth, createUserWithPassword, DATABASE_UNREACHABLE_MESSAGE, handleTrpcRequest, type ContextDeps } from "@stepwiser/api";
import { atScale } from "@stepwiser/config/test-scale";
import { createDb, type Db } from "@stepwiser/db";
import { startEmbeddedPostgres, type RunningPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { connectJobQueue, createSimWorldDataset, submitRun, type JobQueue } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_RECOVERY_ENV, printChaosSummary, recordAnnotateRows, RowLedger, sleep, waitFor, waitForRunEnd, WorkerFleet } from "./chaos-harness";

/**
 * PostgreSQL stops in the middle of an annotate run and comes back on the same
 * port and data directory. This suite runs its own server (the other suites
 * share the test run's server, which must never stop). The worker process and
 * the web app's server side, as they are built in production, carry on
 * without being restarted themselves.
 */

/** Enough units that a quarter of the rollouts is reached with most of the run still to do. */
const PROBLEMS = atScale({ default: 8, full: 16 });
const ROLLOUTS = 4;
/** How long the server stays down: the worker's and the web side's queries fail from the stop on, however short. */
const OUTAGE_MS = atScale({ default: 1_000, full: 4_000 });
const BASE_URL = "http://localhost:3999";

interface TrpcBody {
  result?: { data: { json: unknown } };
  error?: { json: { message: string; data: { code: string; httpStatus: number } } };
}

describe("PostgreSQL restarted in the middle of a run", () => {
  let scratch: string;
  let server: RunningPostgres;
  let databaseUrl: string;
  let db: Db;
  let web: ContextDeps;
  let webQueue: Promise<JobQueue> | undefined;
  let cluster: SimCluster;
  let fleet: WorkerFleet;
  const ledger = new RowLedger();
  let restarts = 0;
  let completed = 0;
  let outageAnswer = "";

  const dataDir = () => path.join(scratch, "pg");

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-chaos-pg-"));
    await chmod(scratch, 0o755); // the postgres OS user must be able to enter it
    server = await startEmbeddedPostgres({ dataDir: dataDir() });
    databaseUrl = server.url("stepwiser");
    await applyMigrations(databaseUrl);
    // The worker loads its code while the rest is set up; it has nothing to do until the run is submitted.
    fleet = new WorkerFleet(databaseUrl, FAST_RECOVERY_ENV);
    fleet.start("restart-worker");

    // The web app's server side as apps/web/src/server/deps builds it: one Prisma pool, one auth pool, a queue sender made on first use.
    db = createDb(databaseUrl);
    web = {
      db,
      auth: createAuth({ databaseUrl, baseUrl: BASE_URL, secret: "s".repeat(32) }, authPool(databaseUrl)),
      getQueue: () => {
        webQueue ??= connectJobQueue(databaseUrl).catch((error: unknown) => {
          webQueue = undefined; // the next request tries again
          throw error;
        });
        return webQueue;
      },
    };
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 10 });
    await db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: [...cluster.urls], maxConcurrency: 4 } });
  });

  afterAll(async () => {
    await fleet?.killAll();
    await cluster?.stop();
    if (webQueue) await (await webQueue.catch(() => undefined))?.stop({ graceful: false, wait: true });
    await db?.$disconnect();
    await server?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    printChaosSummary({ suite: "chaos postgres restart", kills: 0, restarts, runsCompleted: completed, ledger, extra: `a tRPC request during the outage answered: ${outageAnswer}` });
  });

  async function trpc(procedure: string, input: unknown, token?: string): Promise<{ status: number; body: TrpcBody }> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
    const response = await handleTrpcRequest(new Request(`${BASE_URL}/api/trpc/${procedure}${query}`, { headers }), web);
    return { status: response.status, body: (await response.json()) as TrpcBody };
  }

  it("the worker and the web app's server side reconnect, and the run completes with exact counts", { timeout: 180_000 }, async () => {
    const user = await createUserWithPassword(db, { email: "researcher@example.com", name: "Researcher", role: "admin", password: "correct-horse-battery" });
    const token = `sw_${randomBytes(32).toString("base64url")}`;
    await db.apiToken.create({ data: { userId: user.id, name: "script", tokenHash: createHash("sha256").update(token).digest("hex"), prefix: token.slice(0, 11), expiresAt: new Date(Date.now() + 24 * 3600 * 1000) } });

    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "restart", problems: PROBLEMS, seed: 41 });
    const queue = await web.getQueue();
    const run = await submitRun(db, queue, { kind: "annotate", config: { datasetId, policyEndpoint: "policy", rollouts: ROLLOUTS, seed: 9, strategy: "fixed", concurrency: 2 } });
    const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId } } } });
    expect((await trpc("health.ping", undefined)).status).toBe(200);

    await waitFor("a quarter of the rollouts", async () => (await db.rollout.count({ where: { runId: run.id } })) >= (chunks * ROLLOUTS) / 4, 60_000, 50);
    const port = server.port;
    await server.stop();
    restarts += 1;

    // During the outage: an answer with a clear error, and this process still standing.
    const during = await trpc("run.get", { id: run.id }, token);
    expect(during.status).toBe(503);
    expect(during.body.error?.json.message).toBe(DATABASE_UNREACHABLE_MESSAGE);
    outageAnswer = `HTTP ${during.status} "${during.body.error?.json.message}"`;
    await sleep(OUTAGE_MS);

    server = await startEmbeddedPostgres({ dataDir: dataDir(), port });
    expect(server.port).toBe(port);

    // The same handler, the same pools: no restart of this process.
    await waitFor("the web side to answer again", async () => (await trpc("health.ping", undefined)).status === 200, 30_000, 250);
    const after = await trpc("run.get", { id: run.id }, token);
    expect(after.status).toBe(200);
    expect((after.body.result!.data.json as { id: string; kind: string }).kind).toBe("annotate");
    expect((await (await web.getQueue()).getQueue("run"))?.name).toBe("run");

    const finished = await waitForRunEnd(db, run.id, 120_000);
    expect(finished.status, finished.error ?? "").toBe("completed");
    expect(finished.unitsFailed).toBe(0);
    completed += 1;

    await recordAnnotateRows(db, ledger, run.id, { chunks, solutions, rollouts: ROLLOUTS });
    ledger.expectExact();

    // The worker that lived through the outage did the whole run: no process was restarted.
    const claimedBy = await db.runUnit.findMany({ where: { runId: run.id }, select: { claimedBy: true } });
    expect(new Set(claimedBy.map((u) => u.claimedBy?.split("/")[0]))).toEqual(new Set(["restart-worker"]));
  });
});
