import { describe, expect, it } from "vitest";
import { againstEstimate, amount, coefficient, count, countWithShare, percent, percentWithInterval, points } from "../src/app/(app)/runs/[id]/results/format";
import {
  agreementView,
  benchmarkFacts,
  benchmarkIntervalsNote,
  benchmarkProtocol,
  benchmarkProtocolFact,
  benchmarkRows,
  simulatorExpectationNote,
  bestOfNView,
  chunkHref,
  chunkResetView,
  compareHref,
  exportView,
  generateFacts,
  importFacts,
  labelBalanceRows,
  PRMBENCH_UNDEFINED,
  prmbenchClassRows,
  prmbenchCorrectRows,
  prmbenchFacts,
  prmbenchFigureText,
  prmscoreText,
  promptFilterFacts,
  qValueBars,
  segmentView,
  solutionHref,
  usageRows,
  verdictRows,
  type ResultsOf,
} from "../src/app/(app)/runs/[id]/results/shaping";

describe("result numbers", () => {
  it("shows shares as percentages with digits for their size, never rounding to 0 % or 100 % when they are not", () => {
    expect(percent(0.052083333333333336)).toBe("5.2 %");
    expect(percent(0.5)).toBe("50.0 %");
    expect(percent(0)).toBe("0 %");
    expect(percent(1)).toBe("100 %");
    expect(percent(0.0052)).toBe("0.52 %");
    expect(percent(0.000052)).toBe("0.0052 %");
    expect(percent(0.99996)).toBe("99.9 %");
    expect(percent(null)).toBe("—");
    expect(percent(Number.NaN)).toBe("—");
  });

  it("separates thousands, keeps three significant digits for means, signs κ and differences with a true minus", () => {
    expect(count(1234567)).toBe("1,234,567");
    expect(amount(4.16666)).toBe("4.17");
    expect(amount(27.54)).toBe("27.5");
    expect(amount(1234.4)).toBe("1,234");
    expect(amount(null)).toBe("—");
    expect(coefficient(0.41234)).toBe("0.41");
    expect(coefficient(-0.0512)).toBe("−0.05");
    expect(coefficient(-0.001)).toBe("0.00");
    expect(points(0.031)).toBe("+3.1 pp");
    expect(points(-0.004)).toBe("−0.4 pp");
    expect(points(0.0001)).toBe("0.0 pp");
    expect(percentWithInterval(0.619, 0.55, 0.682)).toBe("61.9 % [55.0, 68.2]");
    expect(percentWithInterval(0.619, null, null)).toBe("61.9 %");
    expect(countWithShare(12, 300)).toBe("12 (4.0 %)");
    expect(countWithShare(0, 0)).toBe("0");
    expect(againstEstimate(1080, 1000)).toBe("+8.0 %");
    expect(againstEstimate(35927, 35893)).toBe("+0.1 %");
    expect(againstEstimate(999, 1000)).toBe("−0.1 %");
    expect(againstEstimate(96, 96)).toBe("0.0 %");
    expect(againstEstimate(1, 0)).toBe("—");
  });
});

describe("result views", () => {
  it("links a chunk to the inspector's permalink and Compare to the run on its dataset", () => {
    expect(chunkHref("t 1", 3)).toBe("/solutions/t%201#chunk-3");
    expect(compareHref("ds1", "run-9")).toBe("/compare?dataset=ds1&runs=run-9&tab=metrics");
  });

  const annotate: ResultsOf<"annotate"> = {
    runId: "a1",
    status: "completed",
    kind: "annotate",
    summary: { rollouts: 96, chunkValues: 30, rolloutCompletionTokens: 5000 },
    labelBalance: [{ rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}', name: "abs-q(evidence=own-prefix)", positive: 1500, negative: 500 }],
    qValues: Array.from({ length: 10 }, (_, i) => ({ from: i / 10, to: (i + 1) / 10, count: i === 9 ? 20 : 1 })),
    usage: { actual: { requests: 24, rollouts: 96, promptTokens: 12000, generatedTokens: 5400 }, estimate: { requests: 24, rollouts: 96, promptTokens: 10000.4, generatedTokens: 6000, qSource: "assumed" }, estimateError: null },
  };

  it("annotate: labels per rule with the Negative share, Q bins named by their range, used against estimated", () => {
    expect(labelBalanceRows(annotate)).toEqual([
      { key: 'abs_q|{"evidence":"own-prefix"}', rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}', name: "abs-q(evidence=own-prefix)", positive: "1,500", negative: "500", negativeShare: "25.0 %", total: 2000 },
    ]);
    expect(qValueBars(annotate).map((b) => b.bin)).toEqual(["0.0–0.1", "0.1–0.2", "0.2–0.3", "0.3–0.4", "0.4–0.5", "0.5–0.6", "0.6–0.7", "0.7–0.8", "0.8–0.9", "0.9–1.0"]);
    expect(qValueBars(annotate)[9]).toEqual({ bin: "0.9–1.0", chunks: 20 });
    expect(usageRows(annotate)).toEqual([
      { measure: "Rollouts", actual: "96", estimate: "96", difference: "0.0 %" },
      { measure: "Requests", actual: "24", estimate: "24", difference: "0.0 %" },
      { measure: "Prompt tokens", actual: "12,000", estimate: "10,000", difference: "+20.0 %" },
      { measure: "Generated tokens", actual: "5,400", estimate: "6,000", difference: "−10.0 %" },
    ]);
    const unplanned = { ...annotate, usage: { ...annotate.usage, estimate: null, estimateError: "dataset x does not exist" } };
    expect(usageRows(unplanned)[0]).toEqual({ measure: "Rollouts", actual: "96", estimate: "—", difference: "—" });
  });

  const judge: ResultsOf<"judge"> = {
    runId: "j1",
    status: "completed",
    kind: "judge",
    summary: { samples: 192, verdicts: { Positive: 150, Negative: 32, unparseable: 10 }, unparseableRate: 10 / 192 },
    segmentationMethod: "self-segmented",
    tiePolicy: "Negative",
    judgedChunks: 64,
    agreements: [
      {
        reference: { kind: "annotate", runId: "a1", runLabel: "annotate · sim-policy · M=4", rule: "abs_q", paramsKey: "{}", ruleName: "abs-q" },
        chunks: 10,
        matrix: { counts: { Positive: { Positive: 5, Negative: 1, unparseable: 0 }, Negative: { Positive: 2, Negative: 2, unparseable: 0 } }, total: 10 },
        kappa: 0.2,
        observedAgreement: 0.7,
        negative: { precision: 2 / 3, recall: 0.5, f1: 4 / 7, support: 4, predicted: 3 },
        positive: { precision: 5 / 7, recall: 5 / 6, f1: 10 / 13, support: 6, predicted: 7 },
        balancedAccuracy: (5 / 6 + 0.5) / 2,
        accuracy: 0.7,
        solutions: { solutions: 4, withError: 2, flagged: 3, precision: 2 / 3, recall: 1, f1: 0.8 },
        disagreements: {
          total: 3,
          listed: [
            { chunkId: "c1", solutionId: "t1", externalId: "sim-1-0", index: 2, judge: "Negative", reference: "Positive" },
            { chunkId: "c2", solutionId: "t2", externalId: "sim-2-0", index: 0, judge: "Positive", reference: "Negative" },
          ],
        },
      },
      {
        reference: { kind: "source" },
        chunks: 4,
        matrix: { counts: { Positive: { Positive: 2, Negative: 0, unparseable: 1 }, Negative: { Positive: 0, Negative: 1, unparseable: 0 } }, total: 4 },
        kappa: -0.05,
        observedAgreement: 0.75,
        negative: { precision: 1, recall: 1, f1: 1, support: 1, predicted: 1 },
        positive: { precision: 1, recall: 2 / 3, f1: 0.8, support: 3, predicted: 2 },
        balancedAccuracy: (2 / 3 + 1) / 2,
        accuracy: 0.75,
        solutions: { solutions: 2, withError: 1, flagged: 1, precision: 1, recall: 1, f1: 1 },
        disagreements: { total: 1, listed: [{ chunkId: "c3", solutionId: "t3", externalId: "sim-3-0", index: 1, judge: "unparseable", reference: "Positive" }] },
      },
    ],
  };

  it("judge: verdicts with shares, agreement headline numbers, the matrix with an unparseable column only when needed, links to disagreements", () => {
    expect(verdictRows(judge)).toEqual([
      { verdict: "Positive", samples: 150, share: "78.1 %" },
      { verdict: "Negative", samples: 32, share: "16.7 %" },
      { verdict: "unparseable", samples: 10, share: "5.2 %" },
    ]);
    const [mc, source] = judge.agreements.map(agreementView);
    expect(mc!.title).toBe("abs-q · annotate · sim-policy · M=4");
    expect(mc!.annotateRunId).toBe("a1");
    expect(mc!.facts.map((f) => [f.label, f.value])).toEqual([
      ["Chunks compared", "10"],
      ["F1 (Negative)", "57.1 %"],
      ["Cohen's κ", "0.20"],
      ["Accuracy", "70.0 %"],
      ["F1 (Positive)", "76.9 %"],
      ["Solutions: has an error, F1", "80.0 %"],
    ]);
    expect(mc!.facts.find((f) => f.label === "Accuracy")!.note).toBe("balanced 66.7 %");
    expect(mc!.columns).toEqual(["Positive", "Negative"]);
    expect(mc!.rows.map((r) => [r.reference, r.cells.map((c) => c.count)])).toEqual([
      ["Positive", ["5", "1"]],
      ["Negative", ["2", "2"]],
    ]);
    expect(mc!.rows[1]!.cells.map((c) => c.agrees)).toEqual([false, true]);
    expect(mc!.disagreements.map((d) => [d.href, d.text])).toEqual([
      ["/solutions/t1#chunk-2", "sim-1-0 #2"],
      ["/solutions/t2#chunk-0", "sim-2-0 #0"],
    ]);
    expect([mc!.totalDisagreements, mc!.moreDisagreements]).toEqual([3, 1]);
    expect(source!.title).toBe("Source first errors");
    expect(source!.columns).toEqual(["Positive", "Negative", "unparseable"]);
    expect(source!.facts[2]!.value).toBe("−0.05");
    expect(verdictRows({ ...judge, summary: null })).toEqual([]);
  });

  const benchmark = (summary: Partial<NonNullable<ResultsOf<"benchmark">["summary"]>> = {}): ResultsOf<"benchmark"> => ({
    runId: "b1",
    status: "completed",
    kind: "benchmark",
    datasetId: "ds",
    summary: {
      protocol: null,
      mode: "chunk-judge",
      judge: "sim-judge",
      promptTemplateId: null,
      averageF1: { estimate: 0.5, lower: 0.3, upper: 0.7 },
      subsetsInAverage: ["gsm8k"],
      averageIsPartial: true,
      intervals: "summary",
      unparseable: 2,
      missing: 0,
      judgeOutputs: { outputs: 40, truncated: 3, unparseable: 1 },
      scored: 15,
      ...summary,
    },
    subsets: [
      { subset: "gsm8k", n: 12, nError: 10, nCorrect: 2, f1: { estimate: 0.5, lower: 0.2, upper: 0.8 }, accErr: { estimate: 0.5, lower: 0.2366, upper: 0.7634, hits: 5, of: 10 }, accCor: { estimate: 0, lower: 0, upper: 0, hits: 0, of: 2 } },
      { subset: "math", n: 3, nError: 3, nCorrect: 0, f1: { estimate: 0, lower: 0, upper: 0 }, accErr: { estimate: 1, lower: 1, upper: 1, hits: 3, of: 3 }, accCor: null },
    ],
    prmbench: null,
    simulatorExpectation: null,
  });

  it("benchmark: a built-in simulated judge's expected figures beside the measured ones (pooled over subsets); nothing for another judge", () => {
    expect(simulatorExpectationNote(benchmark())).toBeNull();
    const expectation = {
      judge: "sim-judge-medium",
      accuracy: 0.8,
      positiveBias: 0.05,
      unparseableRate: 0.02,
      samples: 1,
      chunkPositiveGivenPositive: 0.7938,
      chunkNegativeGivenNegative: 0.7448,
      meanChunksCorrect: 9.5,
      acc_err: 0.3,
      acc_cor: 0.12,
      f1: (2 * 0.3 * 0.12) / 0.42,
    };
    const note = simulatorExpectationNote({ ...benchmark(), simulatorExpectation: expectation })!;
    expect(note.title).toBe("Why sim-judge-medium scores this");
    expect(note.text).toContain("rightly with probability 80.0 %");
    expect(note.text).toContain("every one of its chunks is voted Positive");
    expect(note.text).toContain("9.5 chunks on average");
    // Measured: acc_err 8 of 13 located (5/10 + 3/3), acc_cor 0 of 2.
    expect(note.facts).toEqual([
      { label: "Expected acc_err", value: "30.0 %", note: `measured ${percent(8 / 13)}` },
      { label: "Expected acc_cor", value: "12.0 %", note: "measured 0 %" },
      { label: "Expected F1", value: percent(expectation.f1), note: "measured 0 %" },
    ]);
  });

  it("benchmark: every number with its bootstrap interval, the accuracies with their counts, a class without solutions as —", () => {
    expect(benchmarkRows(benchmark())).toEqual([
      { subset: "gsm8k", solutions: "12", withError: "10", withoutError: "2", f1: "50.0 % [20.0, 80.0]", accErr: "50.0 % [23.7, 76.3] (5/10)", accCor: "0 % [0.0, 0.0] (0/2)", f1Value: 0.5 },
      { subset: "math", solutions: "3", withError: "3", withoutError: "0", f1: "0 % [0.0, 0.0]", accErr: "100 % [100.0, 100.0] (3/3)", accCor: "—", f1Value: 0 },
    ]);
    expect(benchmarkIntervalsNote(benchmark())).toMatch(/^Per subset, in %, with 95 % percentile-bootstrap intervals over the subset's solutions, the same method for F1, acc_err and acc_cor/);
    expect(benchmarkIntervalsNote(benchmark({ intervals: "recomputed" }))).toMatch(/predates the accuracy and average intervals, so they are recomputed from its stored predictions$/);
  });

  it("benchmark: the average named partial unless over ProcessBench's four subsets, with its interval", () => {
    const [average, protocol, unparseable, missing] = benchmarkFacts(benchmark());
    expect(average).toEqual({ label: "Partial average F1", value: "50.0 % [30.0, 70.0]", note: "partial average (1 of 4 subsets: gsm8k), unweighted; its interval resamples each subset within itself" });
    expect(protocol).toEqual({ label: "Protocol", value: "StepWiser chunk judge", note: "stepwiser-chunk@v1 · sim-judge" });
    expect([unparseable, missing]).toEqual([
      { label: "Unparseable predictions", value: "2", note: "scored as wrong" },
      { label: "Solutions without a prediction", value: "0", note: "scored as wrong" },
    ]);
    // The judge's outputs: cut ones apart from unreadable ones; a summary from before the count says so.
    expect(benchmarkFacts(benchmark()).at(-1)).toEqual({ label: "Judge outputs", value: "40", note: "3 truncated (hit the generation limit) · 1 unparseable (ended without a readable answer)" });
    expect(benchmarkFacts(benchmark({ judgeOutputs: null })).at(-1)).toMatchObject({ label: "Judge outputs", value: "—" });
    // A template the run names is shown.
    expect(benchmarkFacts(benchmark({ promptTemplateId: "stepwiser-judge@v2" }))).toContainEqual({ label: "Prompt template", value: "stepwiser-judge@v2" });
    // A score over no solution is never shown as a score.
    expect(benchmarkFacts(benchmark({ scored: 0 }))[0]).toMatchObject({ label: "Average F1", value: "—", note: expect.stringContaining("no solution was scored") });
    const full = benchmarkFacts(benchmark({ subsetsInAverage: ["gsm8k", "math", "olympiadbench", "omnimath"], averageIsPartial: false }))[0];
    expect(full).toEqual({ label: "Average F1", value: "50.0 % [30.0, 70.0]", note: "average (4 of 4 subsets), unweighted; its interval resamples each subset within itself" });
    expect(benchmarkFacts({ ...benchmark(), summary: null })).toEqual([]);
  });

  it("benchmark: the protocol from the summary's id@vN, or from the mode of a summary written before protocols", () => {
    expect(benchmarkProtocol({ protocol: "thinkprm@v1", mode: null })).toEqual({ label: "ThinkPRM", ref: "thinkprm@v1" });
    expect(benchmarkProtocol({ protocol: null, mode: "critic" })).toEqual({ label: "ProcessBench critic", ref: "processbench-critic@v1" });
    expect(benchmarkProtocol({ protocol: null, mode: "chunk-judge" })).toEqual({ label: "StepWiser chunk judge", ref: "stepwiser-chunk@v1" });
    expect(benchmarkProtocol({ protocol: "retired@v3", mode: null })).toEqual({ label: "retired", ref: "retired@v3" });
    expect(benchmarkProtocol({ protocol: null, mode: null })).toBeNull();
    expect(benchmarkProtocolFact({ protocol: "genprm@v1", mode: null, judge: "sim-genprm" })).toEqual({ label: "Protocol", value: "GenPRM", note: "genprm@v1 · sim-genprm" });
    expect(benchmarkProtocolFact({ protocol: null, mode: null, judge: null })).toEqual({ label: "Protocol", value: "unknown" });
  });

  const figure = (estimate: number, lower: number | null = null, upper: number | null = null) => ({ estimate, lower, upper });
  type PrmbenchClass = NonNullable<ResultsOf<"benchmark">["prmbench"]>["classes"][number];
  const prmbenchClass = (classification: string, rest: Partial<PrmbenchClass>): PrmbenchClass => ({
    classification,
    abbreviation: null,
    name: null,
    dimension: null,
    inTotals: true,
    f1Only: false,
    n: 3,
    prmscore: figure(0.6, 0.4, 0.8),
    f1: figure(0.7, 0.5, 0.9),
    negativeF1: figure(0.5, 0.3, 0.7),
    ...rest,
  });
  const prmbenchRun = (): ResultsOf<"benchmark"> => ({
    ...benchmark({ protocol: "stepwiser-chunk@v2", judge: "sim-judge-medium" }),
    prmbench: {
      totals: { prmscore: figure(0.6125, 0.5, 0.7), f1: figure(0.725, 0.61, 0.8), negativeF1: figure(0.5, 0.25, 0.75), n: 27 },
      classes: [
        prmbenchClass("redundency", { abbreviation: "NR.", name: "Non-Redundancy", dimension: { id: "simplicity", name: "Simplicity" } }),
        // An undefined negative F1 (no error step judged wrong or right): the PRMScore the evaluator prints from it is no score.
        prmbenchClass("circular", { abbreviation: "NCL.", name: "Non-Circular Logic", dimension: { id: "simplicity", name: "Simplicity" }, prmscore: figure(-0.1, -0.5, 0.4), f1: figure(0.8, 0.6, 1), negativeF1: figure(-1, -1, 0) }),
        prmbenchClass("multi_solutions", { abbreviation: "MS.", name: "Multi-Solution Consistency", dimension: { id: "sensitivity", name: "Sensitivity" }, f1Only: true, prmscore: figure(0.45), f1: figure(0.9, 0.8, 1), negativeF1: figure(0) }),
        prmbenchClass("correct", { inTotals: false, f1Only: true, n: 2, prmscore: figure(-1), f1: figure(-1), negativeF1: figure(-1) }),
      ],
      invalid: 2,
      missing: 1,
    },
  });

  it("PRMBench: the totals with their intervals, items scored, invalid and missing, the protocol and the judge's outputs", () => {
    const facts = prmbenchFacts(prmbenchRun());
    expect(facts.slice(0, 6).map((f) => [f.label, f.value])).toEqual([
      ["PRMScore", "61.3 % [50.0, 70.0]"],
      ["F1", "72.5 % [61.0, 80.0]"],
      ["F1_neg", "50.0 % [25.0, 75.0]"],
      ["Items scored", "27"],
      ["Invalid", "2"],
      ["Missing", "1"],
    ]);
    expect(facts[6]).toEqual({ label: "Protocol", value: "StepWiser chunk judge", note: "stepwiser-chunk@v2 · sim-judge-medium" });
    expect(facts.at(-1)).toMatchObject({ label: "Judge outputs", value: "40" });
    expect(prmbenchFacts(benchmark())).toEqual([]);
  });

  it("PRMBench: per class with PRMBench's label and dimension, the evaluator's −1 as undefined, the all-correct items apart", () => {
    const rows = prmbenchClassRows(prmbenchRun());
    expect(rows.map((r) => [r.classification, r.label, r.dimension, r.n, r.prmscore, r.f1, r.negativeF1])).toEqual([
      ["redundency", "Non-Redundancy (NR.)", "Simplicity", "3", "60.0 % [40.0, 80.0]", "70.0 % [50.0, 90.0]", "50.0 % [30.0, 70.0]"],
      ["circular", "Non-Circular Logic (NCL.)", "Simplicity", "3", "undefined (F1_neg −1)", "80.0 % [60.0, 100.0]", PRMBENCH_UNDEFINED],
      ["multi_solutions", "Multi-Solution Consistency (MS.)", "Sensitivity", "3", "90.0 % [80.0, 100.0] (F1)", "90.0 % [80.0, 100.0]", "0 % (no error step to find)"],
    ]);
    expect(rows[2]!.note).toMatch(/scored by its F1, as PRMBench's tables score it/);
    const correct = prmbenchCorrectRows(prmbenchRun());
    expect(correct.map((r) => [r.classification, r.label, r.dimension, r.prmscore, r.f1, r.negativeF1])).toEqual([["correct", "All-correct items (no error step)", "—", PRMBENCH_UNDEFINED, PRMBENCH_UNDEFINED, PRMBENCH_UNDEFINED]]);
    expect(PRMBENCH_UNDEFINED).toBe("undefined (−1)");
    expect(prmbenchClassRows(benchmark())).toEqual([]);
  });

  it("PRMBench: −1 is never shown as a score; an interval bound from undefined resamples says so", () => {
    expect(prmbenchFigureText(figure(-1, -1, -1))).toBe("undefined (−1)");
    expect(prmbenchFigureText(figure(0.5, -1, 0.75))).toBe("50.0 % [undefined, 75.0]");
    expect(prmbenchFigureText(figure(0.5))).toBe("50.0 %");
    expect(prmscoreText({ prmscore: figure(-1), f1: figure(-1), negativeF1: figure(-1) })).toBe("undefined (−1)");
    expect(prmscoreText({ prmscore: figure(-0.2), f1: figure(-1), negativeF1: figure(0.6) })).toBe("undefined (F1 −1)");
  });

  it("PRMBench: the first-error facts are named as that reading, not PRMBench's metric", () => {
    const [average, ...rest] = benchmarkFacts(prmbenchRun());
    expect(average).toMatchObject({ label: "First-error average F1", value: "50.0 % [30.0, 70.0]", note: expect.stringMatching(/^not PRMBench's metric/) });
    expect(rest.map((f) => f.label)).toEqual(["Unparseable predictions", "Solutions without a prediction"]);
    expect(benchmarkFacts(prmbenchRun()).some((f) => f.label === "Average F1" || f.label === "Partial average F1")).toBe(false);
  });

  it("generate: accuracy with its counts, the prompt filter's split of the problems", () => {
    const generate: ResultsOf<"generate"> = {
      runId: "g1",
      status: "completed",
      kind: "generate",
      summary: {
        outputDatasetId: "out",
        outputDatasetName: "generated",
        problems: 4,
        solutions: 16,
        correct: 9,
        accuracy: 0.5625,
        filter: { enabled: true, mixed: 2, allCorrect: 1, allWrong: 1, kept: 2, keptShare: 0.5 },
        invalidSegmentations: 0,
        truncatedSamples: 1,
        problemsWithoutReference: 0,
        selfSegmented: {
          solutions: 16,
          chunks: 64,
          chunksPerSolution: { mean: 4, median: 4, min: 2, max: 7 },
          charactersPerChunk: { mean: 40.2, median: 38, min: 5, max: 90 },
          tokensPerChunk: { mean: 12, median: 11, min: 2, max: 30 },
          oneLineChunkShare: 1,
        },
      },
      chunksPerSolution: [],
      solutionLength: { mean: 161.25, median: 150, min: 80, max: 300 },
      tokensPerSolution: 50.5,
    };
    expect(generateFacts(generate)[0]).toEqual({ label: "Accuracy (pass@1)", value: "56.3 %", note: "9 of 16 solutions correct" });
    expect(generateFacts(generate)[3]).toMatchObject({ value: "1 (6.3 %)" });
    expect(promptFilterFacts(generate).map((f) => [f.label, f.value])).toEqual([
      ["Mixed (kept)", "2 (50.0 %)"],
      ["All correct", "1 (25.0 %)"],
      ["All wrong", "1 (25.0 %)"],
      ["Kept", "2 (50.0 %)"],
    ]);
  });

  it("chunk reset and best of N: accuracy against the baselines, tokens accepted and rejected", () => {
    const reset = chunkResetView({ runId: "c", status: "completed", kind: "chunk_reset", summary: { problems: 8, accuracy: { chunkReset: 0.75, plain: 0.5 }, tokens: { accepted: 3000, rejected: 1000, plain: 2000 }, resetsPerProblem: 1.25 } })!;
    expect(reset.bars.map((b) => b.label)).toEqual(["75.0 %", "50.0 %"]);
    expect(reset.facts.map((f) => [f.label, f.value, f.note])).toEqual([
      ["Accuracy with chunk reset", "75.0 %", "+25.0 pp against plain sampling"],
      ["Accuracy of plain sampling", "50.0 %", "the baseline: the same problems without resets"],
      ["Problems", "8", undefined],
      ["Accepted tokens", "3,000", "75.0 % of the tokens generated with resets"],
      ["Rejected tokens", "1,000", "chunks the judge rejected and sampled again"],
      ["Plain sampling tokens", "2,000", "resets generated 2× as many"],
      ["Resets per problem", "1.25", undefined],
      ["Judge outputs", "—", "not counted: the run predates the count of truncated outputs"],
    ]);
    const counted = chunkResetView({ runId: "c", status: "completed", kind: "chunk_reset", summary: { problems: 8, accuracy: { chunkReset: 0.75, plain: 0.5 }, tokens: { accepted: 3000, rejected: 1000, plain: 2000 }, resetsPerProblem: 1.25, judgeOutputs: { outputs: 18, truncated: 2, unparseable: 0 }, judgePromptTemplateId: "stepwiser-judge@v2", policyPromptTemplateId: "self-segmenting-policy@v2" } })!;
    expect(counted.facts.slice(-3).map((f) => [f.label, f.value])).toEqual([
      ["Judge outputs", "18"],
      ["Judge prompt", "stepwiser-judge@v2"],
      ["Policy prompt", "self-segmenting-policy@v2"],
    ]);
    const best = bestOfNView({ runId: "n", status: "completed", kind: "best_of_n", summary: { problems: 20, accuracy: { mean: 0.6, min: 0.65, last: 0.55, majority: 0.6, random: 0.4, oracle: 0.9 } } })!;
    expect(best.rows.map((r) => [r.key, r.accuracy, r.againstMajority])).toEqual([
      ["mean", "60.0 %", "0.0 pp"],
      ["min", "65.0 %", "+5.0 pp"],
      ["last", "55.0 %", "−5.0 pp"],
      ["majority", "60.0 %", "—"],
      ["random", "40.0 %", "−20.0 pp"],
      ["oracle", "90.0 %", "+30.0 pp"],
    ]);
    expect(best.bars.filter((b) => b.baseline).map((b) => b.key)).toEqual(["majority", "random", "oracle"]);
    expect(chunkResetView({ runId: "c", status: "completed", kind: "chunk_reset", summary: null })).toBeNull();
  });

  it("segment: the segmenter's attempts with the solutions each reconstructed, and the responses none did, their error as it is", () => {
    const stats = (solutions: number) => ({ solutions, chunks: solutions * 4, chunksPerSolution: { mean: 4, median: 4, min: 2, max: 6 }, charactersPerChunk: { mean: 81.25, median: 80, min: 10, max: 200 }, tokensPerChunk: { mean: 20, median: 20, min: 3, max: 50 }, oneLineChunkShare: 0.25 });
    const hostile = '<img src=x onerror="alert(1)"> chunk 2 does not match the solution at offset 14';
    const segment: ResultsOf<"segment"> = {
      runId: "s1",
      status: "completed",
      kind: "segment",
      summary: {
        method: "llm-segmenter",
        solutions: 110,
        created: 100,
        skippedExisting: 0,
        invalid: 10,
        failedUnits: 0,
        validShare: 100 / 110,
        byMethod: [{ method: "llm-segmenter", ...stats(100) }],
        attempts: { limit: 8, acceptedAt: [{ attempt: 1, solutions: 80 }, { attempt: 2, solutions: 15 }, { attempt: 4, solutions: 5 }], requests: 80 + 30 + 20 + 10 * 8 },
        neverReconstructed: [{ solutionId: "sol/1", externalId: "gsm8k-17", attempts: 8, kind: "text-mismatch", error: hostile }],
      },
    };
    const view = segmentView(segment)!;
    expect(view.facts.find((f) => f.label === "Invalid segmentations")).toEqual({ label: "Invalid segmentations", value: "10 (9.1 %)", note: "90.9 % of the solutions asked reconstructed within 8 attempts" });
    expect(view.attempts!.facts).toEqual([
      { label: "Attempt limit", value: "8", note: "answers asked per solution at most, until one reconstructs it" },
      { label: "Segmenter requests", value: "210", note: "2.1 per stored solution, rejected attempts included" },
      { label: "Reconstructed at the first attempt", value: "80 (80.0 %)" },
    ]);
    // Every attempt up to the last one needed, those that reconstructed nothing too; bars against the widest.
    expect(view.attempts!.rows).toEqual([
      { key: "1", attempt: "Attempt 1", solutions: "80", share: "80.0 %", byThen: "80.0 %", width: 100 },
      { key: "2", attempt: "Attempt 2", solutions: "15", share: "15.0 %", byThen: "95.0 %", width: 18.75 },
      { key: "3", attempt: "Attempt 3", solutions: "0", share: "0 %", byThen: "95.0 %", width: 0 },
      { key: "4", attempt: "Attempt 4", solutions: "5", share: "5.0 %", byThen: "100 %", width: 6.25 },
    ]);
    expect(view.neverReconstructed).toEqual([{ key: "sol/1", href: "/solutions/sol%2F1", externalId: "gsm8k-17", attempts: "8", kind: "text-mismatch", error: hostile }]);
    expect(view.moreNeverReconstructed).toBe(9);
    expect(solutionHref("a b")).toBe("/solutions/a%20b");

    // A rule (or a run from before attempts): no attempts, nothing listed, the old note.
    const rule = segmentView({ ...segment, summary: { ...segment.summary!, method: "blank-line", invalid: 0, validShare: null, attempts: undefined, neverReconstructed: undefined } })!;
    expect(rule.attempts).toBeNull();
    expect(rule.neverReconstructed).toEqual([]);
    expect(rule.moreNeverReconstructed).toBe(0);
    expect(rule.facts.find((f) => f.label === "Invalid segmentations")!.note).toBeUndefined();
    // Nothing stored yet: shares are "—", not NaN.
    const none = segmentView({ ...segment, summary: { ...segment.summary!, created: 0, attempts: { limit: 8, acceptedAt: [], requests: 8 } } })!;
    expect(none.attempts!.rows).toEqual([{ key: "1", attempt: "Attempt 1", solutions: "0", share: "—", byThen: "—", width: 0 }]);
    expect(none.attempts!.facts[1]).toEqual({ label: "Segmenter requests", value: "8" });
  });

  it("import and export: counts of a file import, a batch output and an export's files with their facts", () => {
    expect(importFacts({ runId: "i", status: "completed", kind: "import", summary: { format: "processbench", records: 1000, written: 990, skipped: 10, replaced: 0, chunks: 4950, humanLabels: 0, chunkLabels: 4950 } }).slice(0, 3)).toEqual([
      { label: "Format", value: "processbench" },
      { label: "Solutions read", value: "1,000" },
      { label: "Solutions written", value: "990 (99.0 %)" },
    ]);
    expect(importFacts({ runId: "i", status: "completed", kind: "import", summary: { format: "openai-batch-output", targetRunId: "r1", requests: 5, samples: 20, skipped: 0 } })[1]).toEqual({ label: "Requests stored", value: "5", note: "for run r1" });
    const exported = exportView({ runId: "e", status: "completed", kind: "export", summary: { kind: "labels", files: [{ id: "f1", fileName: "labels.jsonl", sizeBytes: 2048 }], facts: [{ name: "chunks", value: 1200 }, { name: "sourceKind", value: "annotate" }] } })!;
    expect(exported.files).toEqual([{ id: "f1", name: "labels.jsonl", href: "/api/files/f1", size: 2048 }]);
    expect(exported.facts).toEqual([
      { label: "chunks", value: "1,200" },
      { label: "sourceKind", value: "annotate" },
    ]);
  });
});
