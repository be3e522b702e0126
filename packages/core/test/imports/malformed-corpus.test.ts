import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/errors/input-error";
import { parseFieldMapping } from "../../src/imports/field-mapping";
import type { ImportFormat } from "../../src/imports/imported-solution";
import { FIXTURES, fixtureBytes, readAll, rejectionOf } from "./import-helpers";

interface ExpectedFailure {
  file: string;
  format: ImportFormat;
  mapping?: string;
  line: number;
  field: string | null;
  message: string;
}

const expected = JSON.parse(readFileSync(join(FIXTURES, "malformed/expected.json"), "utf8")) as ExpectedFailure[];

describe("malformed import corpus", () => {
  it("is large and covers every format", () => {
    expect(expected.length).toBeGreaterThanOrEqual(36);
    expect(new Set(expected.map((c) => c.format))).toEqual(new Set(["processbench", "prm800k", "math-shepherd", "jsonl"]));
  });

  it.each(expected)("$file fails at line $line, field $field", async ({ file, format, mapping, line, field, message }) => {
    const content = fixtureBytes(`malformed/${file}`);
    for (const pieceSize of [undefined, 1, 7]) {
      const error = await rejectionOf(readAll(format, content, { file, ...(mapping ? { mapping: parseFieldMapping(mapping) } : {}) }, pieceSize));
      expect(error).toBeInstanceOf(InputError);
      const { location, reason } = error as InputError;
      expect({ file: location.file, line: location.line, field: location.field ?? null }).toEqual({ file, line, field });
      expect(reason).toContain(message);
    }
  });
});
