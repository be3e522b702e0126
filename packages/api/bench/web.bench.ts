import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeBenchmarkReport } from "@stepwiser/config/bench";
import { createRng, quantileSorted } from "@stepwiser/core";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { SEED_GENERATORS, SEED_TOPIC_WORDS, seedLargeDataset } from "@stepwiser/db/seed";
import superjson from "superjson";
import { appRouter, authPool, createAuth, createUserWithPassword, handleTrpcRequest, type RouterInputs } from "../src";

/**
 * Server time of the web app's two heaviest reads on a 100k-solution / 1M-chunk
 * dataset: the inspector's one round trip, and a filtered, sorted list page.
 * Each request goes through the real tRPC fetch handler with a real session
 * cookie (session lookup, validation, queries, serialisation), against an
 * embedded PostgreSQL holding the seeded data.
 */
const TRAJECTORIES = Number(process.env.STEPWISER_BENCH_TRAJECTORIES ?? 100_000);
const REQUESTS = Number(process.env.STEPWISER_BENCH_REQUESTS ?? 300);
const BASE_URL = "http://localhost:3998";

type ListInput = RouterInputs["trajectory"]["list"];

async function main() {
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-web-bench-"));
  chmodSync(scratch, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
  const url = server.url("postgres");
  const pool = authPool(url);
  const db = createDb(url);
  try {
    await applyMigrations(url);
    const seedStarted = performance.now();
    const seeded = await seedLargeDataset(url, { trajectories: TRAJECTORIES, seed: 7 });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.error(`seeded ${seeded.trajectories} solutions, ${seeded.chunks} chunks in ${seedSeconds.toFixed(0)} s`);

    const auth = createAuth({ databaseUrl: url, baseUrl: BASE_URL, secret: randomBytes(32).toString("hex") }, pool);
    await createUserWithPassword(db, { email: "bench@example.test", name: "bench", role: "viewer", password: "bench-password-123" });
    const signIn = await auth.handler(
      new Request(`${BASE_URL}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email: "bench@example.test", password: "bench-password-123" }),
      }),
    );
    if (signIn.status !== 200) throw new Error(`bench sign-in failed: ${signIn.status}`);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const deps = { db, auth, getQueue: () => Promise.reject(new Error("no queue in this benchmark")) };

    /** One GET through the tRPC handler; the time includes reading the whole response body. */
    const timedQuery = async (procedure: string, input: unknown): Promise<number> => {
      const query = encodeURIComponent(JSON.stringify(superjson.serialize(input)));
      const started = performance.now();
      const response = await handleTrpcRequest(new Request(`${BASE_URL}/api/trpc/${procedure}?input=${query}`, { headers: { cookie } }), deps);
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`${procedure} answered ${response.status}: ${body.slice(0, 300)}`);
      return elapsed;
    };

    const rng = createRng(11);
    const caller = appRouter.createCaller({ db, getQueue: deps.getQueue, user: { id: "bench", email: "bench@example.test", name: "bench", role: "viewer" } });
    const ids = (await db.trajectory.findMany({ where: { datasetId: seeded.datasetId }, select: { id: true } })).map((t) => t.id);
    const pick = <T>(items: readonly T[]): T => items[rng.nextInt(items.length)]!;
    const { datasetId, annotateRunId, judgeRunIds } = seeded;
    // The views a researcher builds: each a filter plus a sort, at a random early page.
    const views: Array<() => Omit<ListInput, "datasetId">> = [
      () => ({ correct: false, generator: pick(SEED_GENERATORS) }),
      () => ({ annotateRunId, qMin: 0, qMax: 0.3, sort: "qMin" }),
      () => ({ annotateRunId, disagreement: "rules", sort: "annotateFirstNegative", order: "desc" }),
      () => ({ annotateRunId, judgeRunId: judgeRunIds[1], disagreement: "judge" }),
      () => ({ judgeRunId: judgeRunIds[0], judgeVerdict: "flagged", hasError: false, sort: "judgeFirstNegative" }),
      () => ({ search: pick(SEED_TOPIC_WORDS) }),
      () => ({ search: pick(SEED_TOPIC_WORDS), annotateRunId, sort: "qMin" }),
      () => ({ subset: "math", correct: true, sort: "externalId", order: "desc" }),
    ];

    const measure = async (label: string, run: () => Promise<number>) => {
      for (let i = 0; i < 20; i++) await run(); // warm caches and the plan cache
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) times.push(await run());
      times.sort((a, b) => a - b);
      const result = { p50: quantileSorted(times, 0.5), p95: quantileSorted(times, 0.95), max: times.at(-1)! };
      console.error(`${label}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms`);
      return result;
    };

    const inspector = await measure("inspector", () => timedQuery("trajectory.inspect", { id: pick(ids) }));
    const list = await measure("filtered list", () => timedQuery("trajectory.list", { datasetId, page: 1 + rng.nextInt(3), pageSize: 50, ...pick(views)() }));
    const deepPage = await measure("unfiltered list, page 1–2000", () => timedQuery("trajectory.list", { datasetId, page: 1 + rng.nextInt(2000), pageSize: 50 }));
    // n/p is pressed on a solution opened from its list: pick one from a page of that list.
    const neighborViews = views.map((view) => view());
    const neighbors = await measure("next/previous", async () => {
      const view = pick(neighborViews);
      const listed = await caller.trajectory.list({ datasetId, page: 1 + rng.nextInt(3), pageSize: 50, ...view });
      if (listed.items.length === 0) return timedQuery("trajectory.neighbors", { datasetId, id: pick(ids), ...view });
      return timedQuery("trajectory.neighbors", { datasetId, id: pick(listed.items).id, ...view });
    });

    const ms = (value: number) => `${value.toFixed(1)} ms`;
    writeBenchmarkReport({
      name: "web",
      bench: "web.bench",
      title: "Web app server time at scale",
      method: `${seeded.trajectories.toLocaleString("en")} solutions and ${seeded.chunks.toLocaleString("en")} chunks seeded (one annotate run with Q-values and three labels per chunk, two judge runs with two samples per chunk) into an embedded PostgreSQL. Each request goes through the tRPC fetch handler with a signed-in session and is timed until its whole response body is read; ${REQUESTS} requests per row after 20 warm-up requests, one at a time. Filtered lists draw from eight views (correctness and generator; lowest-Q range sorted by Q; rule disagreement; judge vs. Monte-Carlo first error; judge verdict with source label; text search; text search sorted by Q; subset and correctness by id) at pages 1–3 of 50.`,
      rows: [
        { metric: "inspector (trajectory.inspect) p95", value: ms(inspector.p95), target: "< 150 ms", met: inspector.p95 < 150 },
        { metric: "inspector p50 / max", value: `${ms(inspector.p50)} / ${ms(inspector.max)}` },
        { metric: "filtered list page (trajectory.list) p95", value: ms(list.p95), target: "< 100 ms", met: list.p95 < 100 },
        { metric: "filtered list page p50 / max", value: `${ms(list.p50)} / ${ms(list.max)}` },
        { metric: "unfiltered list, random page of 2,000, p95", value: ms(deepPage.p95) },
        { metric: "next/previous from a solution of a filtered, sorted list (trajectory.neighbors) p95", value: ms(neighbors.p95) },
        { metric: "seed time", value: `${seedSeconds.toFixed(0)} s` },
      ],
    });
  } finally {
    await db.$disconnect();
    await pool.end();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
