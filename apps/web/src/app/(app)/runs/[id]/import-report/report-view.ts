import type { RouterOutputs } from "@stepwiser/api";
import { count, countWithShare, percent } from "../results/format";
import type { Fact } from "../results/shaping";

/*
 * The Report section of an import run's page, shaped from `import.report`
 * without React: the counts, the counts by reason and by quirk, the rows of the
 * entries table, the download link and what to say when the import was refused
 * for its share of invalid records. Unit-tested in apps/web/test.
 */

export type ImportReport = RouterOutputs["import"]["report"];
type Counts = NonNullable<ImportReport["counts"]>;

/** Entries per page of the report's table. */
export const REPORT_PAGE_SIZE = 50;

/** Where the whole report is served as JSON Lines. */
export function reportDownloadHref(runId: string): string {
  return `/api/imports/${encodeURIComponent(runId)}/report`;
}

/** Records, imported, invalid and ignored, each invalid / ignored with its share of the records. */
export function reportCountFacts(report: ImportReport): Fact[] {
  const c = report.counts;
  if (!c) return [];
  const facts: Fact[] = [
    { label: "Records", value: count(c.records) },
    {
      label: "Imported",
      value: report.imported === null ? "none" : count(report.imported),
      note: report.alreadyStored ? `${count(report.alreadyStored)} already in the dataset` : undefined,
    },
    {
      label: "Invalid",
      value: countWithShare(c.invalid, c.records),
      note: c.policy === "skip" ? `skipped; at most ${percent(c.maxInvalidShare)} allowed` : "the import stops at the first",
    },
    { label: "Ignored", value: countWithShare(c.ignored, c.records), note: c.ignored > 0 ? "allowed by the dataset, nothing to import" : undefined },
  ];
  return facts;
}

export interface CountRow {
  key: string;
  /** The reason or quirk, as text (it may quote the file). */
  name: string;
  count: string;
  share: string;
}

/** Counts by key, most frequent first, ties by key; each with its share of `whole`. */
function countRows(counts: Record<string, number>, whole: number): CountRow[] {
  return Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([key, n]) => ({ key, name: key, count: count(n), share: whole > 0 ? percent(n / whole) : "—" }));
}

/** Invalid records by reason (specifics such as numbers and quoted text taken out), then ignored ones, each kind named. */
export function reasonRows(counts: Counts): Array<CountRow & { kind: "invalid" | "ignored" }> {
  return [
    ...countRows(counts.invalidByReason, counts.records).map((row) => ({ ...row, key: `invalid ${row.key}`, kind: "invalid" as const })),
    ...countRows(counts.ignoredByReason, counts.records).map((row) => ({ ...row, key: `ignored ${row.key}`, kind: "ignored" as const })),
  ];
}

/** Accepted departures from the format's layout by kind, with their share of the records read as solutions. */
export function quirkRows(counts: Counts): CountRow[] {
  return countRows(counts.quirks, counts.readable);
}

export interface EntryRow {
  id: string;
  line: string;
  record: string;
  field: string;
  reason: string;
  kind: "invalid" | "ignored";
}

/** One table row per entry: the record as it is counted in the file (0-based) and a dash where nothing was named. */
export function entryRows(report: ImportReport): EntryRow[] {
  return report.entries.map((e) => ({
    id: e.id,
    line: count(e.line),
    record: e.record === null ? "—" : count(e.record),
    field: e.field ?? "—",
    reason: e.reason,
    kind: e.kind,
  }));
}

/** Whether the report has anything to show: counts (imports stored before reports have none). */
export function hasReport(report: ImportReport | undefined): report is ImportReport & { counts: Counts } {
  return report?.counts != null;
}

/**
 * Why a skip import stored nothing, when it was refused for its share of
 * invalid records (the counts were kept; null otherwise).
 */
export function refusalText(report: ImportReport): string | null {
  const c = report.counts;
  if (report.status !== "failed" || !c || c.policy !== "skip" || c.records === 0 || c.invalid / c.records <= c.maxInvalidShare) return null;
  return `${count(c.invalid)} of ${count(c.records)} records were invalid (${percent(c.invalid / c.records)}), more than the ${percent(c.maxInvalidShare)} this import allowed: nothing was imported. Fix the file, or import it again with a larger share allowed.`;
}
