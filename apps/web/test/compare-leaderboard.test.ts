import { JUDGE_PROTOCOLS, PUBLISHED_PROCESSBENCH_F1, PUBLISHED_PROCESSBENCH_SOURCE } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { measuredF1Text, measuredLeaderboard, publishedCaveat, publishedRows, publishedSources } from "../src/app/(app)/compare/leaderboard";

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

  it("lists the published ProcessBench averages of the StepWiser paper, best first, with their family and source", () => {
    const rows = publishedRows(PUBLISHED_PROCESSBENCH_F1);
    expect(rows.map((r) => [r.model, r.averageF1Text])).toEqual([
      ["GenPRM-7B", "75.2"],
      ["Qwen2.5-Math-PRM-7B", "73.5"],
      ["StepWiser Rel-Effective", "61.9"],
      ["StepWiser Rel-Ratio", "60.5"],
      ["StepWiser Abs-Q", "53.8"],
      ["RL-TANGO-7B", "43.9"],
      ["Skywork-PRM-7B", "42.1"],
      ["Math-Shepherd-PRM-7B", "31.5"],
    ]);
    expect(rows.find((r) => r.model === "StepWiser Rel-Effective")).toMatchObject({ votedText: "64.1 with Maj@8", protocolText: "StepWiser chunk judge (stepwiser-chunk)" });
    expect(rows.find((r) => r.model === "GenPRM-7B")?.protocolText).toBe(`${JUDGE_PROTOCOLS.genprm.label} (genprm)`);
    expect(rows.find((r) => r.model === "RL-TANGO-7B")).toMatchObject({ protocolText: null, votedText: null });
    expect(rows.filter((r) => r.votedText !== null)).toHaveLength(1);
    expect(publishedSources(PUBLISHED_PROCESSBENCH_F1)).toEqual([PUBLISHED_PROCESSBENCH_SOURCE]);
    expect(PUBLISHED_PROCESSBENCH_SOURCE).toBe("StepWiser paper (Meta FAIR, 2025), ProcessBench average over its four subsets");
    // Sorting for the view leaves the shared data as it is.
    expect(PUBLISHED_PROCESSBENCH_F1.map((p) => p.model)).toContain("Math-Shepherd-PRM-7B");
    expect(Object.isFrozen(PUBLISHED_PROCESSBENCH_F1)).toBe(true);
  });

  it("says only the average is published and what the measured average is over", () => {
    expect(publishedCaveat(["gsm8k", "math"])).toMatch(/^Only the average F1 over ProcessBench's four subsets \(gsm8k, math, olympiadbench, omnimath\) is published: no acc_err, acc_cor, per-subset score or interval\. The measured average above is over the 2 subsets here \(gsm8k, math\)/);
    expect(publishedCaveat(["sim"])).toContain("over the one subset here (sim)");
    expect(publishedCaveat(["sim"])).toContain("not measured here");
  });
});
