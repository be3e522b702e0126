import { describe, expect, it } from "vitest";
import { benchmarkMarkdown, type BenchmarkReport } from "../bench/report";

const report: BenchmarkReport = {
  name: "example",
  title: "An example",
  method: "What was measured.",
  rows: [
    { metric: "speed", value: "12 /s", target: "≥ 10 /s", met: true },
    { metric: "note", value: "n/a" },
  ],
};

describe("benchmark report pages", () => {
  it("render the method, the time and machine, the table and how to regenerate", () => {
    expect(benchmarkMarkdown(report, "2026-01-01T00:00:00.000Z", "1 × CPU")).toBe(
      [
        "# An example",
        "",
        "What was measured.",
        "",
        "Measured 2026-01-01T00:00:00.000Z on 1 × CPU.",
        "",
        "| metric | value | target | met |",
        "|---|---|---|---|",
        "| speed | 12 /s | ≥ 10 /s | yes |",
        "| note | n/a | — | — |",
        "",
        "Regenerate with `corepack pnpm bench example`.",
        "",
      ].join("\n"),
    );
  });

  it("put the limits in their own section after the method", () => {
    const page = benchmarkMarkdown({ ...report, bench: "examples", limits: "What the numbers cannot show." }, "2026-01-01T00:00:00.000Z", "1 × CPU");
    expect(page).toContain("What was measured.\n\n## Limits\n\nWhat the numbers cannot show.\n\nMeasured 2026-01-01T00:00:00.000Z on 1 × CPU.");
    expect(page).toContain("Regenerate with `corepack pnpm bench examples`.");
  });
});
