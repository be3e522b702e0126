import { DEFAULT_LABEL_CONFIDENCE_OPTIONS, labelConfidences, labelsFromStoredValues, storedPrefixEvidence, storedSolutionValues } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { formatConfidence, inspectorChunkRows, inspectorSelection, labelChipView, qCurveValues, UNSURE_BELOW, type InspectedChunk, type InspectedJudgement } from "../src/app/(app)/solutions/[id]/inspector/chunk-rows";
import { labelsFromValues, type StoredLabel } from "../src/app/(app)/solutions/[id]/inspector/labels";

const chunk = (index: number, text: string): InspectedChunk => ({ id: `c${index}`, index, text, startOffset: index * 10, endOffset: index * 10 + 9 });
const CHUNKS = [chunk(0, "Let x = 2."), chunk(1, "Then 2x = 5."), chunk(2, "So x + 1 = 3."), chunk(3, "The answer is \\boxed{3}.")];
/** Q after each prefix: 8 rollouts each, Q₀ first. */
const value = (prefixLength: number, correctCount: number) => ({ prefixLength, qValue: correctCount / 8, rolloutCount: 8, correctCount });
const VALUES = [value(0, 8), value(1, 6), value(2, 4), value(3, 2), value(4, 0)];
const PARAMS = { gamma: 0.7, alpha: 0.8, n: 4, evidence: "own-prefix" as const };

const judge = (runId: string, judgeModel: string | null, samples: Array<[chunkId: string, sampleIndex: number, verdict: string]>): InspectedJudgement => ({
  runId,
  judgeModel,
  samples: samples.map(([chunkId, sampleIndex, verdict]) => ({ chunkId, sampleIndex, verdict, rationale: `${runId} on ${chunkId} #${sampleIndex}: \\boxed{${verdict}}` })),
});

describe("inspector chunk rows", () => {
  it("gives each chunk, in order, its text, offsets and the Q after it (not Q₀), with the rollouts to open", () => {
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels: null, judgements: [] });
    expect(rows.map((r) => [r.index, r.text, r.startOffset, r.endOffset])).toEqual([
      [0, "Let x = 2.", 0, 9],
      [1, "Then 2x = 5.", 10, 19],
      [2, "So x + 1 = 3.", 20, 29],
      [3, "The answer is \\boxed{3}.", 30, 39],
    ]);
    expect(rows.map((r) => r.q)).toEqual([
      { value: 0.75, rollouts: 8, correct: 6 },
      { value: 0.5, rollouts: 8, correct: 4 },
      { value: 0.25, rollouts: 8, correct: 2 },
      { value: 0, rollouts: 8, correct: 0 },
    ]);
    expect(rows.map((r) => r.rolloutsPrefixLength)).toEqual([1, 2, 3, 4]);
  });

  it("leaves Q empty where the run stored none, and without an annotate run has no Q, labels or rollouts", () => {
    const partial = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: [value(0, 8), value(2, 4)] }, labels: null, judgements: [] });
    expect(partial.map((r) => r.q?.value ?? null)).toEqual([null, 0.5, null, null]);

    const bare = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: undefined, labels: null, judgements: [] });
    expect(bare.every((r) => r.q === null && r.labels === null && r.rolloutsPrefixLength === null)).toBe(true);
  });

  it("marks the source's first error and dims what follows it; −1 (no error) and unknown mark nothing", () => {
    const at1 = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: 1, annotateRun: undefined, labels: null, judgements: [] });
    expect(at1.map((r) => r.sourceFirstError)).toEqual([false, true, false, false]);
    expect(at1.map((r) => r.afterSourceError)).toEqual([false, false, true, true]);

    for (const firstError of [-1, null]) {
      const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: firstError, annotateRun: undefined, labels: null, judgements: [] });
      expect(rows.some((r) => r.sourceFirstError || r.afterSourceError)).toBe(false);
    }
  });

  it("carries the labels recomputed from the stored values under the current parameters", () => {
    const labels = labelsFromValues(VALUES, CHUNKS.length, PARAMS);
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels, judgements: [] });
    // Abs-Q: some rollout from the prefix reached the answer. Rel-Ratio (γ = 0.7): Q_i / Q_{i−1} above γ.
    expect(rows.map((r) => r.labels?.absQ)).toEqual(["Positive", "Positive", "Positive", "Negative"]);
    expect(rows.map((r) => r.labels?.relRatio)).toEqual(["Positive", "Negative", "Negative", "Negative"]);
    expect(rows.every((r) => r.labels?.relEffective === "Positive" || r.labels?.relEffective === "Negative")).toBe(true);

    // A lenient γ lets the falling chunks through: the rows follow the slider.
    const lenient = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels: labelsFromValues(VALUES, CHUNKS.length, { ...PARAMS, gamma: 0.1 }), judgements: [] });
    expect(lenient.map((r) => r.labels?.relRatio)).toEqual(["Positive", "Positive", "Positive", "Negative"]);
  });

  it("carries each label's confidence into the rows: computed from the rollout counts with core's labelConfidences, following the sliders", () => {
    const labels = labelsFromValues(VALUES, CHUNKS.length, PARAMS);
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels, judgements: [] });
    const relRatio = { rule: "rel-ratio", gamma: 0.7 } as const;
    const expected = labelConfidences(relRatio, labelsFromStoredValues(relRatio, storedSolutionValues(VALUES, 4))!, storedPrefixEvidence(VALUES, 4));
    expect(rows.map((r) => r.confidences?.relRatio)).toEqual(expected);
    for (const row of rows) {
      for (const c of Object.values(row.confidences!)) expect(c === null || (c >= 0 && c <= 1)).toBe(true);
    }
    // 0 of 8 rollouts leaves some doubt that none could succeed; the finished solution stored without rollouts is its own known outcome: sure.
    expect(rows[3]!.confidences!.absQ).toBeLessThan(UNSURE_BELOW);
    const finished = [...VALUES.slice(0, 4), { prefixLength: 4, qValue: 0, rolloutCount: 0, correctCount: 0 }];
    expect(labelsFromValues(finished, CHUNKS.length, PARAMS).confidence.absQ[3]).toBe(1);
    // 6 of 8 after 8 of 8 against γ = 0.7 is a close call; far from γ (0.1) it is surer.
    const lenient = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels: labelsFromValues(VALUES, CHUNKS.length, { ...PARAMS, gamma: 0.1 }), judgements: [] });
    expect(lenient[0]!.confidences!.relRatio!).toBeGreaterThan(rows[0]!.confidences!.relRatio!);
    // Without an annotate run there is no confidence either.
    expect(inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: undefined, labels: null, judgements: [] }).every((r) => r.confidences === null)).toBe(true);
  });

  it("shows the run's stored confidence where it stored that label under the same parameters, null as no confidence", () => {
    const stored = (chunkId: string, rule: string, paramsKey: string, label: string, confidence: number | null): StoredLabel => ({ chunkId, rule, paramsKey, label, confidence });
    const storedLabels = [
      stored("c0", "rel_ratio", '{"gamma":0.7}', "Positive", 0.62),
      // A prefix the run could not rate: stored without a confidence.
      stored("c1", "rel_ratio", '{"gamma":0.7}', "Negative", null),
      // A label the live rule does not give (stored by an older run, say): under the run's own parameters the stored label is shown.
      stored("c2", "rel_ratio", '{"gamma":0.7}', "Positive", 0.99),
      stored("c0", "abs_q", '{"evidence":"own-prefix"}', "Positive", 0.97),
    ];
    const sources = { chunkIds: CHUNKS.map((c) => c.id), stored: storedLabels, options: DEFAULT_LABEL_CONFIDENCE_OPTIONS };
    const live = labelsFromValues(VALUES, CHUNKS.length, PARAMS);
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: VALUES }, labels: labelsFromValues(VALUES, CHUNKS.length, PARAMS, sources), judgements: [] });
    expect(rows.map((r) => r.confidences!.relRatio)).toEqual([0.62, null, 0.99, live.confidence.relRatio![3]]);
    expect(rows.map((r) => r.labels!.relRatio)).toEqual(["Positive", "Negative", "Positive", live.relRatio![3]]);
    expect(live.relRatio![2]).toBe("Negative");
    expect(rows.map((r) => r.confidences!.absQ)).toEqual([0.97, ...live.confidence.absQ.slice(1)]);
    // Other parameters than the run stored: every confidence is computed live.
    const moved = labelsFromValues(VALUES, CHUNKS.length, { ...PARAMS, gamma: 0.5 }, sources);
    expect(moved.confidence.relRatio).toEqual(labelsFromValues(VALUES, CHUNKS.length, { ...PARAMS, gamma: 0.5 }).confidence.relRatio);
    expect(moved.confidence.relRatio).not.toContain(0.62);

    // The chips: a sure label plain, an unsure one marked with "?", a label without a confidence says so.
    expect(labelChipView("rel-ratio", "Positive", 0.62)).toEqual({ text: "rel-ratio +?", description: "rel-ratio Positive · confidence 0.62", unsure: true });
    expect(labelChipView("abs-q", "Negative", 0.97)).toEqual({ text: "abs-q −", description: "abs-q Negative · confidence 0.97", unsure: false });
    expect(labelChipView("rel-ratio", "Negative", null)).toEqual({ text: "rel-ratio −", description: "rel-ratio Negative · no confidence", unsure: false });
    expect(labelChipView("rel-ratio", "Positive", UNSURE_BELOW).unsure).toBe(false);
  });

  it("writes a confidence with two decimals, more where two would round it to certainty", () => {
    expect([0.62, 0.5, 1, 0, 0.9996, 0.001, 0.99999999].map(formatConfidence)).toEqual(["0.62", "0.50", "1.00", "0.00", "0.9996", "0.001", "> 0.999999"]);
  });

  it("has no relative labels when a Q-value is missing, and still the Abs-Q ones", () => {
    const gappy = [value(0, 8), value(1, 6), value(3, 2), value(4, 0)];
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotateRun: { values: gappy }, labels: labelsFromValues(gappy, CHUNKS.length, PARAMS), judgements: [] });
    expect(rows.map((r) => r.confidences!.relRatio)).toEqual([null, null, null, null]);
    expect(rows.map((r) => r.labels)).toEqual([
      { absQ: "Positive", relRatio: null, relEffective: null },
      { absQ: "Positive", relRatio: null, relEffective: null },
      { absQ: "Positive", relRatio: null, relEffective: null },
      { absQ: "Negative", relRatio: null, relEffective: null },
    ]);
  });

  it("lists every judge on every chunk, with only that chunk's samples in sample order", () => {
    const judgements = [
      judge("run-a", "qwen-judge", [
        ["c1", 1, "Negative"],
        ["c0", 0, "Positive"],
        ["c1", 0, "Negative"],
      ]),
      judge("run-b", null, [["c1", 0, "maybe"]]),
    ];
    const rows = inspectorChunkRows({ chunks: CHUNKS.slice(0, 3), sourceFirstErrorIndex: null, annotateRun: undefined, labels: null, judgements });
    expect(rows[1]!.judges).toEqual([
      {
        runId: "run-a",
        name: "qwen-judge",
        template: null,
        samples: [
          { sampleIndex: 0, verdict: "Negative", rationale: "run-a on c1 #0: \\boxed{Negative}", truncated: false },
          { sampleIndex: 1, verdict: "Negative", rationale: "run-a on c1 #1: \\boxed{Negative}", truncated: false },
        ],
      },
      // A run that names no judge model goes by its id; a verdict that is not a label reads as unparseable.
      { runId: "run-b", name: "run-b", template: null, samples: [{ sampleIndex: 0, verdict: "unparseable", rationale: "run-b on c1 #0: \\boxed{maybe}", truncated: false }] },
    ]);
    expect(rows[0]!.judges.map((j) => j.samples.map((s) => s.verdict))).toEqual([["Positive"], []]);
    expect(rows[2]!.judges.map((j) => j.samples.length)).toEqual([0, 0]);
  });

  it("has no rows for a solution that was not segmented", () => {
    expect(inspectorChunkRows({ chunks: [], sourceFirstErrorIndex: 2, annotateRun: { values: VALUES }, labels: null, judgements: [judge("run-a", "j", [])] })).toEqual([]);
  });
});

describe("inspector Q curve and selection", () => {
  it("reads Q₀ and the Q after each chunk, null where none was stored", () => {
    expect(qCurveValues(CHUNKS, VALUES)).toEqual({ q0: 1, q: [0.75, 0.5, 0.25, 0] });
    expect(qCurveValues(CHUNKS, [value(2, 4)])).toEqual({ q0: null, q: [null, 0.5, null, null] });
  });

  it("shows the chosen segmentation and annotate run, else the first of each, and only that segmentation's runs", () => {
    const data = {
      segmentations: [
        { id: "s-steps", chunks: CHUNKS },
        { id: "s-lines", chunks: CHUNKS.slice(0, 2) },
      ],
      annotateRuns: [
        { runId: "r1", segmentationId: "s-steps", values: VALUES },
        { runId: "r2", segmentationId: "s-lines", values: [] },
        { runId: "r3", segmentationId: "s-lines", values: [] },
      ],
    };
    const first = inspectorSelection(data, { segmentationId: null, annotateRunId: null });
    expect([first.segmentation?.id, first.annotateRuns.map((a) => a.runId), first.annotateRun?.runId]).toEqual(["s-steps", ["r1"], "r1"]);

    const chosen = inspectorSelection(data, { segmentationId: "s-lines", annotateRunId: "r3" });
    expect([chosen.segmentation?.id, chosen.annotateRuns.map((a) => a.runId), chosen.annotateRun?.runId]).toEqual(["s-lines", ["r2", "r3"], "r3"]);

    // A run of another segmentation, or an unknown id, falls back to the first run of the one shown.
    expect(inspectorSelection(data, { segmentationId: "s-lines", annotateRunId: "r1" }).annotateRun?.runId).toBe("r2");
    expect(inspectorSelection(data, { segmentationId: "gone", annotateRunId: null }).segmentation?.id).toBe("s-steps");
    expect(inspectorSelection(undefined, { segmentationId: null, annotateRunId: null })).toEqual({ segmentation: undefined, annotateRuns: [], annotateRun: undefined });
  });
});
