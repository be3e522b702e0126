import { InputError, NotFoundError } from "@stepwiser/core";
import type { ServiceArgs } from "../../args";
import { annotateResults } from "./annotate";
import { benchmarkResults } from "./benchmark";
import { generateResults } from "./generate";
import { judgeResults } from "./judge";
import { resultRunSelect } from "./run";
import { bestOfNSummarySchema, chunkResetSummarySchema, exportSummarySchema, importSummarySchema, readSummary, reportFacts, segmentSummarySchema } from "./summaries";

/**
 * A run's results for reading, one shape per run kind (`kind` tells which):
 * the stored summary parsed, plus what the kind's view needs beyond it
 * (label balance and Q-values, agreement with labels, intervals, the plan's
 * estimate). A summary of an unknown shape reads as null; nothing is
 * computed for a run that has not finished (its summary is null).
 */
export async function runResults({ db, input }: ServiceArgs<{ id: string }>) {
  const run = await db.run.findUnique({ where: { id: input.id }, select: resultRunSelect });
  if (!run) throw new NotFoundError(`run ${input.id} does not exist`);
  const base = { runId: run.id, status: run.status };
  switch (run.kind) {
    case "annotate":
      return { ...base, ...(await annotateResults(db, run)) };
    case "judge":
      return { ...base, ...(await judgeResults(db, run)) };
    case "benchmark":
      return { ...base, ...(await benchmarkResults(db, run)) };
    case "generate":
      return { ...base, ...(await generateResults(db, run)) };
    case "chunk_reset":
      return { ...base, kind: "chunk_reset" as const, summary: readSummary(chunkResetSummarySchema, run.summary) };
    case "best_of_n":
      return { ...base, kind: "best_of_n" as const, summary: readSummary(bestOfNSummarySchema, run.summary) };
    case "segment":
      return { ...base, kind: "segment" as const, summary: readSummary(segmentSummarySchema, run.summary) };
    case "import":
      return { ...base, kind: "import" as const, summary: readSummary(importSummarySchema, run.summary) };
    case "export": {
      const summary = readSummary(exportSummarySchema, run.summary);
      return { ...base, kind: "export" as const, summary: summary && { kind: summary.kind, files: summary.files, facts: reportFacts(summary.report) } };
    }
    default:
      // `Run.kind` is text: a row of a kind this release does not know (written by hand or by another release).
      throw new InputError(`run ${run.id} is a "${run.kind}" run, a kind this release does not know`, { field: "kind" });
  }
}

export type RunResults = Awaited<ReturnType<typeof runResults>>;
