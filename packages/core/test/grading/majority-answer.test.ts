import { describe, expect, it } from "vitest";
import { clusterAnswers, majorityAnswer } from "../../src/grading";

describe("majority vote over final answers by equivalence", () => {
  it("0.5, \\frac{1}{2} and 1/2 vote together and beat two 0.6", () => {
    const answers = ["0.6", "0.5", String.raw`\frac{1}{2}`, "0.6", "1/2"];
    const vote = majorityAnswer(answers, { timeLimitMs: 1000 });
    expect(vote.winner).toEqual({ representative: "0.5", members: [1, 2, 4] });
    expect(vote.clusters).toEqual([
      { representative: "0.6", members: [0, 3] },
      { representative: "0.5", members: [1, 2, 4] },
    ]);
    expect(vote.abstained).toBe(0);
    // Grouping raw strings would have made 0.6 the majority.
  });

  it("a tie goes to the cluster formed first, whatever the answers are", () => {
    expect(majorityAnswer(["7", "3", String.raw`\dfrac{6}{2}`, "7.0"]).winner).toEqual({ representative: "7", members: [0, 3] });
    expect(majorityAnswer(["3", "7", "7.0", "3"]).winner?.representative).toBe("3");
    expect(majorityAnswer(["a", "b", "c"]).winner).toEqual({ representative: "a", members: [0] });
  });

  it("missing and blank answers abstain: they never win over a real answer", () => {
    const vote = majorityAnswer([null, "", "  ", undefined, "12"]);
    expect(vote.winner).toEqual({ representative: "12", members: [4] });
    expect(vote.abstained).toBe(4);
    expect(vote.clusters).toHaveLength(1);
    expect(majorityAnswer([null, "", undefined])).toEqual({ winner: null, clusters: [], abstained: 3 });
    expect(majorityAnswer([])).toEqual({ winner: null, clusters: [], abstained: 0 });
  });

  it("identical texts share a cluster even when the grader cannot read them", () => {
    expect(clusterAnswers(["no idea", "no idea ", "5"])).toEqual([
      { representative: "no idea", members: [0, 1] },
      { representative: "5", members: [2] },
    ]);
  });

  it("an answer joins the first cluster whose representative it matches, compared with the representative only", () => {
    expect(clusterAnswers(["x = 3", "3", String.raw`\sqrt{9}`, "(1, 2)", "(1,2)"])).toEqual([
      { representative: "x = 3", members: [0, 1, 2] },
      { representative: "(1, 2)", members: [3, 4] },
    ]);
  });

  it("a comparison out of time counts as not equivalent, and the vote still ends", () => {
    let t = 0;
    // A clock that jumps past any deadline at once: every comparison the grader times runs out.
    const now = () => (t += 10_000);
    const vote = majorityAnswer([String.raw`2\sqrt{2}`, String.raw`\sqrt{8}`], { timeLimitMs: 1, now });
    expect(vote.clusters.map((c) => c.members)).toEqual([[0], [1]]);
    expect(vote.winner?.representative).toBe(String.raw`2\sqrt{2}`);
  });
});
