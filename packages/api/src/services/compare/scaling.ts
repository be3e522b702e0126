import { verifierScalingReplay, type ScalingSolution, type StoredJudgeSample, type Verdict, type VerifierScaling } from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { cached, rowsVersion, scalingCurveStore } from "./cache";
import { FINISHED_STATUSES, loadCommonGold, loadJudgeSampleRun, type ComparableRun, type GoldSolution } from "./runs";

/** Solutions read and replayed at a time: the samples of one page are all that is held. */
const SOLUTION_PAGE = 2000;

/** The fewest samples the run stored on any chunk of these solutions' segmentation (0 when it judged none). */
async function fewestStoredSamples(db: Db, run: ComparableRun, solutionIds: readonly string[]): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ fewest: number | null }>>(
    Prisma.sql`SELECT min(cardinality(v."sampleIndexes"))::int AS fewest
       FROM "ChunkVotes" v
       JOIN "Chunk" c ON c.id = v."chunkId"
       JOIN "Segmentation" s ON s.id = c."segmentationId"
      WHERE v."runId" = ${run.id} AND s.method = ${run.segmentationMethod} AND s."solutionId" = ANY(${solutionIds}::text[])`,
  );
  return row?.fewest ?? 0;
}

/**
 * One page of gold solutions with every chunk of the run's segmentation in order and the samples stored on it (in
 * sampleIndex order, from ChunkVotes). The page's ids drive the join, so each solution's segmentation is found
 * through its (solutionId, method) key rather than by filtering every segmentation of the dataset per page.
 */
async function loadPage(db: Db, run: ComparableRun, page: readonly GoldSolution[]): Promise<ScalingSolution[]> {
  const rows = await db.$queryRaw<Array<{ solutionId: string; verdicts: Verdict[]; promptTokens: number[]; completionTokens: number[] }>>(
    Prisma.sql`SELECT s."solutionId",
            coalesce(v.verdicts::text[], '{}') AS verdicts,
            coalesce(v."promptTokens", '{}') AS "promptTokens",
            coalesce(v."completionTokens", '{}') AS "completionTokens"
       FROM unnest(${page.map((g) => g.solutionId)}::text[]) AS page("solutionId")
       JOIN "Segmentation" s ON s."solutionId" = page."solutionId" AND s.method = ${run.segmentationMethod}
       JOIN "Chunk" c ON c."segmentationId" = s.id
       LEFT JOIN "ChunkVotes" v ON v."runId" = ${run.id} AND v."chunkId" = c.id
      ORDER BY s."solutionId", c.index`,
  );
  const chunksOf = new Map<string, Array<{ samples: StoredJudgeSample[] }>>();
  for (const row of rows) {
    const list = chunksOf.get(row.solutionId) ?? [];
    chunksOf.set(row.solutionId, list);
    list.push({ samples: row.verdicts.map((verdict, i) => ({ verdict, promptTokens: row.promptTokens[i]!, completionTokens: row.completionTokens[i]! })) });
  }
  return page.map((g) => ({ id: g.id, label: g.label, subset: g.subset, chunks: chunksOf.get(g.solutionId) ?? [] }));
}

async function runScaling(db: Db, run: ComparableRun, draws: number, seed: number) {
  // A finished run's curve is stored under the version of its rows and its dataset's solutions (`rowsVersion`),
  // and read back while that version stands, without reading the gold solutions.
  const version = FINISHED_STATUSES.has(run.status) ? await rowsVersion(db, { runIds: [run.id], datasetIds: [run.datasetId] }) : null;
  const curve = await cached(scalingCurveStore(db, { runId: run.id, draws, seed }), version, async () => replayScaling(db, run, (await loadCommonGold(db, [run])).gold, draws, seed));
  return { run, ...curve };
}

async function replayScaling(db: Db, run: ComparableRun, gold: readonly GoldSolution[], draws: number, seed: number): Promise<VerifierScaling> {
  const maxK = await fewestStoredSamples(db, run, gold.map((g) => g.solutionId));
  // Read votes as the run did: a benchmark's unparseable vote makes the prediction unparseable; a judge run's stat skips it.
  const replay = verifierScalingReplay({ maxK, draws, seed, tiePolicy: run.tiePolicy, stopAtFirstNegative: run.stopAtFirstNegative, unparseableChunk: run.kind === "benchmark" ? "invalid" : "Positive" });
  for (let start = 0; start < gold.length; start += SOLUTION_PAGE) {
    const page = gold.slice(start, start + SOLUTION_PAGE);
    // Without any K to replay, only the solution count matters: no samples are read.
    replay.add(maxK > 0 ? await loadPage(db, run, page) : page.map((g) => ({ id: g.id, label: g.label, subset: g.subset, chunks: [] })));
  }
  return replay.finish();
}

/**
 * Maj@K curves from the samples the runs stored (no new model requests): for
 * K = 1, 2, 4, … up to the fewest samples stored on a chunk, the ProcessBench
 * F1 and the judge tokens per solution, each the mean over `draws` random
 * K-subsets. See `verifierScaling` for how unjudged chunks and prompt tokens
 * are read. The solutions are replayed a page at a time (`verifierScalingReplay`),
 * so memory holds one page's samples, not the run's. A finished run's curve is
 * stored the first time (ScalingCurve) and read back while its rows and its
 * dataset's solutions stay as they were.
 */
export async function compareScaling({ db, input }: ServiceArgs<{ runIds: string[]; draws: number; seed: number }>) {
  const runs = [];
  for (const id of new Set(input.runIds)) runs.push(await loadJudgeSampleRun(db, id));
  const curves = [];
  for (const run of runs) curves.push(await runScaling(db, run, input.draws, input.seed));
  return { draws: input.draws, seed: input.seed, runs: curves };
}
