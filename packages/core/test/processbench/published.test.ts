import { describe, expect, it } from "vitest";
import { PROCESSBENCH_SUBSETS } from "../../src/processbench/average";
import { PUBLISHED_PROCESSBENCH_F1, PUBLISHED_PROCESSBENCH_SOURCES, type PublishedSubsetF1 } from "../../src/processbench/published";

const row = (model: string) => {
  const found = PUBLISHED_PROCESSBENCH_F1.find((r) => r.model === model);
  if (!found) throw new Error(`no published row ${model}`);
  return found;
};
const inOrder = (subsets: PublishedSubsetF1 | null) => (subsets ? PROCESSBENCH_SUBSETS.map((s) => subsets[s]) : null);
const meanOf = (subsets: PublishedSubsetF1) => PROCESSBENCH_SUBSETS.reduce((sum, s) => sum + subsets[s], 0) / PROCESSBENCH_SUBSETS.length;

describe("published ProcessBench F1s", () => {
  it("cite each row's own table: StepWiser Table 5 for its judges and baselines, GenPRM Table 1 for GenPRM, Qwen2.5-Math-PRM and the critics", () => {
    const bySource = (source: string) => PUBLISHED_PROCESSBENCH_F1.filter((r) => r.source === source).map((r) => r.model);
    expect(PUBLISHED_PROCESSBENCH_SOURCES).toEqual({
      stepwiser: "StepWiser paper (Xiong et al., arXiv 2508.19229v2), Table 5",
      genprm: "GenPRM paper (Zhao et al., arXiv 2504.00891), Table 1",
    });
    expect(bySource(PUBLISHED_PROCESSBENCH_SOURCES.stepwiser)).toEqual([
      "Math-Shepherd-PRM-7B",
      "RLHFlow-Llama3-8B-it",
      "Skywork-Qwen2.5-Math-7B-it",
      "Eurus-Qwen2.5-Math-7B-it (DPO)",
      "RL-TANGO-Qwen2.5-7B-it",
      "StepWiser Abs-Q (Qwen2.5-1.5B-chunk)",
      "StepWiser Rel-Effective (Qwen2.5-1.5B-chunk)",
      "StepWiser Rel-Ratio (Qwen2.5-1.5B-chunk)",
      "StepWiser Abs-Q (Qwen2.5-7B-chunk)",
      "StepWiser Rel-Effective (Qwen2.5-7B-chunk)",
      "StepWiser Rel-Ratio (Qwen2.5-7B-chunk)",
    ]);
    expect(bySource(PUBLISHED_PROCESSBENCH_SOURCES.genprm)).toEqual(["o1-mini", "QwQ-32B-Preview", "GPT-4o-0806", "Qwen2.5-Math-PRM-7B", "Qwen2.5-Math-PRM-72B", "GenPRM-1.5B", "GenPRM-7B", "GenPRM-32B"]);
    expect(new Set(PUBLISHED_PROCESSBENCH_F1.map((r) => r.model)).size).toBe(PUBLISHED_PROCESSBENCH_F1.length);
  });

  it("copy the tables' figures (GSM8K, MATH, OlympiadBench, Omni-MATH; average)", () => {
    expect([inOrder(row("StepWiser Rel-Effective (Qwen2.5-7B-chunk)").subsets), row("StepWiser Rel-Effective (Qwen2.5-7B-chunk)").averageF1]).toEqual([[72.4, 68.3, 54.4, 52.4], 61.9]);
    expect(row("StepWiser Rel-Effective (Qwen2.5-7B-chunk)").voted).toEqual({ method: "Maj@8", subsets: { gsm8k: 72.9, math: 72.1, olympiadbench: 57.3, omnimath: 54.0 }, averageF1: 64.1 });
    expect([inOrder(row("StepWiser Rel-Ratio (Qwen2.5-1.5B-chunk)").subsets), row("StepWiser Rel-Ratio (Qwen2.5-1.5B-chunk)").averageF1]).toEqual([[46.9, 43.4, 26.3, 28.4], 36.2]);
    expect([inOrder(row("RL-TANGO-Qwen2.5-7B-it").subsets), row("RL-TANGO-Qwen2.5-7B-it").averageF1]).toEqual([[53.1, 48.2, 37.8, 36.3], 43.9]);
    expect([inOrder(row("GenPRM-7B").subsets), row("GenPRM-7B").averageF1, row("GenPRM-7B").voted?.averageF1]).toEqual([[78.7, 80.3, 72.2, 69.8], 75.2, 80.5]);
    expect([inOrder(row("Qwen2.5-Math-PRM-72B").subsets), row("Qwen2.5-Math-PRM-72B").averageF1]).toEqual([[87.3, 80.6, 74.3, 71.1], 78.3]);
    expect([inOrder(row("o1-mini").subsets), row("o1-mini").averageF1]).toEqual([[93.2, 88.9, 87.2, 82.4], 87.9]);
    expect([row("GenPRM-1.5B").averageF1, row("GenPRM-32B").averageF1, row("GPT-4o-0806").averageF1, row("Qwen2.5-Math-PRM-7B").averageF1]).toEqual([57.3, 77.6, 61.9, 73.5]);
  });

  it("agree with their own averages up to rounding, except where a note says the source does not", () => {
    for (const entry of PUBLISHED_PROCESSBENCH_F1) {
      for (const figures of [entry, ...(entry.voted ? [entry.voted] : [])]) {
        if (!figures.subsets) continue;
        // Four figures rounded to 0.1 and an average rounded to 0.1 differ by at most 0.1 (plus float noise).
        const consistent = Math.abs(meanOf(figures.subsets) - figures.averageF1) <= 0.1 + 1e-9;
        expect(consistent || entry.note !== undefined, `${entry.model}: subsets average ${meanOf(figures.subsets).toFixed(3)}, published ${figures.averageF1}`).toBe(true);
      }
    }
    // The one row whose source is inconsistent, and it says so with the mean its subsets give.
    const eurus = row("Eurus-Qwen2.5-Math-7B-it (DPO)");
    expect(meanOf(eurus.subsets!)).toBeCloseTo(38.425, 9);
    expect(eurus.note).toContain("average 38.4, not the 35.1");
    expect(PUBLISHED_PROCESSBENCH_F1.filter((r) => r.note).map((r) => r.model)).toEqual(["Eurus-Qwen2.5-Math-7B-it (DPO)", "QwQ-32B-Preview"]);
  });

  it("give only the average where the source text gives no per-subset figure, and are frozen", () => {
    expect(row("QwQ-32B-Preview")).toMatchObject({ subsets: null, averageF1: 71.5 });
    expect(row("QwQ-32B-Preview").note).toMatch(/^Average only/);
    expect(Object.isFrozen(PUBLISHED_PROCESSBENCH_F1)).toBe(true);
    expect(Object.isFrozen(row("GenPRM-7B"))).toBe(true);
    expect(Object.isFrozen(row("GenPRM-7B").subsets)).toBe(true);
  });
});
