import type { Prisma } from "@stepwiser/db";

export const runSummarySelect = {
  id: true,
  kind: true,
  status: true,
  datasetId: true,
  unitsTotal: true,
  unitsDone: true,
  unitsFailed: true,
  requests: true,
  promptTokens: true,
  completionTokens: true,
  attempts: true,
  error: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
} satisfies Prisma.RunSelect;

type RunSummaryRow = Prisma.RunGetPayload<{ select: typeof runSummarySelect }>;

export function toRunSummary(run: RunSummaryRow) {
  return {
    ...run,
    promptTokens: Number(run.promptTokens),
    completionTokens: Number(run.completionTokens),
    progress: run.unitsTotal > 0 ? run.unitsDone / run.unitsTotal : 0,
  };
}
