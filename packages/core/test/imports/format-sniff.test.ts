import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { IMPORT_FORMATS, type ImportFormat } from "../../src/imports/imported-solution";
import { importFormatMismatch, sniffImportFile } from "../../src/imports/format-sniff";

const fixtures = path.join(import.meta.dirname, "../fixtures/imports");
const sniffDir = path.join(fixtures, "sniff");
const bytes = (file: string) => new Uint8Array(readFileSync(path.join(sniffDir, file)));
const text = (value: string) => new TextEncoder().encode(value);

/** Each tiny fixture and the named format it is in. */
const IN_FORMAT: Record<string, ImportFormat> = {
  "processbench.json": "processbench",
  "prm800k.jsonl": "prm800k",
  "math-shepherd.jsonl": "math-shepherd",
  "prmbench.jsonl": "prmbench",
};

describe("sniffImportFile", () => {
  it("tells the layout and the format of the first record", () => {
    expect(sniffImportFile(bytes("processbench.json"))).toMatchObject({ layout: "json-array", looksLike: "processbench" });
    expect(sniffImportFile(bytes("prm800k.jsonl"))).toMatchObject({ layout: "json-lines", looksLike: "prm800k" });
    expect(sniffImportFile(bytes("math-shepherd.jsonl"))).toMatchObject({ layout: "json-lines", looksLike: "math-shepherd" });
    expect(sniffImportFile(bytes("prmbench.jsonl"))).toMatchObject({ layout: "json-lines", looksLike: "prmbench" });
    expect(sniffImportFile(bytes("head.parquet"))).toEqual({ layout: "parquet" });
    const other = sniffImportFile(bytes("other.jsonl"));
    expect(other).toEqual({ layout: "json-lines", firstRecord: { question: "What is 2 + 2?", steps: ["2 + 2 = 4."] } });
  });

  it("reads past a byte-order mark and leading blank lines; a pretty-printed object is one object; a cut record is not read", () => {
    expect(sniffImportFile(text('\uFEFF\n\n  [ {"problem": "p", "steps": ["a"], "final_answer_correct": true}]'))).toMatchObject({ layout: "json-array", looksLike: "processbench" });
    expect(sniffImportFile(text('{\n  "input": "q ки",\n  "label": "q +"\n}\n'))).toMatchObject({ layout: "json-object", looksLike: "math-shepherd" });
    // Braces inside strings do not end the record early.
    expect(sniffImportFile(text('[{"problem": "} { ]", "steps": ["\\"}"], "final_answer_correct": false}'))).toMatchObject({ looksLike: "processbench" });
    expect(sniffImportFile(text('[{"problem": "p", "steps": ["a", '))).toEqual({ layout: "json-array" });
    expect(sniffImportFile(text("problem,steps\n"))).toEqual({ layout: "unknown" });
    expect(sniffImportFile(text(""))).toEqual({ layout: "unknown" });
  });
});

describe("importFormatMismatch", () => {
  it("accepts every fixture under its own format, and the repository's import fixtures too", () => {
    for (const [file, format] of Object.entries(IN_FORMAT)) expect(importFormatMismatch(format, bytes(file), file)).toBeUndefined();
    expect(importFormatMismatch("jsonl", bytes("other.jsonl"), "other.jsonl")).toBeUndefined();
    expect(importFormatMismatch("parquet", bytes("head.parquet"), "head.parquet")).toBeUndefined();
    const own: Record<string, ImportFormat> = {
      "processbench-small.json": "processbench",
      "prm800k-phase1.jsonl": "prm800k",
      "prm800k-phase2.jsonl": "prm800k",
      "prm800k-released-quirks.jsonl": "prm800k",
      "math-shepherd.jsonl": "math-shepherd",
      "math-shepherd-released-quirks.jsonl": "math-shepherd",
    };
    for (const [file, format] of Object.entries(own)) expect(importFormatMismatch(format, new Uint8Array(readFileSync(path.join(fixtures, file))), file), file).toBeUndefined();
  });

  it("leaves the malformed corpus to the importers: their own errors are the better ones there", () => {
    const corpus = JSON.parse(readFileSync(path.join(fixtures, "malformed/expected.json"), "utf8")) as Array<{ file: string; format: ImportFormat }>;
    for (const entry of corpus) expect(importFormatMismatch(entry.format, new Uint8Array(readFileSync(path.join(fixtures, "malformed", entry.file))), entry.file), entry.file).toBeUndefined();
  });

  it("names a JSON array given to a JSON Lines importer, and the format it looks like", () => {
    expect(importFormatMismatch("prm800k", bytes("processbench.json"), "prm800k.json")?.message).toBe(
      "prm800k.json: this file is a JSON array, not JSON Lines (one JSON object per line); it looks like a ProcessBench file (records have id, generator, problem, steps, final_answer_correct, label); try: stepwiser import processbench prm800k.json",
    );
    expect(importFormatMismatch("jsonl", bytes("other-array.json"), "other-array.json")?.message).toBe("other-array.json: this file is a JSON array, not JSON Lines (one JSON object per line)");
  });

  it("names JSON Lines given to the ProcessBench importer when the records are another format's", () => {
    expect(importFormatMismatch("processbench", bytes("prm800k.jsonl"), "phase2.jsonl", "data/phase 2.jsonl")?.message).toBe(
      "phase2.jsonl: this file is JSON Lines, not a JSON array; it looks like a PRM800K file (records have question.problem and label.steps); try: stepwiser import prm800k 'data/phase 2.jsonl'",
    );
    // Records no named format is recognised by: the importer's "expected a JSON array" says it.
    expect(importFormatMismatch("processbench", bytes("other.jsonl"), "other.jsonl")).toBeUndefined();
  });

  it("names a record of another JSON Lines format", () => {
    expect(importFormatMismatch("prm800k", bytes("math-shepherd.jsonl"), "ms.jsonl")?.message).toBe(
      'ms.jsonl: its first record is not a PRM800K record; it looks like a Math-Shepherd file (records have input and label, steps ending in "ки"); try: stepwiser import math-shepherd ms.jsonl',
    );
    expect(importFormatMismatch("math-shepherd", bytes("prmbench.jsonl"), "pb.jsonl")?.message).toContain("try: stepwiser import prmbench pb.jsonl");
    // The generic importer reads any record through its mapping.
    expect(importFormatMismatch("jsonl", bytes("prm800k.jsonl"), "p.jsonl")).toBeUndefined();
  });

  it("names Parquet given to a JSON importer, and JSON given to the Parquet one", () => {
    for (const format of IMPORT_FORMATS.filter((f) => f !== "parquet")) {
      expect(importFormatMismatch(format, bytes("head.parquet"), "t.parquet")?.message).toMatch(/^t\.parquet: this file is a Parquet file, not (a JSON array|JSON Lines); try: stepwiser import parquet t\.parquet --map problem=…,steps=…$/);
    }
    expect(importFormatMismatch("parquet", bytes("processbench.json"), "pb.parquet")?.message).toBe(
      'pb.parquet: not a Parquet file: it does not start with the bytes "PAR1"; it is a JSON array; it looks like a ProcessBench file (records have id, generator, problem, steps, final_answer_correct, label); try: stepwiser import processbench pb.parquet',
    );
    expect(importFormatMismatch("parquet", bytes("other.jsonl"), "o.parquet")?.message).toBe(
      'o.parquet: not a Parquet file: it does not start with the bytes "PAR1"; it is JSON Lines; try: stepwiser import jsonl o.parquet --map problem=…,steps=…',
    );
  });
});
