import { describeRun, tryReadRunConfig } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { availableLabelRules } from "./readings";
import { COMPARABLE_KINDS, comparableRun } from "./runs";

/**
 * What the compare page can pick on a dataset: runs with solution-level
 * predictions (benchmark: SolutionPrediction rows; judge: SolutionRunStat
 * rows), annotate runs with stored labels (the Monte-Carlo reading), and the
 * dataset's annotation queues (the human reading).
 */
export async function compareCandidates({ db, input }: ServiceArgs<{ datasetId: string }>) {
  const [predictionRuns, annotateRuns, queues] = await Promise.all([
    db.run.findMany({
      where: { datasetId: input.datasetId, kind: { in: [...COMPARABLE_KINDS] } },
      orderBy: { createdAt: "desc" },
      select: { id: true, kind: true, name: true, status: true, datasetId: true, createdAt: true, config: true, _count: { select: { predictions: true, solutionStats: true } } },
    }),
    db.run.findMany({
      where: { datasetId: input.datasetId, kind: "annotate" },
      orderBy: { createdAt: "desc" },
      select: { id: true, kind: true, name: true, status: true, createdAt: true, config: true },
    }),
    db.annotationQueue.findMany({
      where: { datasetId: input.datasetId },
      orderBy: { createdAt: "desc" },
      select: { id: true, name: true, createdAt: true, annotateRunId: true, judgeRunId: true, archivedAt: true },
    }),
  ]);
  // A run whose stored config does not read cannot be compared faithfully: it is left out of the pickers.
  const runs = predictionRuns
    .filter((run) => tryReadRunConfig(run) !== null)
    .map((run) => ({ ...comparableRun(run), solutions: run.kind === "benchmark" ? run._count.predictions : run._count.solutionStats }))
    .filter((run) => run.solutions > 0);
  const annotate = await Promise.all(
    annotateRuns.map(async (run) => {
      const rules = await availableLabelRules(db, run.id);
      return { id: run.id, status: run.status, createdAt: run.createdAt, rules, label: describeRun(run) };
    }),
  );
  return {
    runs,
    /** Runs with per-chunk judge samples: the judge reading of three-way, calibration and scaling. */
    judgeRuns: runs.filter((run) => run.chunkSamples),
    annotateRuns: annotate.filter((run) => run.rules.length > 0),
    queues,
  };
}
