import { averageCoverage, JUDGE_PROTOCOLS, PUBLISHED_PROCESSBENCH_F1, PUBLISHED_PROCESSBENCH_SOURCES } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { measuredAverageHeading, measuredF1Text, scalingAverageName, measuredLeaderboard, PUBLISHED_SUBSET_HEADINGS, publishedCaveat, publishedRows, publishedSources } from "../src/app/(app)/compare/leaderboard";

const run = (id: string, f1: number, protocol = { label: "StepWiser chunk judge", ref: "stepwiser-chunk@v1" }, isBaseline = false) => ({
  id,
  isBaseline,
  protocol,
  average: { f1, ci: { f1: { lower: f1 - 0.05, upper: f1 + 0.05 } } },
});

describe("compare leaderboard", () => {
  it("ranks measured runs by average F1, equal scores sharing a rank in the order picked, each with its protocol", () => {
    const thinkprm = { label: "ThinkPRM", ref: "thinkprm@v1" };
    const rows = measuredLeaderboard([run("weak", 0.42, undefined, true), run("strong", 0.71, thinkprm), run("twin-a", 0.55), run("twin-b", 0.55)]);
    expect(rows.map((r) => [r.id, r.rank])).toEqual([
      ["strong", 1],
      ["twin-a", 2],
      ["twin-b", 2],
      ["weak", 4],
    ]);
    expect(rows[0]).toMatchObject({ protocolLabel: "ThinkPRM", protocolRef: "thinkprm@v1", averageF1: 0.71, isBaseline: false });
    expect(rows[3]).toMatchObject({ isBaseline: true, ci: { lower: 0.42 - 0.05, upper: 0.42 + 0.05 } });
    expect(measuredF1Text(rows[0]!)).toBe("71.0");
  });

  it("lists the published ProcessBench F1s best first, per subset where the source gives them, each with its own table", () => {
    const rows = publishedRows(PUBLISHED_PROCESSBENCH_F1);
    expect(rows.map((r) => r.averageF1)).toEqual([...rows.map((r) => r.averageF1)].sort((a, b) => b - a));
    expect(rows.slice(0, 3).map((r) => [r.model, r.averageF1Text])).toEqual([
      ["o1-mini", "87.9"],
      ["Qwen2.5-Math-PRM-72B", "78.3"],
      ["GenPRM-32B", "77.6"],
    ]);
    expect(rows.find((r) => r.model === "StepWiser Rel-Effective (Qwen2.5-7B-chunk)")).toEqual({
      model: "StepWiser Rel-Effective (Qwen2.5-7B-chunk)",
      averageF1: 61.9,
      averageF1Text: "61.9",
      subsetTexts: ["72.4", "68.3", "54.4", "52.4"],
      votedText: "64.1 with Maj@8",
      votedSubsetsText: "Maj@8: 72.9 · 72.1 · 57.3 · 54.0",
      protocolText: "StepWiser chunk judge (stepwiser-chunk)",
      family: "StepWiser generative chunk judge (RL)",
      source: "StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5",
      note: null,
    });
    expect(rows.find((r) => r.model === "GenPRM-7B")).toMatchObject({ protocolText: `${JUDGE_PROTOCOLS.genprm.label} (genprm)`, source: PUBLISHED_PROCESSBENCH_SOURCES.genprm, subsetTexts: ["78.7", "80.3", "72.2", "69.8"] });
    expect(rows.find((r) => r.model === "RL-TANGO-Qwen2.5-7B-it")).toMatchObject({ protocolText: null, votedText: null, votedSubsetsText: null });
    // Only the average where the source text gives no per-subset figure; a row's note comes along.
    expect(rows.find((r) => r.model === "QwQ-32B-Preview")).toMatchObject({ subsetTexts: ["—", "—", "—", "—"], averageF1Text: "71.5", note: expect.stringMatching(/^Average only/) });
    expect(rows.find((r) => r.model === "Eurus-Qwen2.5-Math-7B-it (DPO)")!.note).toContain("38.4");
    expect(Object.values(PUBLISHED_SUBSET_HEADINGS)).toEqual(["GSM8K", "MATH", "OlympiadBench", "Omni-MATH"]);
    expect(publishedSources(PUBLISHED_PROCESSBENCH_F1)).toEqual([PUBLISHED_PROCESSBENCH_SOURCES.stepwiser, PUBLISHED_PROCESSBENCH_SOURCES.genprm]);
    // Sorting for the view leaves the shared data as it is.
    expect(PUBLISHED_PROCESSBENCH_F1[0]!.model).toBe("Math-Shepherd-PRM-7B");
    expect(Object.isFrozen(PUBLISHED_PROCESSBENCH_F1)).toBe(true);
  });

  it("heads a partial measured average as one, never as the published figure's column", () => {
    expect(measuredAverageHeading(averageCoverage(["math", "gsm8k"]))).toEqual({ heading: "Partial average F1 (2 of 4 subsets: gsm8k, math)", partial: true });
    expect(measuredAverageHeading(averageCoverage(["sim"]))).toEqual({ heading: "Partial average F1 (1 subset: sim; 0 of ProcessBench's 4)", partial: true });
    expect(measuredAverageHeading(averageCoverage(["gsm8k", "math", "olympiadbench", "omnimath"]))).toEqual({ heading: "Average F1 (4 of 4 subsets)", partial: false });
  });

  it("names the scaling tab's F1 for the subsets its curves average", () => {
    expect(scalingAverageName([["sim"], ["sim"]])).toBe("Partial average F1 (1 subset: sim; 0 of ProcessBench's 4)");
    expect(scalingAverageName([["omnimath", "gsm8k", "math", "olympiadbench"]])).toBe("Average F1 (4 of 4 subsets)");
    expect(scalingAverageName([["gsm8k"], ["gsm8k", "math"]])).toBe("Average F1 over each run's subsets (partial unless ProcessBench's four)");
    expect(scalingAverageName([])).toBe("Average F1");
  });

  it("says what is published, and that a partial measured average is not comparable with it", () => {
    const partial = publishedCaveat(averageCoverage(["gsm8k", "math"]));
    expect(partial).toMatch(/^The published figures are F1 per subset where the source gives them and the source's average over ProcessBench's four subsets \(gsm8k, math, olympiadbench, omnimath\), each row from its own table: no acc_err, acc_cor or interval; they were not measured here\./);
    expect(partial).toContain("The measured average above is a partial average (2 of 4 subsets: gsm8k, math), by the studio's own runs: it is not comparable with the published averages");
    expect(publishedCaveat(averageCoverage(["sim"]))).toContain("partial average (1 subset: sim; 0 of ProcessBench's 4)");
    expect(publishedCaveat(averageCoverage(["gsm8k", "math", "olympiadbench", "omnimath"]))).toContain("The measured average above is over the same four subsets");
  });
});
