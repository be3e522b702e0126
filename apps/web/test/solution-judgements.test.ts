import { describe, expect, it } from "vitest";
import { paperPresetLabelRules } from "@stepwiser/core";
import { rulesFromRows } from "../src/app/(app)/runs/new/label-editors";
import { presetButtons, presetRuleRows } from "../src/app/(app)/runs/new/presets";
import { solutionJudgementViews, type InspectedSolutionJudgement } from "../src/app/(app)/solutions/[id]/inspector/solution-judgements";

const critic: InspectedSolutionJudgement = {
  runId: "r1",
  label: "benchmark · sim-judge-strong · K=4",
  judgeModel: "sim-judge-strong",
  protocol: "processbench-critic",
  promptTemplateId: "processbench-critic@v2",
  predictedFirstError: 2,
  score: null,
  output: "… \\boxed{2}",
  samples: [
    { index: 0, text: "… \\boxed{2}", reading: 2, answer: "2", truncated: false },
    { index: 1, text: "… \\boxed{two}", reading: null, answer: "two", truncated: false },
    { index: 2, text: "cut off", reading: null, answer: null, truncated: true },
    { index: 3, text: "… \\boxed{-1}", reading: -1, answer: "-1", truncated: false },
  ],
};

describe("solution-level judgements in the inspector", () => {
  it("names the template, the voted prediction, and each sample's reading, truncated apart from unparseable", () => {
    const [view] = solutionJudgementViews([critic]);
    expect(view).toMatchObject({
      title: "benchmark · sim-judge-strong · K=4 · sim-judge-strong",
      asked: "processbench-critic · processbench-critic@v2",
      prediction: "first error at step 2 (most common answer)",
      tally: "4 samples · 1 truncated · 1 unparseable",
    });
    expect(view!.samples.map((s) => [s.reading, s.truncated])).toEqual([
      ["first error at step 2", false],
      ['unparseable (answer "two")', false],
      ["unparseable", true],
      ["no error (-1)", false],
    ]);
  });

  it("shows a run stored before samples were kept by its one answer", () => {
    const [view] = solutionJudgementViews([{ ...critic, samples: [], predictedFirstError: null, output: "no box here" }]);
    expect(view!.samples).toEqual([{ index: 0, text: "no box here", reading: "unparseable", truncated: false }]);
    expect(view!.tally).toBeNull();
    expect(view!.prediction).toBe("unparseable");
  });

  it("reads an outcome model's samples as scores", () => {
    const [view] = solutionJudgementViews([{ ...critic, protocol: "outcome-pointwise", promptTemplateId: null, predictedFirstError: null, score: 8.5, samples: [{ index: 0, text: "Score: \\boxed{9}", reading: 9, answer: null, truncated: false }] }]);
    expect(view!.samples[0]!.reading).toBe("score 9");
    expect(view!.asked).toBe("outcome-pointwise");
  });
});

describe("paper presets in the launch form", () => {
  it("offers both presets as buttons whose rows read back as the CLI's label rules", () => {
    expect(presetButtons().map(({ id }) => id)).toEqual(["paper-1.5b", "paper-7b"]);
    expect(rulesFromRows(presetRuleRows("paper-1.5b"))).toEqual({
      rules: [
        { rule: "abs-q", evidence: "own-prefix" },
        { rule: "rel-ratio", gamma: 0.8 },
        { rule: "rel-effective", alpha: 0.4, n: 4 },
      ],
      problems: [],
    });
    expect(rulesFromRows(presetRuleRows("paper-7b")).rules).toEqual(paperPresetLabelRules("paper-7b"));
  });
});
