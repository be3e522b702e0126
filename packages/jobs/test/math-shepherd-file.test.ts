import { MATH_SHEPHERD_QUIRKS, piecesOf, readImportOutcomes } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { generateMathShepherdFile } from "../src/testing/math-shepherd-file";

describe("generated Math-Shepherd file in the released layout", () => {
  it("core's reader finds exactly the generated quirks and broken records", async () => {
    const file = generateMathShepherdFile({ records: 20_000, quirkyShare: 0.005, brokenShare: 0.002, seed: 7 });
    expect(file.broken).toHaveLength(40);
    expect(Object.values(file.quirky).reduce((a, b) => a + b, 0)).toBe(100);
    const invalid: number[] = [];
    const quirks: Record<string, number> = {};
    let steps = 0;
    for await (const outcome of readImportOutcomes("math-shepherd", piecesOf(file.bytes, 1 << 16), { file: "gen.jsonl" })) {
      if (outcome.kind === "invalid") {
        expect(outcome.structural).toBe(false);
        invalid.push(outcome.line);
      } else if (outcome.kind === "solution") {
        steps += outcome.solution.steps.length;
        for (const q of outcome.quirks) quirks[q] = (quirks[q] ?? 0) + 1;
      }
    }
    expect(invalid).toEqual(file.broken.map((b) => b.line).sort((a, b) => a - b));
    expect(steps).toBe(file.chunks);
    expect(quirks).toEqual({
      [MATH_SHEPHERD_QUIRKS.lowercaseMarker]: file.quirky["lowercase-marker"],
      [MATH_SHEPHERD_QUIRKS.noMarker]: file.quirky["no-marker"],
      [MATH_SHEPHERD_QUIRKS.tagInProblem]: file.quirky["tag-in-problem"],
    });
  });
});
