import { describe, expect, it } from "vitest";
import { JUDGE_PROTOCOL_IDS, judgeSamplingDefaults, resolveJudgeSampling } from "../../src/judge";

describe("judge sampling defaults, from each protocol's source", () => {
  it("gives each protocol its source's generation budget", () => {
    expect(judgeSamplingDefaults("processbench-critic", 1).maxTokens).toBe(8192); // run_eval.py
    expect(judgeSamplingDefaults("processbench-critic", 8).maxTokens).toBe(8192);
    expect(judgeSamplingDefaults("stepwiser-chunk", 1).maxTokens).toBe(3096); // StepWiser §4.1
    expect(judgeSamplingDefaults("thinkprm", 1).maxTokens).toBe(8172); // 8192 − 20
    expect(judgeSamplingDefaults("genprm", 1).maxTokens).toBe(2048);
  });

  it("samples ProcessBench's critic votes at temperature 1, top_p 0.9, one greedy answer at 0 without top_p", () => {
    expect(judgeSamplingDefaults("processbench-critic", 8)).toMatchObject({ temperature: 1, topP: 0.9 });
    const greedy = judgeSamplingDefaults("processbench-critic", 1);
    expect(greedy.temperature).toBe(0);
    expect(greedy).not.toHaveProperty("topP");
  });

  it("sends top_p only where the source does", () => {
    expect(judgeSamplingDefaults("genprm", 1)).toMatchObject({ temperature: 0.6, topP: 0.95 });
    for (const protocol of ["stepwiser-chunk", "thinkprm", "outcome-pointwise", "outcome-pairwise", "discriminative-prm"] as const) {
      expect(judgeSamplingDefaults(protocol, 1)).not.toHaveProperty("topP");
      expect(resolveJudgeSampling(protocol, { samples: 1 })).not.toHaveProperty("topP");
    }
  });

  it("never samples K > 1 votes at temperature 0 by default", () => {
    for (const protocol of JUDGE_PROTOCOL_IDS) {
      if (protocol === "discriminative-prm") continue; // deterministic; K > 1 is refused
      expect(judgeSamplingDefaults(protocol, 4).temperature).toBeGreaterThan(0);
    }
    expect(judgeSamplingDefaults("thinkprm", 4).temperature).toBe(0.7);
  });

  it("lets every given value override its default, and names each default's source", () => {
    expect(resolveJudgeSampling("processbench-critic", { samples: 8, temperature: 0.7, topP: 0.8, maxTokens: 32768 })).toEqual({ temperature: 0.7, topP: 0.8, maxTokens: 32768 });
    expect(resolveJudgeSampling("stepwiser-chunk", { samples: 1, topP: 0.5 })).toEqual({ temperature: 0, topP: 0.5, maxTokens: 3096 });
    expect(resolveJudgeSampling("processbench-critic", { samples: 1 })).toEqual({ temperature: 0, maxTokens: 8192 });
    for (const protocol of JUDGE_PROTOCOL_IDS) expect(judgeSamplingDefaults(protocol, 1).source.length).toBeGreaterThan(10);
  });
});
