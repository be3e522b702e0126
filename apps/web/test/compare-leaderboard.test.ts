import { averageCoverage, JUDGE_PROTOCOLS, PRMBENCH_CLASS_ORDER, PUBLISHED_PRMBENCH_PRMSCORE, PUBLISHED_PRMBENCH_SOURCES, PUBLISHED_PROCESSBENCH_F1, PUBLISHED_PROCESSBENCH_SOURCES } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import {
  leaderboardColumns,
  measuredAverageHeading,
  measuredF1Text,
  measuredLeaderboard,
  prmscoreCellText,
  PUBLISHED_PRMBENCH_CLASS_HEADINGS,
  PUBLISHED_SUBSET_HEADINGS,
  publishedCaveat,
  publishedPrmbenchCaveat,
  publishedPrmbenchRows,
  publishedPrmbenchSources,
  publishedRows,
  publishedSources,
  sameJudgeText,
  scalingAverageName,
  simulatedJudgeNote,
  type MeasuredInput,
} from "../src/app/(app)/compare/leaderboard";

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
    expect(rows[0]).toMatchObject({ protocolLabel: "ThinkPRM", protocolRef: "thinkprm@v1", value: 0.71, processBench: { averageF1: 0.71, from: null }, isBaseline: false });
    expect(rows[3]).toMatchObject({ isBaseline: true, processBench: { ci: { lower: 0.42 - 0.05, upper: 0.42 + 0.05 } } });
    expect(measuredF1Text(rows[0]!)).toBe("71.0");
    // No PRMBench run of the same judge: nothing in the PRMScore column.
    expect(prmscoreCellText(rows[0]!)).toBe("—");
  });

  it("marks runs of a simulated judge and explains under the table why their F1 is what it is; nothing when no judge is simulated", () => {
    const rows = measuredLeaderboard([{ ...run("sim", 0.2), simulatedJudge: true }, run("real", 0.6)]);
    expect(rows.map((r) => [r.id, r.simulated])).toEqual([
      ["real", false],
      ["sim", true],
    ]);
    expect(simulatedJudgeNote(rows)).toMatch(/built-in simulated cluster.*every chunk is judged Positive.*say nothing about a real judge/);
    expect(simulatedJudgeNote(measuredLeaderboard([run("real", 0.6)]))).toBeNull();
  });

  const medium = { runId: "pb-medium", name: "Demo benchmark: medium judge", datasetId: "demo", datasetName: "Simulated world (demo)", protocolRef: "stepwiser-chunk@v2" };
  const prmbenchRun = { runId: "prm-medium", name: "PRMBench medium", datasetId: "prm", datasetName: "PRMBench sample", protocolRef: "stepwiser-chunk@v2" };
  const prmbench = (prmscore: number, rest: Partial<NonNullable<MeasuredInput["prmbench"]>> = {}) => ({ prmscore, f1: 0.7, negativeF1: 0.5, n: 27, ci: { lower: prmscore - 0.1, upper: prmscore + 0.1 }, from: null, ...rest });

  it("beside a ProcessBench run, the PRMScore of its judge's PRMBench run, named", () => {
    const rows = measuredLeaderboard([{ ...run("a", 0.5), prmbench: prmbench(0.61, { from: prmbenchRun }) }, run("b", 0.6)]);
    expect(rows.map((r) => [r.id, r.rank, r.value])).toEqual([
      ["b", 1, 0.6],
      ["a", 2, 0.5],
    ]);
    expect(prmscoreCellText(rows[1]!)).toBe("61.0 [51.0, 71.0]");
    expect(rows[1]!.prmbench!.from).toEqual(prmbenchRun);
    expect(sameJudgeText(prmbenchRun)).toBe("from PRMBench medium on PRMBench sample");
  });

  it("on a PRMBench import: ranked by each run's own PRMScore, its own first-error F1 never in the ProcessBench F1 column", () => {
    const rows = measuredLeaderboard(
      [
        { ...run("low", 0.9, undefined, true), prmbench: prmbench(0.55), sameJudgeProcessBench: { averageF1: 0.42, ci: { lower: 0.3, upper: 0.5 }, subsetsInAverage: ["sim"], averageIsPartial: true, from: medium } },
        { ...run("high", 0.1), prmbench: prmbench(0.7) },
        // A PRMScore computed from an undefined F1_neg (−1) is no score: unranked, last.
        { ...run("undefined", 0.5), prmbench: prmbench(0.1, { negativeF1: -1 }) },
        // A judge run on the import: no PRMScore of its own.
        run("judge-run", 0.95),
      ],
      "prmbench",
    );
    expect(rows.map((r) => [r.id, r.rank, r.value])).toEqual([
      ["high", 1, 0.7],
      ["low", 2, 0.55],
      ["undefined", null, null],
      ["judge-run", null, null],
    ]);
    // The F1 column holds the same judge's ProcessBench run, named and partial as it is, never the run's own 0.9.
    expect(rows[1]!.processBench).toEqual({ averageF1: 0.42, ci: { lower: 0.3, upper: 0.5 }, partial: true, from: medium });
    expect(measuredF1Text(rows[1]!)).toBe("42.0");
    expect(rows[0]!.processBench).toBeNull();
    expect(measuredF1Text(rows[0]!)).toBe("—");
    expect(measuredF1Text(rows[3]!)).toBe("—");
    expect(prmscoreCellText(rows[0]!)).toBe("70.0 [60.0, 80.0]");
    expect(prmscoreCellText(rows[2]!)).toBe("undefined (−1)");
    expect(prmscoreCellText(measuredLeaderboard([{ ...run("x", 0.5), prmbench: prmbench(0.3, { ci: { lower: -0.2, upper: 0.5 } }) }], "prmbench")[0]!)).toBe("30.0 [undefined, 50.0]");
    expect(leaderboardColumns("prmbench", averageCoverage(["circular"]))).toEqual({
      caption: "Leaderboard: PRMBench PRMScore",
      f1Heading: "ProcessBench F1 of the same judge (its ProcessBench run)",
      f1Partial: false,
      prmscoreHeading: "PRMScore (95 % CI)",
    });
    expect(leaderboardColumns("processbench", averageCoverage(["sim"]))).toMatchObject({ caption: "Leaderboard: average F1", f1Heading: "Partial average F1 (1 subset: sim; 0 of ProcessBench's 4) (95 % CI)", f1Partial: true });
  });

  it("lists the published PRMBench PRMScores best first, per class in PRMBench's order, each with its source", () => {
    const rows = publishedPrmbenchRows(PUBLISHED_PRMBENCH_PRMSCORE);
    expect(rows).toHaveLength(25);
    expect(rows.map((r) => r.prmscore)).toEqual([...rows.map((r) => r.prmscore)].sort((a, b) => b - a));
    expect(PUBLISHED_PRMBENCH_CLASS_HEADINGS.map((h) => h.heading)).toEqual(["NR.", "NCL.", "ES.", "SC.", "DC.", "CI.", "PS.", "DR.", "MS."]);
    expect(PUBLISHED_PRMBENCH_CLASS_HEADINGS.map((h) => h.classification)).toEqual([...PRMBENCH_CLASS_ORDER]);
    expect(rows.find((r) => r.model === "Qwen2.5-Math-PRM-7B")).toEqual({
      model: "Qwen2.5-Math-PRM-7B",
      prmscore: 65.5,
      prmscoreText: "65.5",
      classTexts: ["49.0", "55.1", "71.8", "67.3", "66.3", "78.5", "57.6", "69.1", "99.7"],
      family: "Open-source process-level reward model",
      protocolText: `${JUDGE_PROTOCOLS["discriminative-prm"].label} (discriminative-prm)`,
      source: PUBLISHED_PRMBENCH_SOURCES.authors,
      note: null,
    });
    expect(rows.find((r) => r.model === "GPT-4o")).toMatchObject({ prmscoreText: "66.8", protocolText: null });
    expect(publishedPrmbenchSources(PUBLISHED_PRMBENCH_PRMSCORE)).toEqual([
      "PRMBench results table (Song et al., arXiv 2501.03124), its LaTeX rows as the authors' notebook mr_visualize/eval_res_view/draw_tabs/form_latex_strs.ipynb prints them (github.com/ssmisya/PRMBench, commit a1ae4ea); not checked against the paper's PDF",
    ]);
    expect(publishedPrmbenchCaveat("prmbench")).toContain("over this import's items only");
    expect(publishedPrmbenchCaveat("processbench")).toMatch(/^The published figures are PRMScores over the whole of PRMBench/);
    expect(Object.isFrozen(PUBLISHED_PRMBENCH_PRMSCORE)).toBe(true);
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
