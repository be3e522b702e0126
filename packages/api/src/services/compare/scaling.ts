import { verifierScaling, type ScalingSolution, type StoredJudgeSample } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { ServiceArgs } from "../args";
import { loadCommonGold, loadJudgeSampleRun, type ComparableRun } from "./runs";

const PAGE = 20_000;

/** The run's stored samples per chunk id (verdict and token counts only). */
async function loadSamples(db: Db, runId: string): Promise<Map<string, StoredJudgeSample[]>> {
  const byChunk = new Map<string, StoredJudgeSample[]>();
  let cursor: string | undefined;
  for (;;) {
    const page = await db.judgeSample.findMany({
      where: { runId, ...(cursor ? { id: { gt: cursor } } : {}) },
      orderBy: { id: "asc" },
      take: PAGE,
      select: { id: true, chunkId: true, verdict: true, promptTokens: true, completionTokens: true },
    });
    for (const s of page) byChunk.set(s.chunkId, [...(byChunk.get(s.chunkId) ?? []), { verdict: s.verdict, promptTokens: s.promptTokens, completionTokens: s.completionTokens }]);
    if (page.length < PAGE) return byChunk;
    cursor = page[page.length - 1]!.id;
  }
}

async function runScaling(db: Db, run: ComparableRun, draws: number, seed: number) {
  const { gold } = await loadCommonGold(db, [run]);
  const [samples, segmentations] = await Promise.all([
    loadSamples(db, run.id),
    db.segmentation.findMany({
      where: { method: run.segmentationMethod, trajectoryId: { in: gold.map((g) => g.trajectoryId) } },
      select: { trajectoryId: true, chunks: { orderBy: { index: "asc" }, select: { id: true } } },
    }),
  ]);
  const chunksOf = new Map(segmentations.map((s) => [s.trajectoryId, s.chunks]));
  const solutions: ScalingSolution[] = gold.map((g) => ({
    id: g.id,
    label: g.label,
    subset: g.subset,
    chunks: (chunksOf.get(g.trajectoryId) ?? []).map((c) => ({ samples: samples.get(c.id) ?? [] })),
  }));
  // Read votes as the run did: a benchmark's unparseable vote makes the prediction unparseable; a judge run's stat skips it.
  const scaling = verifierScaling(solutions, { draws, seed, tiePolicy: run.tiePolicy, stopAtFirstNegative: run.stopAtFirstNegative, unparseableChunk: run.kind === "benchmark" ? "invalid" : "Positive" });
  return { run, ...scaling };
}

/**
 * Maj@K curves from the samples the runs stored (no new model requests): for
 * K = 1, 2, 4, … up to the fewest samples stored on a chunk, the ProcessBench
 * F1 and the judge tokens per solution, each the mean over `draws` random
 * K-subsets. See `verifierScaling` for how unjudged chunks and prompt tokens are read.
 */
export async function compareScaling({ db, input }: ServiceArgs<{ runIds: string[]; draws: number; seed: number }>) {
  const runs = [];
  for (const id of new Set(input.runIds)) runs.push(await loadJudgeSampleRun(db, id));
  const curves = [];
  for (const run of runs) curves.push(await runScaling(db, run, input.draws, input.seed));
  return { draws: input.draws, seed: input.seed, runs: curves };
}
