import {
  countIgnored,
  countInvalid,
  countReadable,
  emptyImportReport,
  InputError,
  invalidShareError,
  skippedEntryOf,
  type ImportedSolution,
  type ImportOutcome,
  type ImportReportCounts,
  type OnInvalidPolicy,
} from "@stepwiser/core";
import type { ReportEntry } from "./report-entries";

/**
 * What an import does with each record's outcome under its policy for invalid
 * records, and the report it keeps meanwhile: the counts (stored in the run's
 * summary) and the entries not yet written (ImportReportEntry rows).
 *
 * - a solution is counted with its quirks and returned to be written;
 * - an ignored record is counted and listed under both policies;
 * - an invalid record throws its error under `fail`, and under `skip` is
 *   counted and listed; a structural one (the layout broke) throws under both.
 * A solution the database cannot hold (a NUL character) is an invalid record.
 */
export class ImportReportTally {
  readonly counts: ImportReportCounts;
  private entries: ReportEntry[] = [];

  constructor(
    private readonly file: string,
    readonly policy: OnInvalidPolicy,
    maxInvalidShare: number,
  ) {
    this.counts = emptyImportReport(policy, maxInvalidShare);
  }

  /** The solution to write, or null when the record is left out. */
  take(outcome: ImportOutcome): ImportedSolution | null {
    if (outcome.kind === "ignored") {
      countIgnored(this.counts, outcome.reason);
      this.entries.push({
        kind: "ignored",
        file: this.file,
        line: outcome.line,
        record: outcome.record,
        field: outcome.field ?? null,
        reason: outcome.reason,
        reasonKey: outcome.reason,
      });
      return null;
    }
    if (outcome.kind === "invalid") {
      if (outcome.structural) throw outcome.error;
      this.leaveOut(outcome.error, outcome.line, outcome.record);
      return null;
    }
    const unstorable = nulCharacterError(outcome.solution, this.file, outcome.line, outcome.record);
    if (unstorable) {
      this.leaveOut(unstorable, outcome.line, outcome.record);
      return null;
    }
    countReadable(this.counts, outcome.quirks, outcome.extra === true);
    return outcome.solution;
  }

  /** Entries listed since the last call (to be written with the next batch). */
  takeEntries(): ReportEntry[] {
    const taken = this.entries;
    this.entries = [];
    return taken;
  }

  get pendingEntries(): number {
    return this.entries.length;
  }

  /** The error that fails a `skip` import with too many invalid records (null within the bound); once the file is read. */
  shareError(): InputError | null {
    return invalidShareError(this.counts, this.file);
  }

  private leaveOut(error: InputError, line: number, record: number | undefined): void {
    if (this.policy === "fail") throw error;
    const entry = skippedEntryOf(error, this.file, line, record);
    countInvalid(this.counts, entry);
    this.entries.push({ kind: "invalid", ...entry });
  }
}

/** PostgreSQL text cannot hold U+0000; say where it is instead of failing in the database. */
function nulCharacterError(solution: ImportedSolution, file: string, line: number, record: number): InputError | null {
  const fields: Array<[string, string | null]> = [
    ["problem", solution.problem],
    ["id", solution.externalId],
    ["generator", solution.generator],
    ["answer", solution.referenceAnswer],
    ...solution.steps.map((step, i): [string, string] => [`steps.${i}`, step]),
  ];
  for (const [field, value] of fields) {
    if (value?.includes("\u0000")) return new InputError("contains a NUL character (U+0000), which cannot be stored", { file, line, record, field });
  }
  return null;
}
