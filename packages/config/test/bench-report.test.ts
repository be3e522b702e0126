import { describe, expect, it } from "vitest";
import { benchmarkMarkdown, handWrittenSections, type BenchmarkReport } from "../bench/report";

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
        "Profile: **full** (`pnpm bench`), the release numbers. Measured 2026-01-01T00:00:00.000Z on 1 × CPU.",
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
    expect(page).toContain("What was measured.\n\n## Limits\n\nWhat the numbers cannot show.\n\nProfile: **full** (`pnpm bench`), the release numbers. Measured 2026-01-01T00:00:00.000Z on 1 × CPU.");
    expect(page).toContain("Regenerate with `corepack pnpm bench examples`.");
  });

  it("say which profile produced them; a quick page says how to make it again quickly", () => {
    const page = benchmarkMarkdown(report, "2026-01-01T00:00:00.000Z", "1 × CPU", { profile: "quick" });
    expect(page).toContain("Profile: **quick** (`pnpm bench --quick`)");
    expect(page).toContain("not release numbers");
    expect(page).toContain("Regenerate with `corepack pnpm bench --quick example`.");
  });

  it("keep the hand-written sections of the page they replace, after the new table, and only those", () => {
    const old = benchmarkMarkdown({ ...report, limits: "Old limits." }, "2025-01-01T00:00:00.000Z", "1 × CPU").replace(
      "Regenerate with",
      "## What changed\n\nA note by hand,\n\nover two paragraphs.\n\n## Run-to-run variation\n\n| run | value |\n|---|---|\n| 1 | 3 |\n\nRegenerate with",
    );
    const kept = handWrittenSections(old);
    expect(kept).toEqual(["## What changed\n\nA note by hand,\n\nover two paragraphs.", "## Run-to-run variation\n\n| run | value |\n|---|---|\n| 1 | 3 |"]);
    const page = benchmarkMarkdown({ ...report, limits: "New limits.", rows: [{ metric: "speed", value: "14 /s" }] }, "2026-01-01T00:00:00.000Z", "1 × CPU", { handWritten: kept });
    expect(page).toContain("## Limits\n\nNew limits.");
    expect(page).not.toContain("Old limits.");
    expect(page).toContain("| speed | 14 /s |");
    expect(page.indexOf("Regenerate with")).toBeLessThan(page.indexOf("## What changed"));
    expect(page.match(/Regenerate with/g)).toHaveLength(1);
    expect(page.endsWith("| 1 | 3 |\n")).toBe(true);
    // Regenerating the regenerated page keeps the same sections, once.
    expect(handWrittenSections(page)).toEqual(kept);
  });
});
