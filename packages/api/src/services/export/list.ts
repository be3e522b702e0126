import type { Prisma } from "@stepwiser/db";
import { readRunSummary, tryReadRunConfig, type TrainingSetReport } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { runSummarySelect, toRunSummary } from "../run/summary";

const exportRunSelect = {
  ...runSummarySelect,
  summary: true,
  outputFiles: { select: { id: true, fileName: true, contentType: true, sizeBytes: true, sha256: true, completedAt: true }, orderBy: { fileName: "asc" } },
} satisfies Prisma.RunSelect;

/** Rows and classes per split of a training set, from its report (manifest). */
function splitCounts(report: TrainingSetReport | null) {
  if (!report?.splits) return [];
  return Object.entries(report.splits).map(([split, r]) => {
    // Reports written before the confidence filter existed have no lowConfidence count.
    const { tooShort, tooLong, lowConfidence = 0 } = r.filteredOut as Partial<typeof r.filteredOut>;
    return {
      split,
      problems: r.problems,
      rows: r.rows,
      positive: r.after.positive,
      negative: r.after.negative,
      eligible: r.eligible,
      filteredOut: (tooShort ?? 0) + (tooLong ?? 0) + lowConfidence,
    };
  });
}

/** Rows and problems per split of an SFT export (segmentation-sft, selection), and what it counted, from its manifest. */
function sftReport(report: unknown) {
  if (report === null || typeof report !== "object") return null;
  const { splits, counts } = report as { splits?: Record<string, { rows: number; problems: number; fileName: string }>; counts?: Record<string, number> };
  if (!splits) return null;
  return { splits: Object.entries(splits).map(([split, r]) => ({ split, rows: r.rows, problems: r.problems, fileName: r.fileName })), counts: counts ?? {} };
}

/** Export runs, newest first, with what they read and the files they wrote (downloads: `GET /api/files/{id}`). */
export async function listExports({ db, input }: ServiceArgs<{ sourceRunId?: string; limit: number }>) {
  const where: Prisma.RunWhereInput = { kind: "export" };
  if (input.sourceRunId) {
    where.OR = [
      { config: { path: ["export", "runId"], equals: input.sourceRunId } },
      { config: { path: ["export", "annotateRunId"], equals: input.sourceRunId } },
    ];
  }
  const runs = await db.run.findMany({ where, orderBy: { createdAt: "desc" }, take: input.limit, select: exportRunSelect });
  const specs = runs.map((run) => tryReadRunConfig({ ...run, kind: "export" })?.export ?? null);
  const sourceIds = [...new Set(specs.flatMap((spec) => (spec ? [spec.kind === "training-set" ? spec.annotateRunId : spec.runId] : [])))];
  const sources = await db.run.findMany({ where: { id: { in: sourceIds } }, select: { id: true, kind: true, dataset: { select: { id: true, name: true } } } });
  const sourceById = new Map(sources.map((s) => [s.id, s]));

  return runs.map(({ summary, outputFiles, ...run }, i) => {
    const spec = specs[i] ?? null;
    const sourceRunId = spec ? (spec.kind === "training-set" ? spec.annotateRunId : spec.runId) : null;
    const report = readRunSummary({ kind: "export", summary })?.report ?? null;
    const source = sourceRunId ? sourceById.get(sourceRunId) : undefined;
    return {
      ...toRunSummary(run),
      spec,
      source: sourceRunId ? { id: sourceRunId, kind: source?.kind ?? null, dataset: source?.dataset ?? null } : null,
      // Only complete files: a retried export removes and rewrites its files, and a download must never see half of one.
      files: outputFiles.filter((f) => f.completedAt !== null).map(({ completedAt: _done, ...f }) => ({ ...f, sizeBytes: Number(f.sizeBytes) })),
      report,
      splits: spec?.kind === "training-set" ? splitCounts(report as TrainingSetReport | null) : [],
      sft: spec?.kind === "segmentation-sft" || spec?.kind === "selection" ? sftReport(report) : null,
    };
  });
}
