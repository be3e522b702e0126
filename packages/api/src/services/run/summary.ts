import type { Prisma } from "@stepwiser/db";
import { describeRun, runName } from "@stepwiser/jobs";

export const runSummarySelect = {
  id: true,
  kind: true,
  name: true,
  notes: true,
  tags: true,
  status: true,
  datasetId: true,
  unitsTotal: true,
  unitsDone: true,
  unitsFailed: true,
  requests: true,
  promptTokens: true,
  completionTokens: true,
  cachedTokens: true,
  attempts: true,
  error: true,
  cancelRequestedAt: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  config: true,
} satisfies Prisma.RunSelect;

type RunSummaryRow = Prisma.RunGetPayload<{ select: typeof runSummarySelect }>;

/** Seconds left at the pace so far; null until a unit is done or once the run has ended. */
export function etaSeconds(run: Pick<RunSummaryRow, "status" | "startedAt" | "unitsDone" | "unitsFailed" | "unitsTotal">, now = new Date()): number | null {
  if (run.status !== "running" || !run.startedAt) return null;
  const finished = run.unitsDone + run.unitsFailed;
  if (finished === 0 || run.unitsTotal === 0) return null;
  const perUnit = (now.getTime() - run.startedAt.getTime()) / 1000 / finished;
  return Math.max(0, Math.round(perUnit * (run.unitsTotal - finished)));
}

/** A run's list row: its name, notes and tags, progress and counters, and the one label `describeRun` gives it (the config itself stays out). */
export function toRunSummary({ config, ...run }: RunSummaryRow) {
  return {
    ...run,
    name: runName({ ...run, config }),
    label: describeRun({ ...run, config }),
    promptTokens: Number(run.promptTokens),
    completionTokens: Number(run.completionTokens),
    cachedTokens: Number(run.cachedTokens),
    progress: run.unitsTotal > 0 ? run.unitsDone / run.unitsTotal : 0,
    etaSeconds: etaSeconds(run),
  };
}
