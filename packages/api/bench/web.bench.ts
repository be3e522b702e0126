import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { atProfile, writeBenchmarkReport, type BenchmarkRow } from "@stepwiser/config/bench";
import { createRng, THREE_WAY_PATTERNS } from "@stepwiser/core";
import { createDb } from "@stepwiser/db";
import { startEmbeddedPostgres } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { SEED_ROLLOUTS_PER_PREFIX, SEED_SUBSETS, seedLargeDataset } from "@stepwiser/db/seed";
import { authPool, type AssignmentView } from "../src";
import { measure as measureRequests, openBenchSession, seededListViews, summarise, type Timings } from "./web-session";

/**
 * Server time of the web app's heaviest requests on a 100k-solution /
 * 1M-chunk / 16M-rollout dataset (the full profile; the quick one seeds 1k
 * solutions): the inspector and the rollouts behind a Q-value, filtered list
 * pages, the compare page over the two judge runs (the solution-level metrics
 * and disagreements, and once the annotators have rated chunks, the chunk-level
 * three-way agreement, calibration and Maj@K scaling), and the annotation
 * queue's next item / submit with 20 annotators at once. Each request goes
 * through the real tRPC fetch handler with a real session cookie (session
 * lookup, validation, queries, serialisation), against an embedded PostgreSQL
 * holding the seeded data.
 */
const SOLUTIONS = Number(process.env.STEPWISER_BENCH_SOLUTIONS ?? atProfile({ full: 100_000, quick: 1_000 }));
/** Pages of 50 of the unfiltered list the deep-page row draws from: the first 2,000, or all a smaller dataset has. */
const LIST_PAGES = Math.min(2_000, Math.ceil(SOLUTIONS / 50));
const REQUESTS = Number(process.env.STEPWISER_BENCH_REQUESTS ?? atProfile({ full: 300, quick: 30 }));
/** Untimed requests before each inspector, rollout and list row's timed ones (warm caches and the plan cache). */
const WARM_UP_REQUESTS = atProfile({ full: 20, quick: 5 });
/** Requests per whole-dataset compare procedure (metrics, disagreements, candidates: each reads all the dataset's solutions). */
const COMPARE_REQUESTS = Number(process.env.STEPWISER_BENCH_COMPARE_REQUESTS ?? atProfile({ full: 8, quick: 2 }));
/** Requests for one solution side by side (compare.item), after the warm-up requests. */
const COMPARE_ITEM_REQUESTS = atProfile({ full: 100, quick: 10 });
/** Requests per chunk-level compare procedure (three-way, calibration: each reads every chunk's judge votes; scaling replays every solution). */
const CHUNK_COMPARE_REQUESTS = Number(process.env.STEPWISER_BENCH_CHUNK_COMPARE_REQUESTS ?? atProfile({ full: 5, quick: 2 }));
/** Random K-subsets per K in the scaling rows (the page's default). */
const SCALING_DRAWS = 20;
const ANNOTATORS = Number(process.env.STEPWISER_BENCH_ANNOTATORS ?? 20);
/** How long the annotators work, and their mean time on an item between receiving it and submitting (uniform ½–1½ × this). */
const ANNOTATION_SECONDS = Number(process.env.STEPWISER_BENCH_ANNOTATION_SECONDS ?? atProfile({ full: 60, quick: 10 }));
/** The same loop before the timed window, reported on its own row: the first use of the claim and submit paths. */
const ANNOTATION_WARMUP_SECONDS = Number(process.env.STEPWISER_BENCH_ANNOTATION_WARMUP_SECONDS ?? atProfile({ full: 10, quick: 3 }));
const THINK_MS = Number(process.env.STEPWISER_BENCH_THINK_MS ?? 4000);
/** The same annotators with no time on an item: 20 requests always in flight, the server saturated. */
const SATURATION_SECONDS = Number(process.env.STEPWISER_BENCH_SATURATION_SECONDS ?? atProfile({ full: 8, quick: 3 }));
/** Share of ChunkValue's pages sampled for the rollout row's prefixes: enough pages to draw from at either size. */
const PREFIX_SAMPLE_PERCENT = atProfile({ full: 1, quick: 20 });
async function main() {
  const wallStarted = performance.now();
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-web-bench-"));
  chmodSync(scratch, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pg"), ephemeral: true });
  const url = server.url("postgres");
  const pool = authPool(url);
  const db = createDb(url);
  try {
    await applyMigrations(url);
    const seedStarted = performance.now();
    const seeded = await seedLargeDataset(url, { solutions: SOLUTIONS, seed: 7, rolloutsPerPrefix: SEED_ROLLOUTS_PER_PREFIX });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    // The seed's last step vacuumed every table, dirtying gigabytes of pages; flushed now, so that the checkpointer
    // does not write them out (and slow every commit's WAL flush) while requests are timed.
    await db.$executeRawUnsafe("CHECKPOINT");
    const solutionsSeconds = seeded.timings.solutionsMs / 1000;
    const rolloutsSeconds = seeded.timings.rolloutsMs / 1000;
    console.error(
      `seeded ${seeded.solutions} solutions, ${seeded.chunks} chunks in ${solutionsSeconds.toFixed(0)} s, ${seeded.rollouts} rollouts in ${rolloutsSeconds.toFixed(0)} s (${seedSeconds.toFixed(0)} s in all)`,
    );

    // 1 viewer, 1 researcher (creates the queue), 20 annotators: every one signs in through better-auth.
    const { signIn, call, timedQuery, caller } = await openBenchSession(db, url, pool);
    const researcher = await signIn("researcher@example.test", "researcher");

    const rng = createRng(11);
    const ids = (await db.solution.findMany({ where: { datasetId: seeded.datasetId }, select: { id: true } })).map((t) => t.id);
    const pick = <T>(items: readonly T[]): T => items[rng.nextInt(items.length)]!;
    const { datasetId, annotateRunId, judgeRunIds } = seeded;
    // The views a researcher builds: each a filter plus a sort, at a random early page.
    const views = seededListViews(rng, seeded);
    const measure = (label: string, run: () => Promise<number>, requests = REQUESTS, warmUp = WARM_UP_REQUESTS): Promise<Timings> => measureRequests(label, run, requests, warmUp);

    const inspector = await measure("inspector", () => timedQuery("solution.inspect", { id: pick(ids) }));
    const list = await measure("filtered list", () => timedQuery("solution.list", { datasetId, page: 1 + rng.nextInt(3), pageSize: 50, ...pick(views)() }));
    const deepPage = await measure(`unfiltered list, page 1–${LIST_PAGES}`, () => timedQuery("solution.list", { datasetId, page: 1 + rng.nextInt(LIST_PAGES), pageSize: 50 }));
    // n/p is pressed on a solution opened from its list: pick one from a page of that list.
    const neighborViews = views.map((view) => view());
    const neighbors = await measure("next/previous", async () => {
      const view = pick(neighborViews);
      const listed = await caller.solution.list({ datasetId, page: 1 + rng.nextInt(3), pageSize: 50, ...view });
      if (listed.items.length === 0) return timedQuery("solution.neighbors", { datasetId, id: pick(ids), ...view });
      return timedQuery("solution.neighbors", { datasetId, id: pick(listed.items).id, ...view });
    });

    // The inspector's rollouts panel: the 16 rollouts behind one Q-value, read through the unique (run, segmentation, prefix, sample) index.
    const prefixes = await db.$queryRawUnsafe<Array<{ segmentationId: string; prefixLength: number }>>(
      `SELECT "segmentationId", "prefixLength" FROM "ChunkValue" TABLESAMPLE SYSTEM (${PREFIX_SAMPLE_PERCENT}) REPEATABLE (11) WHERE "runId" = $1 AND "rolloutCount" > 0 LIMIT 2000`,
      annotateRunId,
    );
    const rollouts = await measure("rollouts of a prefix", () => timedQuery("rollout.list", { runId: annotateRunId, ...pick(prefixes) }));

    // Compare page over the two judge runs (every seeded solution has a gold first error, so all of them are compared).
    const [strong, weak] = judgeRunIds;
    const compareCandidates = await measure("compare candidates", () => timedQuery("compare.candidates", { datasetId }), COMPARE_REQUESTS, 1);
    // The metrics tab asks with the page's default seed: the first view of the pair draws and stores both finished runs'
    // bootstrap replicates, later views (any order, any baseline) read them back. A new seed draws again.
    const checkpointsQuery = (seed: number | undefined) =>
      timedQuery("compare.checkpoints", { runIds: rng.nextInt(2) ? [strong, weak] : [weak, strong], baselineRunId: rng.nextInt(2) ? strong : weak, ...(seed === undefined ? {} : { seed }) });
    const compareMetricsFirst = await measure("compare metrics, first view", () => checkpointsQuery(undefined), 1, 0);
    const compareMetrics = await measure("compare metrics, later views", () => checkpointsQuery(undefined), COMPARE_REQUESTS, 1);
    const compareMetricsNewSeed = await measure("compare metrics, new seed", () => checkpointsQuery(1 + rng.nextInt(1_000_000)), COMPARE_REQUESTS, 1);
    // As after a change to the runs' rows or the dataset's solutions: the gold outcomes are counted again in SQL (the replicates stay stored).
    const compareMetricsRecount = await measure(
      "compare metrics, outcomes counted anew",
      async () => {
        await db.goldOutcomeCounts.deleteMany({});
        return checkpointsQuery(undefined);
      },
      COMPARE_REQUESTS,
      0,
    );
    const goldFilters = [undefined, "none", "error", 0, 1, 2, 3] as const;
    const kinds = [undefined, "a_right", "b_right", "both_wrong"] as const;
    const compareDisagreements = await measure(
      "compare disagreements",
      () =>
        timedQuery("compare.disagreements", {
          runA: strong,
          runB: weak,
          subset: rng.nextInt(2) ? pick(SEED_SUBSETS) : undefined,
          goldFirstError: pick(goldFilters),
          kind: pick(kinds),
          cursor: 50 * rng.nextInt(3),
          limit: 50,
        }),
      COMPARE_REQUESTS,
      1,
    );
    const compareItem = await measure("compare item", () => timedQuery("compare.item", { solutionId: pick(ids), runIds: [strong, weak] }), COMPARE_ITEM_REQUESTS);

    // Annotation: a queue of the largest size the app allows, 3 annotators per item, with the Monte-Carlo labels and judge votes shown;
    // its annotators are members, as outside annotators must be to see it.
    const annotators: Array<{ id: string; cookie: string }> = [];
    for (let i = 0; i < ANNOTATORS; i++) annotators.push(await signIn(`annotator-${i}@example.test`, "annotator"));
    const queueCreation = await call<{ queueId: string; items: number }>(
      "annotationQueue.createQueue",
      {
        name: "bench queue",
        datasetId,
        annotatorsPerItem: 3,
        annotateRunId,
        judgeRunId: strong,
        selection: { kind: "random", runId: annotateRunId, size: 5000, seed: 1 },
        annotatorIds: annotators.map((a) => a.id),
      },
      researcher.cookie,
      "POST",
    );
    const { queueId, items: queueItems } = queueCreation.data;
    console.error(`queue of ${queueItems} items created in ${queueCreation.ms.toFixed(0)} ms`);

    /** Every annotator in a loop: take the next item, rate each chunk (for `thinkMs` on average, none when 0), submit, take the next. */
    const annotate = async (seconds: number, thinkMs: number) => {
      const nextTimes: number[] = [];
      const submitTimes: number[] = [];
      let labelled = 0;
      const deadline = performance.now() + seconds * 1000;
      const started = performance.now();
      await Promise.all(
        annotators.map(async (annotator, a) => {
          const own = createRng(`annotator-${a}-${thinkMs}`);
          const think = () => thinkMs * (0.5 + own.nextFloat());
          if (thinkMs > 0) await sleep(own.nextFloat() * thinkMs); // arrive spread out, as people do
          const next = async () => {
            const { ms, data } = await call<AssignmentView | null>("annotationQueue.next", { queueId }, annotator.cookie, "POST");
            nextTimes.push(ms);
            return data;
          };
          let view = await next();
          while (view && performance.now() < deadline) {
            if (thinkMs > 0) await sleep(think());
            const labels = view.chunks.map((chunk) => ({
              chunkId: chunk.id,
              // Mostly the model's label, sometimes neutral or the opposite.
              rating: (own.nextFloat() < 0.1 ? 0 : (chunk.mcLabel === "Negative") !== own.nextFloat() < 0.15 ? -1 : 1) as -1 | 0 | 1,
            }));
            const submitted = await call("annotationQueue.submit", { assignmentId: view.assignmentId, labels }, annotator.cookie, "POST");
            submitTimes.push(submitted.ms);
            labelled += 1;
            view = await next();
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const result = { next: summarise(nextTimes), submit: summarise(submitTimes), labelled, perSecond: labelled / elapsed };
      console.error(
        `annotation (${seconds} s): ${labelled} items labelled (${result.perSecond.toFixed(1)}/s), next p50 ${result.next.p50.toFixed(1)} ms p95 ${result.next.p95.toFixed(1)} ms, submit p50 ${result.submit.p50.toFixed(1)} ms p95 ${result.submit.p95.toFixed(1)} ms`,
      );
      return result;
    };
    const annotationWarmUp = await annotate(ANNOTATION_WARMUP_SECONDS, THINK_MS);
    const paced = await annotate(ANNOTATION_SECONDS, THINK_MS);
    const saturated = await annotate(SATURATION_SECONDS, 0);
    const humanLabels = await db.humanLabel.count({ where: { queueId } });

    // The chunk-level compare views, now that the queue holds human labels, every request with other inputs (run, queue, pattern, seed).
    // The first view of a finished judge run (with or without the annotate run's labels) counts its chunks by votes and
    // label and stores the count (ReadingGroupCounts); later views read it back and compute only the human side.
    const threeWayFirst = await measure("compare three-way, first view", () => timedQuery("compare.threeWay", { judgeRunId: strong, annotateRunId, cursor: 0, limit: 200 }), 1, 0);
    await timedQuery("compare.threeWay", { judgeRunId: weak, annotateRunId, cursor: 0, limit: 200 });
    for (const judgeRunId of [strong, weak]) await timedQuery("compare.calibration", { judgeRunId, reference: "human", queueId, bins: 10 });
    const threeWay = await measure(
      "compare three-way",
      () =>
        timedQuery("compare.threeWay", {
          judgeRunId: pick([strong, weak]),
          annotateRunId,
          queueId: rng.nextInt(2) ? queueId : undefined,
          pattern: pick([undefined, ...THREE_WAY_PATTERNS]),
          cursor: 0,
          limit: 200,
        }),
      CHUNK_COMPARE_REQUESTS,
      1,
    );
    const calibration = await measure(
      "compare calibration",
      () =>
        timedQuery(
          "compare.calibration",
          rng.nextInt(2) ? { judgeRunId: pick([strong, weak]), reference: "mc", annotateRunId, bins: 5 + rng.nextInt(10) } : { judgeRunId: pick([strong, weak]), reference: "human", queueId, bins: 5 + rng.nextInt(10) },
        ),
      CHUNK_COMPARE_REQUESTS,
      1,
    );
    // As after a change to either run's rows: judge × Monte-Carlo counted again from every vote row and label.
    const threeWayRecount = await measure(
      "compare three-way, counted anew",
      async () => {
        await db.readingGroupCounts.deleteMany({});
        return timedQuery("compare.threeWay", { judgeRunId: pick([strong, weak]), annotateRunId, queueId: rng.nextInt(2) ? queueId : undefined, cursor: 0, limit: 200 });
      },
      CHUNK_COMPARE_REQUESTS,
      0,
    );
    // Scaling likewise: the page's default seed replays a finished run once and stores its curve; a new seed replays again.
    const scalingQuery = (run: string, seed: number | undefined) => timedQuery("compare.scaling", { runIds: [run], draws: SCALING_DRAWS, ...(seed === undefined ? {} : { seed }) });
    const scalingFirst = await measure("compare scaling, first view", () => scalingQuery(strong, undefined), 1, 0);
    await scalingQuery(weak, undefined);
    const scaling = await measure("compare scaling, later views", () => scalingQuery(pick([strong, weak]), undefined), CHUNK_COMPARE_REQUESTS, 1);
    const scalingNewSeed = await measure("compare scaling, new seed", () => scalingQuery(pick([strong, weak]), 1 + rng.nextInt(1_000_000)), CHUNK_COMPARE_REQUESTS, 0);

    const wallSeconds = (performance.now() - wallStarted) / 1000;
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const p50p95 = (t: Timings) => `${ms(t.p50)} / ${ms(t.p95)}`;
    const n = (value: number) => value.toLocaleString("en");
    /** 16M, 320k: a row count as the row names it. */
    const compact = (value: number) => (value >= 1e6 ? `${Math.round(value / 1e6)}M` : value >= 1e3 ? `${Math.round(value / 1e3)}k` : String(value));
    const compareP95 = Math.max(compareMetrics.p95, compareDisagreements.p95, threeWay.p95, calibration.p95, scaling.p95); // the rows with targets
    const rows: BenchmarkRow[] = [
      {
        metric: "seeded",
        value: `${n(seeded.solutions)} solutions (${n(seeded.problems)} problems), ${n(seeded.chunks)} chunks, ${n(seeded.rollouts)} rollout rows, ${n(seeded.chunks + seeded.solutions)} chunk values, ${n(seeded.chunks * 3)} chunk labels, ${n(seeded.chunks * 4)} judge samples; 3 runs (1 annotate, 2 judge); 1 annotation queue of ${n(queueItems)} items, ${n(humanLabels)} human labels written by the annotators`,
      },
      { metric: "seed time: solutions, chunks, values, labels, judge samples, stats", value: `${solutionsSeconds.toFixed(0)} s` },
      { metric: `seed time: ${n(seeded.rollouts)} rollouts`, value: `${rolloutsSeconds.toFixed(0)} s` },
      { metric: "inspector (solution.inspect) p95", value: ms(inspector.p95), target: "< 150 ms", met: inspector.p95 < 150 },
      { metric: "inspector p50 / max", value: `${ms(inspector.p50)} / ${ms(inspector.max)}` },
      { metric: `rollouts of one prefix in the inspector (rollout.list, 16 of ${compact(seeded.rollouts)} rows) p50 / p95`, value: p50p95(rollouts) },
      { metric: "filtered list page (solution.list) p95", value: ms(list.p95), target: "< 100 ms", met: list.p95 < 100 },
      { metric: "filtered list page p50 / max", value: `${ms(list.p50)} / ${ms(list.max)}` },
      { metric: `unfiltered list, random page of ${n(LIST_PAGES)}, p95`, value: ms(deepPage.p95) },
      { metric: "next/previous from a solution of a filtered, sorted list (solution.neighbors) p95", value: ms(neighbors.p95) },
      { metric: "compare: runs to pick (compare.candidates) p50 / p95", value: p50p95(compareCandidates) },
      {
        metric: `compare: metrics tab, 2 judge runs on ${n(seeded.solutions)} gold solutions, 1,000 resamples, the page's default seed, replicates stored (compare.checkpoints) p95`,
        value: ms(compareMetrics.p95),
        target: "< 500 ms",
        met: compareMetrics.p95 < 500,
      },
      { metric: "compare.checkpoints p50 / max", value: `${ms(compareMetrics.p50)} / ${ms(compareMetrics.max)}` },
      { metric: "compare.checkpoints, first view of the pair (counts the gold outcomes in SQL, draws both runs' replicates, stores both)", value: ms(compareMetricsFirst.max) },
      { metric: "compare.checkpoints with the gold outcomes counted anew in SQL (as after a change to the runs' rows or the dataset's solutions; replicates stored) p50 / p95", value: p50p95(compareMetricsRecount) },
      { metric: "compare.checkpoints with a new seed each request (draws both runs again) p50 / p95", value: p50p95(compareMetricsNewSeed) },
      { metric: "compare: disagreements tab page (compare.disagreements) p95", value: ms(compareDisagreements.p95), target: "< 300 ms", met: compareDisagreements.p95 < 300 },
      { metric: "compare.disagreements p50 / max", value: `${ms(compareDisagreements.p50)} / ${ms(compareDisagreements.max)}` },
      { metric: "compare: one solution side by side (compare.item) p50 / p95", value: p50p95(compareItem) },
      { metric: `annotation queue creation (${n(queueItems)} items, random sample of the annotate run)`, value: ms(queueCreation.ms) },
      {
        metric: `annotation next item (annotationQueue.next), ${ANNOTATORS} annotators at once (${THINK_MS / 1000} s per item on average), p95`,
        value: ms(paced.next.p95),
        target: "< 50 ms",
        met: paced.next.p95 < 50,
      },
      { metric: "annotation next item p50 / max", value: `${ms(paced.next.p50)} / ${ms(paced.next.max)}` },
      {
        metric: `annotation next item in the annotators' first ${ANNOTATION_WARMUP_SECONDS} s (the warm-up before the timed window: first use of the claim and submit paths) p50 / p95 / max`,
        value: `${ms(annotationWarmUp.next.p50)} / ${ms(annotationWarmUp.next.p95)} / ${ms(annotationWarmUp.next.max)} (${n(annotationWarmUp.next.n)} calls)`,
      },
      { metric: "annotation submit (annotationQueue.submit) p50 / p95", value: p50p95(paced.submit) },
      { metric: `annotation items labelled in ${ANNOTATION_SECONDS} s`, value: `${n(paced.labelled)} (${paced.perSecond.toFixed(1)}/s, ${n(paced.next.n)} next calls)` },
      {
        metric: `saturated, no time on an item (${ANNOTATORS} requests always in flight): next p50 / p95, submit p50 / p95, items/s`,
        value: `${p50p95(saturated.next)}, ${p50p95(saturated.submit)}, ${saturated.perSecond.toFixed(1)}/s`,
      },
      {
        metric: `compare: judge × Monte-Carlo × human on ${n(seeded.chunks)} chunks (compare.threeWay) p95`,
        value: ms(threeWay.p95),
        target: "< 1000 ms",
        met: threeWay.p95 < 1000,
      },
      { metric: "compare.threeWay p50 / max", value: `${ms(threeWay.p50)} / ${ms(threeWay.max)}` },
      { metric: "compare.threeWay, first view of a judge run (counts every chunk by votes and Monte-Carlo label, stores the count)", value: ms(threeWayFirst.max) },
      { metric: "compare.threeWay with judge × Monte-Carlo counted anew (as after a change to either run's rows) p50 / p95", value: p50p95(threeWayRecount) },
      { metric: "compare: judge calibration against Monte-Carlo labels or human ratings (compare.calibration) p95", value: ms(calibration.p95), target: "< 1000 ms", met: calibration.p95 < 1000 },
      { metric: "compare.calibration p50 / max", value: `${ms(calibration.p50)} / ${ms(calibration.max)}` },
      {
        metric: `compare: Maj@K scaling of one judge run, K = 1, 2, ${SCALING_DRAWS} draws, the page's default seed, curve stored (compare.scaling) p95`,
        value: ms(scaling.p95),
        target: "< 1000 ms",
        met: scaling.p95 < 1000,
      },
      { metric: "compare.scaling p50 / max", value: `${ms(scaling.p50)} / ${ms(scaling.max)}` },
      { metric: "compare.scaling, first view of a run (replays every sample, stores the curve)", value: ms(scalingFirst.max) },
      { metric: "compare.scaling with a new seed each request (replays every sample) p50 / p95", value: p50p95(scalingNewSeed) },
      { metric: "benchmark wall time (seed and measurements)", value: `${wallSeconds.toFixed(0)} s` },
    ];
    writeBenchmarkReport({
      name: "web",
      bench: "web.bench",
      title: "Web app server time at scale",
      method: [
        `${n(seeded.solutions)} solutions, ${n(seeded.chunks)} chunks and ${n(seeded.rollouts)} rollouts seeded into an embedded PostgreSQL: one annotate run with 16 rollouts per chunk prefix (their correct counts are the stored Q-values), Q-values and three labels per chunk; two judge runs with two samples per chunk.`,
        `The seeded tables are vacuumed and analysed once written, as autovacuum leaves them, and a checkpoint flushes what that wrote before anything is timed. Each request goes through the tRPC fetch handler with a signed-in session and is timed until its whole response body is read.`,
        `Inspector, rollout and list rows: ${REQUESTS} requests each after ${WARM_UP_REQUESTS} warm-up requests, one at a time; filtered lists draw from eight views (correctness and generator; lowest-Q range sorted by Q; rule disagreement; judge vs. Monte-Carlo first error; judge verdict with source label; text search; text search sorted by Q; subset and correctness by id) at pages 1–3 of 50.`,
        `Compare rows: the page over the two judge runs, all ${n(seeded.solutions)} solutions with a gold first error compared, with the page's defaults (1,000 bootstrap resamples, seed 0; disagreement pages of 50 with random subset, gold-position and kind filters); ${COMPARE_REQUESTS} requests for each solution-level procedure after 1 warm-up, ${COMPARE_ITEM_REQUESTS} for the side-by-side item. The metrics tab's first view of the pair is timed on its own: it counts each run's outcomes per subset on the common gold in SQL (GoldOutcomeCounts) and draws both finished runs' bootstrap replicates (BootstrapReplicates), and stores both, which later views, in either run order and with either baseline, read back while the rows they were computed from stand (RowsChange); the new-seed row asks with a fresh seed each time, so every request draws both runs again; the counted-anew row drops the stored outcomes before each request, as a change to the runs' rows or the dataset's solutions would.`,
        `The chunk-level rows run after the annotation phase, so the queue's human labels are there: three-way agreement of a random judge run with the annotate run's first rule (human labels of the queue or of the whole dataset, a random pattern filter), calibration of a random judge run against Monte-Carlo labels or the queue's human ratings, Maj@K scaling of a random judge run with ${SCALING_DRAWS} draws at the page's default seed; ${CHUNK_COMPARE_REQUESTS} requests each after 1 warm-up. Three-way and calibration count every chunk by the judge's votes (ChunkVotes, kept by triggers on JudgeSample, read from a covering index) and its Monte-Carlo label on the first view of a finished judge run and store the count (ReadingGroupCounts); that first view is timed on its own, the other combinations of run and labels are viewed once untimed, and the later views read the count back and compute the human side from the rows; the counted-anew row drops the stored counts before each request, as a change to either run's rows would. Scaling's first view of each run replays every stored sample and stores the curve (ScalingCurve), which later views with the same draws and seed read back; the new-seed row (${CHUNK_COMPARE_REQUESTS} requests, no warm-up) replays every time.`,
        `Annotation: a researcher creates a queue (random sample of ${n(queueItems)} solutions of the annotate run, 3 annotators per item, Monte-Carlo labels and judge votes shown) with ${ANNOTATORS} annotators as its members; they, each signed in, then work it at once, each in the annotate page's loop: next item, ${THINK_MS / 1000} s on average (uniform ${(THINK_MS / 2000).toFixed(1)}–${((THINK_MS * 1.5) / 1000).toFixed(1)} s) rating every chunk, submit, next item; first for ${ANNOTATION_WARMUP_SECONDS} s as a warm-up (reported on its own row: the first claims and submits after the server starts are the first use of their code paths), then for ${ANNOTATION_SECONDS} s timed.`,
        `People need tens of seconds to rate a solution of 4–16 chunks, so this is several times the load of ${ANNOTATORS} real annotators; the saturated row repeats the loop for ${SATURATION_SECONDS} s with no time on an item, so ${ANNOTATORS} requests are always waiting on the one Node.js process and the 2-core machine.`,
      ].join(" "),
      rows,
    });
    const targets = rows.filter((row) => row.met !== undefined);
    const missed = targets.filter((row) => row.met === false).length;
    process.stdout.write(
      `web: inspector p95 ${ms(inspector.p95)}, list p95 ${ms(list.p95)}, compare p95 ${ms(compareP95)}, next-item p95 ${ms(paced.next.p95)} (${ANNOTATORS} annotators) — ${missed === 0 ? "all targets met" : `${missed} missed`}\n`,
    );
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
