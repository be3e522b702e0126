import { InputError } from "../errors/input-error";

/**
 * What an import does with a record it cannot read:
 * - `fail` (default): the import stops and stores nothing (all or nothing);
 * - `skip`: the record is left out and listed in the import's report, every
 *   valid record is stored, unless more than `maxInvalidShare` of the file is
 *   invalid, in which case the import still fails.
 */
export const ON_INVALID_POLICIES = ["fail", "skip"] as const;
export type OnInvalidPolicy = (typeof ON_INVALID_POLICIES)[number];

/** Default largest share of invalid records a `skip` import accepts (5 %). */
export const DEFAULT_MAX_INVALID_SHARE = 0.05;

/** One record left out of an import, located as its error located it. */
export interface SkippedRecordEntry {
  file: string;
  /** 1-based line the record starts on. */
  line: number;
  /** 0-based index of the record in the file (absent when the layout broke before it could be counted). */
  record: number | null;
  /** Dotted path of the offending field, when one is named. */
  field: string | null;
  reason: string;
  /** The reason with its specifics (numbers, quoted text) taken out: what counts by reason group on. */
  reasonKey: string;
}

/** Counts of an import's records by what happened to them (stored in the run's summary). */
export interface ImportReportCounts {
  policy: OnInvalidPolicy;
  maxInvalidShare: number;
  /** Records read from the file. */
  records: number;
  /** Records read as solutions (stored, or recognised as duplicates). */
  readable: number;
  /** Records left out as invalid (only in `skip` mode: in `fail` mode the first one fails the import). */
  invalid: number;
  invalidByReason: Record<string, number>;
  /** Records the dataset's documentation allows that hold nothing to import, by reason. */
  ignored: number;
  ignoredByReason: Record<string, number>;
  /** Accepted departures from the documented layout, by kind (a record may have several). */
  quirks: Record<string, number>;
}

export function emptyImportReport(policy: OnInvalidPolicy, maxInvalidShare: number = DEFAULT_MAX_INVALID_SHARE): ImportReportCounts {
  return { policy, maxInvalidShare, records: 0, readable: 0, invalid: 0, invalidByReason: {}, ignored: 0, ignoredByReason: {}, quirks: {} };
}

/**
 * The reason with what varies between records replaced: quoted text by "…",
 * numbers by N, and the field's indices by "*" ("label.steps.*.rating: must be
 * -1, 0, 1 or null, got N"), so counts by reason group like records together.
 */
export function invalidReasonKey(error: InputError): string {
  const field = error.location.field?.replace(/\.\d+(?=\.|$)/g, ".*");
  const reason = error.reason
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/«[^»]*»/g, "«…»")
    .replace(/-?\b\d+(?:\.\d+)?\b/g, "N");
  return field ? `${field}: ${reason}` : reason;
}

function bump(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** Counts a readable record; `extra` marks a further solution of a record already counted (its quirks alone count). */
export function countReadable(report: ImportReportCounts, quirks: readonly string[] | undefined, extra = false): void {
  if (!extra) {
    report.records += 1;
    report.readable += 1;
  }
  for (const quirk of quirks ?? []) bump(report.quirks, quirk);
}

export function countIgnored(report: ImportReportCounts, reason: string): void {
  report.records += 1;
  report.ignored += 1;
  bump(report.ignoredByReason, reason);
}

export function countInvalid(report: ImportReportCounts, entry: SkippedRecordEntry): void {
  report.records += 1;
  report.invalid += 1;
  bump(report.invalidByReason, entry.reasonKey);
}

export function skippedEntryOf(error: InputError, file: string, line: number, record: number | undefined): SkippedRecordEntry {
  return {
    file: error.location.file ?? file,
    line: error.location.line ?? line,
    record: error.location.record ?? record ?? null,
    field: error.location.field ?? null,
    reason: error.reason,
    reasonKey: invalidReasonKey(error),
  };
}

/**
 * The error that fails a `skip` import whose invalid share is above its bound
 * (null when within it). The share is of all records read, ignored ones included.
 */
export function invalidShareError(report: ImportReportCounts, file: string): InputError | null {
  if (report.records === 0 || report.invalid === 0) return null;
  const share = report.invalid / report.records;
  if (share <= report.maxInvalidShare) return null;
  const percent = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1).replace(/\.0+$/, "")} %`;
  return new InputError(
    `${report.invalid} of ${report.records} records are invalid (${percent(share)}), more than the ${percent(report.maxInvalidShare)} a skip import accepts: nothing was imported`,
    { file },
  );
}
