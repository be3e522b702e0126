import { describe, expect, it } from "vitest";
import { firstComparison, type RunForComparison } from "../src/app/(app)/compare/first-comparison";

const run = (id: string, minute: number, fields: Partial<RunForComparison> = {}): RunForComparison => ({
  id,
  kind: "judge",
  status: "completed",
  datasetId: "d1",
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
  ...fields,
});
const empty = { runs: [] };

describe("the comparison the compare page opens on", () => {
  it("is the newest finished pair on one dataset, the older run the baseline", () => {
    const runs = [run("weak", 1), run("strong", 2), run("older", 0)];
    expect(firstComparison(empty, runs)).toEqual({ dataset: "d1", runs: "strong,weak", baseline: "weak" });
  });

  it("leaves out runs that are not finished, not benchmark or judge runs, or have no dataset", () => {
    const runs = [
      run("running", 9, { status: "running" }),
      run("failed", 8, { status: "failed" }),
      run("annotate", 7, { kind: "annotate" }),
      run("loose", 6, { datasetId: null }),
      run("bench", 5, { kind: "benchmark", status: "completed_with_failures" }),
      run("judge", 4),
    ];
    expect(firstComparison(empty, runs)).toEqual({ dataset: "d1", runs: "bench,judge", baseline: "judge" });
  });

  it("pairs runs of one dataset only: a newest run alone on its dataset gives way to an older pair", () => {
    const runs = [run("alone", 9, { datasetId: "d2" }), run("b", 5), run("a", 4), run("other", 3, { datasetId: "d3" })];
    expect(firstComparison(empty, runs)).toEqual({ dataset: "d1", runs: "b,a", baseline: "a" });
    expect(firstComparison(empty, [run("x", 1, { datasetId: "d2" }), run("y", 2, { datasetId: "d3" })])).toBeNull();
    expect(firstComparison(empty, [])).toBeNull();
  });

  it("reads creation times given as strings (as JSON carries them) and orders by them, not by list order", () => {
    const runs = [run("first", 1, { createdAt: "2026-01-01T00:01:00.000Z" }), run("third", 3, { createdAt: "2026-01-01T00:03:00.000Z" }), run("second", 2, { createdAt: "2026-01-01T00:02:00.000Z" })];
    expect(firstComparison(empty, runs)).toEqual({ dataset: "d1", runs: "third,second", baseline: "second" });
  });

  it("changes nothing when the address already chooses a dataset or runs", () => {
    const runs = [run("a", 1), run("b", 2)];
    expect(firstComparison({ dataset: "d9", runs: [] }, runs)).toBeNull();
    expect(firstComparison({ runs: ["a"] }, runs)).toBeNull();
  });
});
