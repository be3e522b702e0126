import { describe, expect, it } from "vitest";
import { officialCriticAnswer, parseCriticPredictionOfficial, voteCriticSamples } from "../../src/processbench/critic-output";

const boxed = (answer: string) => `Let me check each paragraph. The earliest error is \\boxed{${answer}}.`;

describe("critic voting as ProcessBench's run_eval.py votes", () => {
  it("takes the most common answer, each read by the template's parser", () => {
    const vote = voteCriticSamples([boxed("2"), boxed("-1"), boxed("2"), boxed("3")], "processbench-critic@v2");
    expect(vote.prediction).toBe(2);
    expect(vote.decidedBy).toBe("majority");
    expect(vote.samples.map((s) => s.vote)).toEqual([2, -1, 2, 3]);
    expect(vote.tally).toEqual([
      { answer: "2", count: 2 },
      { answer: "-1", count: 1 },
      { answer: "3", count: 1 },
    ]);
  });

  it("breaks a tie for the tied answer seen first in sample order (Counter.most_common(1))", () => {
    expect(voteCriticSamples([boxed("3"), boxed("1"), boxed("1"), boxed("3")], "processbench-critic@v2")).toMatchObject({ prediction: 3, decidedBy: "tie" });
    expect(voteCriticSamples([boxed("1"), boxed("3"), boxed("3"), boxed("1")], "processbench-critic@v2")).toMatchObject({ prediction: 1, decidedBy: "tie" });
    // An answer first seen later but counted more often still wins.
    expect(voteCriticSamples([boxed("0"), boxed("4"), boxed("4")], "processbench-critic@v2").prediction).toBe(4);
  });

  it("leaves out samples without an answer, and is unparseable when none has one", () => {
    expect(voteCriticSamples(["no box", boxed("5"), "cut off at \\boxed{"], "processbench-critic@v2")).toMatchObject({ prediction: 5, decidedBy: "majority" });
    expect(voteCriticSamples(["no box", "still none"], "processbench-critic@v2")).toMatchObject({ prediction: null, decidedBy: "no-answer" });
  });

  it("votes over the answer strings before int(), as run_eval.py does", () => {
    // "02" and "2" are different strings: two votes for "02" beat one for "2" and one for " 2" (stripped to "2")...
    expect(voteCriticSamples([boxed("02"), boxed("2"), boxed("02"), boxed("1")], "processbench-critic@v2").prediction).toBe(2);
    // ...and "2" twice (one written " 2 ") beats "02" once.
    expect(voteCriticSamples([boxed("02"), boxed(" 2 "), boxed("2")], "processbench-critic@v2").tally).toEqual([
      { answer: "02", count: 1 },
      { answer: "2", count: 2 },
    ]);
    // A winning answer that is not an integer leaves the prediction unparseable, even if a minority answer was one.
    expect(voteCriticSamples([boxed("\\text{2"), boxed("two"), boxed("two"), boxed("1")], "processbench-critic@v2")).toMatchObject({ prediction: null, decidedBy: "majority" });
  });

  it("reads one sample exactly as the single-answer scorer does", () => {
    for (const output of [boxed("3"), boxed(" +1_0 "), "none", boxed("2.0"), "\\boxed{1} then \\boxed{x}"]) {
      const vote = voteCriticSamples([output], "processbench-critic@v2");
      expect(vote.prediction).toBe(parseCriticPredictionOfficial(output));
      expect(vote.samples[0]!.answer).toBe(officialCriticAnswer(output));
      expect(vote.decidedBy).toBe(officialCriticAnswer(output) === null ? "no-answer" : "single");
    }
  });

  it("votes over parsed indices with the v1 template", () => {
    const vote = voteCriticSamples(["\\boxed{\\text{2}}", "\\boxed{2}", "\\boxed{-1}", "\\boxed{x}"], "processbench-critic@v1");
    expect(vote.samples.map((s) => s.vote)).toEqual([2, 2, -1, null]);
    expect(vote.prediction).toBe(2);
  });
});
