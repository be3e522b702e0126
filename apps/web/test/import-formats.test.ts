import { IMPORT_FORMATS } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import {
  ACCEPTED_IMPORT_FILES,
  formatUsesMapping,
  IMPORT_FORMAT_CHOICES,
  IMPORT_FORMAT_OPTIONS,
  recordPositionName,
} from "../src/app/(app)/datasets/import-formats";

describe("the import form's formats", () => {
  it("offers every import format, Parquet as “Parquet (field mapping)”, each with a hint", () => {
    expect(IMPORT_FORMAT_OPTIONS.map(([format]) => format)).toEqual([...IMPORT_FORMATS]);
    expect(Object.fromEntries(IMPORT_FORMAT_OPTIONS)).toMatchObject({ jsonl: "Generic JSONL", parquet: "Parquet (field mapping)" });
    for (const format of IMPORT_FORMATS) expect(IMPORT_FORMAT_CHOICES[format].hint.length).toBeGreaterThan(20);
    expect(ACCEPTED_IMPORT_FILES.split(",")).toEqual(expect.arrayContaining([".jsonl", ".json", ".parquet"]));
  });

  it("shows the field mapping for JSONL and Parquet only, and calls a Parquet record's position its row", () => {
    expect(IMPORT_FORMATS.filter(formatUsesMapping)).toEqual(["jsonl", "parquet"]);
    expect(IMPORT_FORMATS.map(recordPositionName)).toEqual(["Line", "Line", "Line", "Line", "Line", "Row"]);
  });
});
