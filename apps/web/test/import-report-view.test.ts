import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_INVALID_PERCENT, policyNote, policyOptionsOf } from "../src/app/(app)/datasets/import-policy";
import {
  entryRows,
  hasReport,
  quirkRows,
  reasonRows,
  refusalText,
  reportCountFacts,
  reportDownloadHref,
  type ImportReport,
} from "../src/app/(app)/runs/[id]/import-report/report-view";

const counts = {
  policy: "skip" as const,
  maxInvalidShare: 0.05,
  records: 1000,
  readable: 955,
  invalid: 40,
  invalidByReason: { "steps: expected an array of step strings, got number": 25, "not valid JSON": 15 },
  ignored: 5,
  ignoredByReason: { "no step was labelled": 5 },
  quirks: { "lowercase step marker": 12, "trailing tag": 12, "double space": 3 },
};

function report(overrides: Partial<ImportReport> = {}): ImportReport {
  return {
    status: "completed",
    error: null,
    counts,
    imported: 950,
    alreadyStored: 5,
    duplicateOfRunId: null,
    total: 45,
    entries: [
      { id: "e1", kind: "invalid", file: "f.jsonl", line: 1203, record: 1202, field: "steps", reason: "expected an array" },
      { id: "e2", kind: "invalid", file: "f.jsonl", line: 7, record: null, field: null, reason: '<img src=x onerror="alert(1)">' },
    ],
    ...overrides,
  } as ImportReport;
}

describe("an import run's Report section", () => {
  it("counts records, imported, invalid and ignored with their shares and the policy's bound", () => {
    expect(reportCountFacts(report())).toEqual([
      { label: "Records", value: "1,000" },
      { label: "Imported", value: "950", note: "5 already in the dataset" },
      { label: "Invalid", value: "40 (4.0 %)", note: "skipped; at most 5.0 % allowed" },
      { label: "Ignored", value: "5 (0.5 %)", note: "allowed by the dataset, nothing to import" },
    ]);
    const failPolicy = reportCountFacts(report({ counts: { ...counts, policy: "fail", invalid: 0, invalidByReason: {}, ignored: 0, ignoredByReason: {} }, alreadyStored: 0 }));
    expect(failPolicy[1]).toEqual({ label: "Imported", value: "950", note: undefined });
    expect(failPolicy[2]).toEqual({ label: "Invalid", value: "0 (0 %)", note: "the import stops at the first" });
    expect(reportCountFacts(report({ imported: null }))[1]!.value).toBe("none");
    expect(reportCountFacts(report({ counts: null }))).toEqual([]);
  });

  it("lists reasons most frequent first, invalid before ignored, with the share of all records", () => {
    expect(reasonRows(counts)).toEqual([
      { key: "invalid steps: expected an array of step strings, got number", name: "steps: expected an array of step strings, got number", count: "25", share: "2.5 %", kind: "invalid" },
      { key: "invalid not valid JSON", name: "not valid JSON", count: "15", share: "1.5 %", kind: "invalid" },
      { key: "ignored no step was labelled", name: "no step was labelled", count: "5", share: "0.5 %", kind: "ignored" },
    ]);
  });

  it("lists quirks by count, ties by name, as a share of the records read", () => {
    expect(quirkRows(counts).map((q) => [q.name, q.count, q.share])).toEqual([
      ["lowercase step marker", "12", "1.3 %"],
      ["trailing tag", "12", "1.3 %"],
      ["double space", "3", "0.31 %"],
    ]);
    expect(quirkRows({ ...counts, quirks: {} })).toEqual([]);
  });

  it("shapes entries as text rows, a dash where no record or field was named; the reason stays the file's text", () => {
    expect(entryRows(report())).toEqual([
      { id: "e1", line: "1,203", record: "1,202", field: "steps", reason: "expected an array", kind: "invalid" },
      { id: "e2", line: "7", record: "—", field: "—", reason: '<img src=x onerror="alert(1)">', kind: "invalid" },
    ]);
  });

  it("says why a skip import above its bound stored nothing, and nothing otherwise", () => {
    const refused = report({ status: "failed", imported: null, counts: { ...counts, invalid: 80, readable: 915 } });
    expect(refusalText(refused)).toBe(
      "80 of 1,000 records were invalid (8.0 %), more than the 5.0 % this import allowed: nothing was imported. Fix the file, or import it again with a larger share allowed.",
    );
    expect(refusalText(report())).toBeNull();
    expect(refusalText(report({ status: "failed" }))).toBeNull(); // failed for another reason (within the bound)
    expect(refusalText(report({ status: "failed", counts: null }))).toBeNull();
  });

  it("links the JSON Lines download of the run, and shows nothing for imports without counts", () => {
    expect(reportDownloadHref("run/1")).toBe("/api/imports/run%2F1/report");
    expect(hasReport(report())).toBe(true);
    expect(hasReport(report({ counts: null }))).toBe(false);
    expect(hasReport(undefined)).toBe(false);
  });
});

describe("the import form's policy for invalid records", () => {
  it("fail sends no bound; skip sends the percentage as a share", () => {
    expect(policyOptionsOf("fail", "abc")).toEqual({ options: { onInvalid: "fail" } });
    expect(policyOptionsOf("skip", DEFAULT_MAX_INVALID_PERCENT)).toEqual({ options: { onInvalid: "skip", maxInvalidShare: 0.05 } });
    expect(policyOptionsOf("skip", " 12.5 % ")).toEqual({ options: { onInvalid: "skip", maxInvalidShare: 0.125 } });
    expect(policyOptionsOf("skip", "0")).toEqual({ options: { onInvalid: "skip", maxInvalidShare: 0 } });
    expect(policyOptionsOf("skip", "100")).toEqual({ options: { onInvalid: "skip", maxInvalidShare: 1 } });
  });

  it("refuses a percentage outside 0 to 100, or none, naming the field", () => {
    for (const bad of ["", "-1", "101", "lots", "NaN"]) {
      expect(policyOptionsOf("skip", bad)).toEqual({ error: `Largest invalid share: give a percentage from 0 to 100 (got "${bad}").` });
    }
  });

  it("describes what each policy does", () => {
    expect(policyNote("fail")).toContain("a bad record anywhere stops it");
    expect(policyNote("skip")).toContain("listed in the import's report");
  });
});
