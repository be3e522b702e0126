import { readFileSync, chmodSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { atProfile, writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { waitForQuietMachine } from "@stepwiser/config/bench/processes";
import { approximateTokenCount, createRng, PAPER_ANNOTATION_VOLUME, projectAnnotationStorage, ROLLOUT_STORAGE_MODEL, storedRolloutText, type RolloutTextPolicy } from "@stepwiser/core";
import { createDb, type Db } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations, applyStorageSettings } from "@stepwiser/db/migrations";
import { SEED_SUBSETS, seedLargeDataset } from "@stepwiser/db/seed";
import { authPool } from "../src";
import { measure, openBenchSession, seededListViews, type Timings } from "./web-session";

/**
 * What an annotate run costs on disk, measured on real rows in PostgreSQL: bytes
 * per solution, chunk, chunk value, label and rollout (heap, TOAST and index),
 * rollouts at realistic lengths (500–1,500 tokens of ProcessBench MATH steps)
 * under each rolloutText policy and under the layout rollouts had before (a
 * surrogate cuid key beside the unique index); then the projection of those
 * bytes to the paper's annotation volume, and a check that the model the
 * capacity plan uses (`ROLLOUT_STORAGE_MODEL`) still matches what was measured.
 */
const SOLUTIONS = Number(process.env.STEPWISER_BENCH_STORAGE_SOLUTIONS ?? atProfile({ full: 20_000, quick: 2_000 }));
const ROLLOUT_PREFIXES = Number(process.env.STEPWISER_BENCH_STORAGE_PREFIXES ?? atProfile({ full: 4_000, quick: 400 }));
const M = 16;
const MIN_TOKENS = 500;
const MAX_TOKENS = 1_500;
/** How far the plan's model may be from the measurement before the bench fails. */
const MODEL_TOLERANCE = 0.1;
/**
 * The measured tier: one dataset of this many solutions (≈ 10 chunks each) with the annotate run's rollouts at the
 * chosen policy (answer-only) for the first TIER_ROLLOUT_SOLUTIONS of them, and two judge runs of one sample per chunk.
 * All of it (every prefix's 16 rollouts and two samples per chunk) would be about 90 GB, more than this machine's disk.
 * The quick tier is far below the paper's scale: it checks that every tier request still runs, not how they scale.
 */
const TIER_SOLUTIONS = Number(process.env.STEPWISER_BENCH_TIER_SOLUTIONS ?? atProfile({ full: 1_000_000, quick: 4_000 }));
const TIER_ROLLOUT_SOLUTIONS = Number(process.env.STEPWISER_BENCH_TIER_ROLLOUT_SOLUTIONS ?? Math.min(TIER_SOLUTIONS, atProfile({ full: 100_000, quick: 500 })));
const TIER_REQUESTS = Number(process.env.STEPWISER_BENCH_TIER_REQUESTS ?? atProfile({ full: 300, quick: 30 }));
/** Untimed requests before each inspector, list and rollout-panel row's timed ones. */
const TIER_WARM_UP_REQUESTS = atProfile({ full: 20, quick: 5 });
const TIER_COMPARE_REQUESTS = Number(process.env.STEPWISER_BENCH_TIER_COMPARE_REQUESTS ?? atProfile({ full: 3, quick: 2 }));
/**
 * How long the tier waits for the machine to quieten before timing. Quick runs compare a change with the code
 * before it on the same machine at the same time, so they start at once and report the load they met.
 */
const QUIET_WAIT_MINUTES = Number(process.env.STEPWISER_BENCH_QUIET_WAIT_MINUTES ?? atProfile({ full: 90, quick: 0 }));
/** Shares of the tier's Solution and Rollout pages sampled for request inputs: enough pages to draw from at either size. */
const TIER_SOLUTION_SAMPLE_PERCENT = atProfile({ full: 1, quick: 10 });
const TIER_ROLLOUT_SAMPLE_PERCENT = atProfile({ full: 0.1, quick: 2 });

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const mathSteps = (JSON.parse(readFileSync(path.join(repoRoot, "packages/db/seed/processbench/math.json"), "utf8")) as Array<{ steps: string[] }>).map((r) => r.steps);

/** A continuation of about `tokens` tokens (the approximate tokenizer): MATH solution steps, in order, from random solutions, ending in a boxed answer. */
function rolloutText(rng: ReturnType<typeof createRng>, tokens: number, answer: string): string {
  const parts: string[] = [];
  let count = 0;
  while (count < tokens) {
    const steps = mathSteps[rng.nextInt(mathSteps.length)]!;
    for (const step of steps) {
      parts.push(step);
      count += approximateTokenCount(step);
      if (count >= tokens) break;
    }
  }
  parts.push(`So the final answer is $\\boxed{${answer}}$.`);
  return parts.join("\n\n");
}

interface TableSize {
  rows: number;
  heap: number;
  toast: number;
  indexes: number;
  total: number;
}

async function tableSize(db: Db, table: string): Promise<TableSize> {
  await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table}"`);
  const [row] = await db.$queryRawUnsafe<Array<{ rows: bigint; heap: bigint; toast: bigint; indexes: bigint; total: bigint }>>(
    `SELECT (SELECT count(*) FROM "${table}") AS rows,
       pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS heap,
       coalesce(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS toast,
       pg_indexes_size(c.oid) AS indexes,
       pg_total_relation_size(c.oid) AS total
     FROM pg_class c WHERE c.oid = to_regclass($1)`,
    `"${table}"`,
  );
  return { rows: Number(row!.rows), heap: Number(row!.heap), toast: Number(row!.toast), indexes: Number(row!.indexes), total: Number(row!.total) };
}

const perRow = (size: TableSize, rows = size.rows) => ({ heap: size.heap / rows, toast: size.toast / rows, indexes: size.indexes / rows, total: size.total / rows });
const bytes = (value: number) => `${Math.round(value).toLocaleString("en")} B`;
const gb = (value: number) => `${(value / 1e9).toFixed(1)} GB`;
const breakdown = (p: ReturnType<typeof perRow>) => `${bytes(p.total)} (heap ${bytes(p.heap)}, TOAST ${bytes(p.toast)}, index ${bytes(p.indexes)})`;

/**
 * The tier: a dataset of TIER_SOLUTIONS seeded next to the byte measurements, then the inspector, the rollouts behind
 * a Q-value, filtered list pages and the compare views timed through the tRPC handler as the web benchmark times them.
 */
async function measureTier(db: Db, url: string): Promise<BenchmarkRow[]> {
  const started = performance.now();
  const seeded = await seedLargeDataset(url, {
    solutions: TIER_SOLUTIONS,
    seed: 13,
    judgeSamples: 1,
    rolloutsPerPrefix: 16,
    rolloutText: "answer-only",
    rolloutSolutions: TIER_ROLLOUT_SOLUTIONS,
    onProgress: (p) => {
      if (p.solutions % 100_000 === 0 || p.solutions === p.total) console.error(`tier ${p.phase}: ${p.solutions} of ${p.total} in ${(p.elapsedMs / 1000).toFixed(0)} s`);
    },
  });
  const seedSeconds = (performance.now() - started) / 1000;
  await db.$executeRawUnsafe("CHECKPOINT"); // what the seed's vacuum dirtied, written out before timing (see web.bench)
  // Timing starts once nothing else keeps the machine's cores busy (the seeding's own autovacuum, another benchmark).
  const quiet = await waitForQuietMachine(availableParallelism() * 0.6, QUIET_WAIT_MINUTES * 60_000);
  console.error(`tier timing starts at load average ${quiet.load.toFixed(2)} after ${(quiet.waitedMs / 1000).toFixed(0)} s of waiting`);
  const [{ size }] = (await db.$queryRawUnsafe<Array<{ size: bigint }>>(`SELECT pg_database_size(current_database()) AS size`)) as [{ size: bigint }];
  const pool = authPool(url);
  try {
    const { timedQuery } = await openBenchSession(db, url, pool);
    const rng = createRng(23);
    const pick = <T>(items: readonly T[]): T => items[rng.nextInt(items.length)]!;
    const { datasetId, annotateRunId, judgeRunIds } = seeded;
    const [strong, weak] = judgeRunIds;
    const ids = (await db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id FROM "Solution" TABLESAMPLE SYSTEM (${TIER_SOLUTION_SAMPLE_PERCENT}) REPEATABLE (5) WHERE "datasetId" = $1 LIMIT 5000`, datasetId)).map((r) => r.id);
    const views = seededListViews(rng, seeded);
    const inspector = await measure("tier inspector", () => timedQuery("solution.inspect", { id: pick(ids) }), TIER_REQUESTS, TIER_WARM_UP_REQUESTS);
    const list = await measure("tier filtered list", () => timedQuery("solution.list", { datasetId, page: 1 + rng.nextInt(3), pageSize: 50, ...pick(views)() }), TIER_REQUESTS, TIER_WARM_UP_REQUESTS);
    const prefixes = await db.$queryRawUnsafe<Array<{ segmentationId: string; prefixLength: number }>>(
      `SELECT DISTINCT "segmentationId", "prefixLength" FROM "Rollout" TABLESAMPLE SYSTEM (${TIER_ROLLOUT_SAMPLE_PERCENT}) REPEATABLE (7) WHERE "runId" = $1 LIMIT 2000`,
      annotateRunId,
    );
    const rollouts = await measure("tier rollouts of a prefix", () => timedQuery("rollout.list", { runId: annotateRunId, ...pick(prefixes) }), TIER_REQUESTS, TIER_WARM_UP_REQUESTS);
    const compare = (label: string, run: () => Promise<number>) => measure(label, run, TIER_COMPARE_REQUESTS, 1);
    // As the page asks: its default seed, so the first view of the pair draws and stores both runs' replicates and later views read them; a new seed draws again.
    const checkpointsQuery = (seed?: number) => timedQuery("compare.checkpoints", { runIds: [strong, weak], baselineRunId: pick([strong, weak]), ...(seed === undefined ? {} : { seed }) });
    const checkpointsFirst = await measure("tier compare.checkpoints, first view", () => checkpointsQuery(), 1, 0);
    const checkpoints = await compare("tier compare.checkpoints", () => checkpointsQuery());
    const checkpointsNewSeed = await compare("tier compare.checkpoints, new seed", () => checkpointsQuery(1 + rng.nextInt(1_000_000)));
    const disagreements = await compare("tier compare.disagreements", () =>
      timedQuery("compare.disagreements", { runA: strong, runB: weak, subset: rng.nextInt(2) ? pick(SEED_SUBSETS) : undefined, cursor: 50 * rng.nextInt(3), limit: 50 }),
    );
    // The first view of a finished judge run counts its chunks by votes and Monte-Carlo label and stores the count; later views read it.
    const threeWayFirst = await measure("tier compare.threeWay, first view", () => timedQuery("compare.threeWay", { judgeRunId: strong, annotateRunId, cursor: 0, limit: 200 }), 1, 0);
    await timedQuery("compare.threeWay", { judgeRunId: weak, annotateRunId, cursor: 0, limit: 200 });
    const threeWay = await compare("tier compare.threeWay", () => timedQuery("compare.threeWay", { judgeRunId: pick([strong, weak]), annotateRunId, cursor: 0, limit: 200 }));
    const calibration = await compare("tier compare.calibration", () => timedQuery("compare.calibration", { judgeRunId: pick([strong, weak]), reference: "mc", annotateRunId, bins: 10 }));
    const scalingQuery = (run: string, seed?: number) => timedQuery("compare.scaling", { runIds: [run], draws: 20, ...(seed === undefined ? {} : { seed }) });
    const scalingFirst = await measure("tier compare.scaling, first view", () => scalingQuery(strong), 1, 0);
    await scalingQuery(weak);
    const scaling = await compare("tier compare.scaling", () => scalingQuery(pick([strong, weak])));
    // One request: each replays every sample of the run.
    const scalingNewSeed = await measure("tier compare.scaling, new seed", () => scalingQuery(pick([strong, weak]), 1 + rng.nextInt(1_000_000)), 1, 0);
    const loadAtEnd = loadavg()[0]!;

    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const n = (value: number) => value.toLocaleString("en");
    const timed = (metric: string, t: Timings, target?: number): BenchmarkRow =>
      target === undefined ? { metric, value: `${ms(t.p50)} / ${ms(t.p95)} (p50 / p95)` } : { metric, value: `${ms(t.p95)} (p50 ${ms(t.p50)})`, target: `< ${target} ms`, met: t.p95 < target };
    return [
      {
        metric: "tier: seeded",
        value: `${n(seeded.solutions)} solutions, ${n(seeded.chunks)} chunks, ${n(seeded.chunks + seeded.solutions)} chunk values, ${n(seeded.chunks * 3)} labels, ${n(seeded.chunks * 2)} judge samples (2 runs × 1 per chunk), ${n(seeded.rollouts)} answer-only rollouts (every prefix of the first ${n(TIER_ROLLOUT_SOLUTIONS)} solutions × 16) in ${seedSeconds.toFixed(0)} s; database ${gb(Number(size))}`,
      },
      { metric: "tier: machine load average (1 min) when timing starts · ends", value: `${quiet.load.toFixed(2)} · ${loadAtEnd.toFixed(2)} on ${availableParallelism()} cores (timing waited ${(quiet.waitedMs / 1000).toFixed(0)} s for the machine to quieten)` },
      timed("tier: inspector (solution.inspect) p95", inspector, 150),
      timed("tier: filtered list page (solution.list) p95", list, 100),
      timed("tier: rollouts of one prefix (rollout.list)", rollouts),
      timed(`tier: compare.checkpoints, 2 judge runs on ${n(seeded.solutions)} gold solutions, 1,000 resamples, page's default seed, replicates stored, p95`, checkpoints, 500),
      { metric: "tier: compare.checkpoints, first view of the pair (counts the gold outcomes in SQL, draws both runs' replicates, stores both)", value: ms(checkpointsFirst.max) },
      timed("tier: compare.checkpoints with a new seed each request (draws both runs again)", checkpointsNewSeed),
      timed("tier: compare.disagreements page p95", disagreements, 300),
      timed(`tier: compare.threeWay (judge × Monte-Carlo on ${n(seeded.chunks)} chunks) p95`, threeWay, 1000),
      { metric: "tier: compare.threeWay, first view of a judge run (counts every chunk by votes and Monte-Carlo label, stores the count)", value: ms(threeWayFirst.max) },
      timed("tier: compare.calibration against Monte-Carlo labels p95", calibration, 1000),
      timed("tier: compare.scaling (K = 1, 20 draws), page's default seed, curve stored, p95", scaling, 1000),
      { metric: "tier: compare.scaling, first view of a run (replays every sample, stores the curve)", value: ms(scalingFirst.max) },
      { metric: "tier: compare.scaling with a new seed (replays every sample; one request)", value: ms(scalingNewSeed.max) },
    ];
  } finally {
    await pool.end();
  }
}

async function main() {
  const wallStarted = performance.now();
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-storage-bench-"));
  chmodSync(scratch, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
  const url = server.url("postgres");
  const db = createDb(url);
  const rows: BenchmarkRow[] = [];
  try {
    await applyMigrations(url);
    const compression = (await applyStorageSettings(url)).rolloutTextCompression;
    // One batch at a time: rows go in in key order, so index sizes repeat from run to run (interleaved writers split more pages; see the limits).
    const seeded = await seedLargeDataset(url, { solutions: SOLUTIONS, seed: 5, concurrency: 1 });
    console.error(`seeded ${seeded.solutions} solutions, ${seeded.chunks} chunks`);

    // The dataset and the annotate run's own rows, per entity.
    const sizes = Object.fromEntries(
      await Promise.all(
        ["Problem", "Solution", "Segmentation", "Chunk", "ChunkValue", "ChunkLabel", "SolutionLabelConfidence", "SolutionRunStat", "RunUnit", "JudgeSample", "ChunkVotes"].map(async (t) => [t, await tableSize(db, t)] as const),
      ),
    ) as Record<string, TableSize>;
    const [textStats] = await db.$queryRawUnsafe<Array<{ chunk_chars: number; solution_chars: number }>>(
      `SELECT (SELECT avg(octet_length(text)) FROM "Chunk")::float8 AS chunk_chars, (SELECT avg(octet_length(text)) FROM "Solution")::float8 AS solution_chars`,
    );
    const solution = (sizes.Problem!.total + sizes.Solution!.total + sizes.Segmentation!.total) / SOLUTIONS;
    const chunk = perRow(sizes.Chunk!);
    const chunkValue = perRow(sizes.ChunkValue!);
    const label = perRow(sizes.ChunkLabel!);
    // Per solution of the annotate run: its stats row, its unit, its lowest confidence per rule (the judge runs' rows are left out).
    const annotateRuns = 1;
    const judgeRuns = 2;
    const runStat = sizes.SolutionRunStat!.total / (SOLUTIONS * (annotateRuns + judgeRuns));
    const runUnit = sizes.RunUnit!.total / sizes.RunUnit!.rows;
    const confidence = sizes.SolutionLabelConfidence!.total / SOLUTIONS;

    // Rollouts at realistic lengths under each policy, and the previous layout, on the same rows.
    const segmentations = await db.segmentation.findMany({ where: { solution: { datasetId: seeded.datasetId } }, select: { id: true }, take: Math.ceil(ROLLOUT_PREFIXES / 4) });
    const rng = createRng(17);
    const drawn = Array.from({ length: ROLLOUT_PREFIXES * M }, (_, i) => {
      const tokens = MIN_TOKENS + rng.nextInt(MAX_TOKENS - MIN_TOKENS + 1);
      const answer = String(1 + rng.nextInt(999));
      return { segmentationId: segmentations[Math.floor(i / M / 4)]!.id, prefixLength: Math.floor(i / M) % 4, sampleIndex: i % M, tokens, answer, correct: rng.nextInt(2) === 1, textSeed: rng.nextUint32() };
    });
    const meanTokens = drawn.reduce((sum, r) => sum + r.tokens, 0) / drawn.length;
    let textChars = 0;
    const writeRollouts = async (policy: RolloutTextPolicy) => {
      await db.$executeRawUnsafe(`TRUNCATE "Rollout"`);
      textChars = 0;
      for (let start = 0; start < drawn.length; start += 2_000) {
        const batch = drawn.slice(start, start + 2_000).map((r) => {
          const text = rolloutText(createRng(r.textSeed), r.tokens, r.answer);
          textChars += text.length;
          return { ...r, text: storedRolloutText(policy, text) };
        });
        // The columns the pipeline's rows carry (gradedRolloutRows), in one statement per batch.
        await db.$executeRawUnsafe(
          `INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct, "completionTokens")
           SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::boolean[], $9::int[])`,
          seeded.annotateRunId,
          batch.map((r) => r.segmentationId),
          batch.map((r) => r.prefixLength),
          batch.map((r) => r.sampleIndex),
          batch.map((r) => r.textSeed % 1_000_000_000),
          batch.map((r) => r.text),
          batch.map((r) => r.answer),
          batch.map((r) => r.correct),
          batch.map((r) => r.tokens),
        );
      }
      return tableSize(db, "Rollout");
    };
    const full = await writeRollouts("full");
    const meanChars = textChars / drawn.length;
    const answerOnly = await writeRollouts("answer-only");
    // The same texts stored without compression: what compression saves.
    await db.$executeRawUnsafe(`ALTER TABLE "Rollout" ALTER COLUMN "text" SET STORAGE EXTERNAL`);
    const uncompressed = await writeRollouts("full");
    await db.$executeRawUnsafe(`ALTER TABLE "Rollout" ALTER COLUMN "text" SET STORAGE EXTENDED`);
    // The previous layout: a cuid primary key and a unique index on the place (answer-only rows).
    await db.$executeRawUnsafe(`CREATE TABLE "RolloutBefore" (LIKE "Rollout" INCLUDING DEFAULTS)`);
    await db.$executeRawUnsafe(`ALTER TABLE "RolloutBefore" ADD COLUMN id text NOT NULL`);
    await db.$executeRawUnsafe(
      `INSERT INTO "RolloutBefore" SELECT r.*, 'c' || substr(md5(r."segmentationId" || r."prefixLength" || ':' || r."sampleIndex"), 1, 24) FROM "Rollout" r ORDER BY 1, 2, 3, 4`,
    );
    await db.$executeRawUnsafe(`UPDATE "RolloutBefore" SET text = NULL`);
    await db.$executeRawUnsafe(`VACUUM FULL "RolloutBefore"`);
    await db.$executeRawUnsafe(`ALTER TABLE "RolloutBefore" ADD PRIMARY KEY (id)`);
    await db.$executeRawUnsafe(`CREATE UNIQUE INDEX ON "RolloutBefore" ("runId", "segmentationId", "prefixLength", "sampleIndex")`);
    const before = await tableSize(db, "RolloutBefore");

    const fullRow = perRow(full);
    const answerRow = perRow(answerOnly);
    const plainRow = perRow(uncompressed);
    const beforeRow = perRow(before);
    const textBytesPerToken = (fullRow.total - answerRow.total) / meanTokens;

    // The model the capacity plan uses, against this measurement.
    const model = ROLLOUT_STORAGE_MODEL;
    const within = (modelled: number, measured: number) => Math.abs(modelled - measured) <= MODEL_TOLERANCE * measured;
    const modelChecks: Array<[string, number, number]> = [
      ["answer-only rollout row", model.rolloutRowBytes, answerRow.total],
      ["full rollout text per generated token", model.rolloutTextBytesPerToken, textBytesPerToken],
      ["chunk value row", model.chunkValueBytes, chunkValue.total],
      ["chunk label row", model.chunkLabelBytes, label.total],
      ["per-solution rows of the run (stats, unit, lowest confidence per rule)", model.perSolutionBytes, runStat + runUnit + confidence],
    ];

    const volume = PAPER_ANNOTATION_VOLUME;
    const projection = (policy: RolloutTextPolicy) => projectAnnotationStorage({ ...volume, rolloutText: policy });
    const projected = { full: projection("full"), "answer-only": projection("answer-only") };
    const datasetBytes = volume.solutions * solution + volume.chunks * chunk.total;

    rows.push(
      { metric: "measured on", value: `${SOLUTIONS.toLocaleString("en")} seeded solutions (${seeded.chunks.toLocaleString("en")} chunks, mean ${Math.round(textStats!.chunk_chars)} B of text per chunk); ${drawn.length.toLocaleString("en")} rollouts (${ROLLOUT_PREFIXES.toLocaleString("en")} prefixes × ${M}) of ${MIN_TOKENS}–${MAX_TOKENS} tokens (mean ${Math.round(meanTokens)} tokens, ${Math.round(meanChars).toLocaleString("en")} characters) of ProcessBench MATH steps; rollout text compression: ${compression === "lz4" ? "lz4" : "pglz (this server has no lz4)"}` },
      { metric: "solution (problem share, solution text, segmentation)", value: bytes(solution) },
      { metric: "chunk", value: breakdown(chunk) },
      { metric: "chunk value (one per prefix)", value: breakdown(chunkValue) },
      { metric: "chunk label (one per chunk and rule)", value: breakdown(label) },
      { metric: "per solution of the run: stats row, unit, lowest confidence per rule", value: bytes(runStat + runUnit + confidence) },
      { metric: "judge sample (2 per chunk and judge run; rationale of the seed's length)", value: breakdown(perRow(sizes.JudgeSample!)) },
      { metric: "chunk votes (one per chunk and judge run, kept by triggers; 2 samples each)", value: breakdown(perRow(sizes.ChunkVotes!)) },
      { metric: "rollout, rolloutText full", value: breakdown(fullRow) },
      { metric: "rollout, rolloutText full, text stored uncompressed", value: `${breakdown(plainRow)}: compression keeps ${((fullRow.total - answerRow.total) / (plainRow.total - answerRow.total) * 100).toFixed(0)} % of the text bytes` },
      { metric: "rollout, rolloutText answer-only", value: breakdown(answerRow) },
      { metric: "rollout, answer-only, previous layout (cuid key + unique index)", value: `${breakdown(beforeRow)}: the composite key saves ${bytes(beforeRow.total - answerRow.total)} per row` },
      { metric: "full rollout text, stored bytes per generated token", value: `${textBytesPerToken.toFixed(2)} B` },
      ...modelChecks.map(([what, modelled, measured]) => ({
        metric: `plan model: ${what}`,
        value: modelled < 10 ? `${modelled.toFixed(2)} B modelled, ${measured.toFixed(2)} B measured` : `${bytes(modelled)} modelled, ${bytes(measured)} measured`,
        target: `within ${MODEL_TOLERANCE * 100} %`,
        met: within(modelled, measured),
      })),
      {
        metric: `projection, the paper's volume (${volume.solutions.toLocaleString("en")} solutions, ${volume.chunks.toLocaleString("en")} chunks, ${volume.rollouts.toLocaleString("en")} rollouts of ${volume.meanRolloutTokens} tokens, ${volume.labelRules} rules): the dataset`,
        value: gb(datasetBytes),
      },
      { metric: "projection, annotate run, rolloutText full", value: `${gb(projected.full.totalBytes)} (rollouts ${gb(projected.full.rolloutBytes)})` },
      { metric: "projection, annotate run, rolloutText answer-only", value: `${gb(projected["answer-only"].totalBytes)} (rollouts ${gb(projected["answer-only"].rolloutBytes)})` },
    );
    if (TIER_SOLUTIONS > 0) rows.push(...(await measureTier(db, url)));
    rows.push({ metric: "benchmark wall time", value: `${((performance.now() - wallStarted) / 1000).toFixed(0)} s` });

    // A tier below the paper's scale (the quick profile's) fits in memory: its limits say what it can show instead.
    const paperScale = TIER_SOLUTIONS >= volume.solutions;
    const tierScale = paperScale
      ? `The tier holds every solution, chunk, value, label and per-solution row of the paper's scale and more, but rollouts only for every prefix of its first ${TIER_ROLLOUT_SOLUTIONS.toLocaleString("en")} solutions and one judge sample per chunk: all of them (160M answer-only rollouts, two samples per chunk) would need about 90 GB by the bytes above, more than this machine's disk.`
      : `The tier holds ${TIER_SOLUTIONS.toLocaleString("en")} solutions, far below the paper's ${volume.solutions.toLocaleString("en")}, with rollouts for every prefix of its first ${TIER_ROLLOUT_SOLUTIONS.toLocaleString("en")} solutions and one judge sample per chunk; its database fits in the machine's memory, so its request times show that every request runs and what it costs at this size, not how it scales.`;
    const tierSearch = paperScale
      ? ": at the tier a seeded topic word matches about 0.5 % of the solutions, and with the database several times the machine's memory most of those pages come from disk on a word's first search, so the search views set the list's p95 here"
      : "";
    writeBenchmarkReport({
      name: "storage",
      title: "Storage: bytes per row and the paper's annotation volume",
      method: `Rows written into an embedded PostgreSQL ${compression === "lz4" ? "(rollout texts lz4)" : "(built without lz4, so rollout texts use the default pglz)"} and measured with pg_relation_size / pg_indexes_size after VACUUM ANALYZE, divided by their count. Solutions, chunks, values, labels, stats and units come from the large-dataset seeder (${SOLUTIONS.toLocaleString("en")} solutions, an annotate run under 3 rules and 2 judge runs); rollouts are written through the Rollout model with texts built from ProcessBench MATH solution steps (packages/db/seed/processbench/math.json) to ${MIN_TOKENS}–${MAX_TOKENS} tokens of the approximate tokenizer, under each rolloutText policy, once without compression, and once in the previous layout. The projection multiplies the measured model (ROLLOUT_STORAGE_MODEL in @stepwiser/core, which \`stepwiser plan annotate\` uses) by the paper's volume: about 40k prompts × 16 solutions, ${volume.chunks.toLocaleString("en")} chunks, M = 16.${TIER_SOLUTIONS > 0 ? ` The tier rows seed one dataset of ${TIER_SOLUTIONS.toLocaleString("en")} solutions into the same server (annotate run under 3 rules, its rollouts answer-only, two judge runs) and time requests through the tRPC fetch handler with a signed-in session, as the web benchmark does: ${TIER_REQUESTS} inspector, list (the web benchmark's eight views, pages 1–3 of 50) and rollout-panel requests after ${TIER_WARM_UP_REQUESTS} warm-ups, ${TIER_COMPARE_REQUESTS} of each compare procedure after 1 warm-up, each with other inputs. ${QUIET_WAIT_MINUTES > 0 ? `Timing starts once the machine's load average has fallen below ${(availableParallelism() * 0.6).toFixed(1)} (the row says what it was).` : "Timing starts at once, whatever the machine's load (the row says what it was)."} The metrics, three-way and scaling tabs ask with the page's default seed: their first view is timed on its own (it counts the gold outcomes and draws the finished runs' bootstrap replicates, counts every chunk by judge votes and Monte-Carlo label, or replays the run's samples, and stores what it computed) and the later views read what it stored while the runs' rows and the dataset's solutions stand (RowsChange); calibration against Monte-Carlo labels reads the same stored count; the new-seed rows pay the draws or the replay on every request. Disagreements compute every request from the stored rows.` : ""}`,
      limits: `Bytes per row depend on text lengths: seeded chunks are shorter than real ones (the dataset row uses the seed's texts), and the rollout texts are real MATH steps stitched together, so their compressibility is that of real math solutions but not of any one model's style (a model that repeats itself compresses better). Ids are cuids as Prisma writes them. Rows are written in key order, one batch at a time, so index sizes repeat from run to run; writers interleaving their batches split more index pages (a run of this benchmark with two seeding batches at once on a busy machine measured chunk-value indexes 40 % larger: 178 B against 127 B per row), and after months of mixed writes B-trees are typically 10–30 % larger than freshly filled ones. WAL, backups and free space after deletes are not counted. ${tierScale} Reads of rollouts walk one run's range of the primary key, whose depth grows by about one level per 100× rows, so a table ten times larger adds at most one page read per request. lz4 (on servers built with it) compresses model text a little less than pglz and decompresses several times faster; it was not measured here. A filtered list that searches text finds every solution its words match before it orders them (up to 10,000 matches; past that it walks the list's order), reading each match's page once along with the matching problems' pages${tierSearch} (real words may match far fewer or far more solutions).`,
      rows,
      bench: "storage",
    });
  } finally {
    await db.$disconnect();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
