/**
 * What the compare page opens on when its address names nothing to compare:
 * the newest pair of finished benchmark or judge runs on one dataset, so a first
 * visitor sees numbers at once. Pure, so the choice is unit-tested.
 */

/** The fields of a run list row the choice reads. */
export interface RunForComparison {
  id: string;
  kind: string;
  status: string;
  datasetId: string | null;
  createdAt: Date | string;
}

/** The URL keys the compare page is opened with (see compare-params). */
export interface FirstComparison {
  dataset: string;
  runs: string;
  baseline: string;
}

const COMPARABLE = new Set(["benchmark", "judge"]);
const FINISHED = new Set(["completed", "completed_with_failures"]);

/**
 * The comparison to open when the URL has no dataset and no runs: the newest
 * finished benchmark or judge run and the newest other such run on its dataset,
 * the older one as the baseline. Null when the URL already chooses something or
 * no dataset has two such runs.
 */
export function firstComparison(url: { dataset?: string; runs: readonly string[] }, runs: readonly RunForComparison[]): FirstComparison | null {
  if (url.dataset || url.runs.length > 0) return null;
  const time = (run: RunForComparison) => new Date(run.createdAt).getTime();
  const finished = runs
    .filter((run) => COMPARABLE.has(run.kind) && FINISHED.has(run.status) && run.datasetId)
    .sort((a, b) => time(b) - time(a) || b.id.localeCompare(a.id));
  for (const [i, newer] of finished.entries()) {
    const older = finished.slice(i + 1).find((run) => run.datasetId === newer.datasetId);
    if (older) return { dataset: newer.datasetId!, runs: `${newer.id},${older.id}`, baseline: older.id };
  }
  return null;
}
