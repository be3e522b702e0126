import { describe, expect, it } from "vitest";
import { inspectorChunkRows, inspectorSelection, qCurveValues, type InspectedChunk, type InspectedJudgement } from "../src/app/(app)/trajectories/[id]/inspector/chunk-rows";
import { labelsFromValues } from "../src/app/(app)/trajectories/[id]/inspector/labels";

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
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: { values: VALUES }, labels: null, judgements: [] });
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
    const partial = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: { values: [value(0, 8), value(2, 4)] }, labels: null, judgements: [] });
    expect(partial.map((r) => r.q?.value ?? null)).toEqual([null, 0.5, null, null]);

    const bare = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: undefined, labels: null, judgements: [] });
    expect(bare.every((r) => r.q === null && r.labels === null && r.rolloutsPrefixLength === null)).toBe(true);
  });

  it("marks the source's first error and dims what follows it; −1 (no error) and unknown mark nothing", () => {
    const at1 = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: 1, annotation: undefined, labels: null, judgements: [] });
    expect(at1.map((r) => r.sourceFirstError)).toEqual([false, true, false, false]);
    expect(at1.map((r) => r.afterSourceError)).toEqual([false, false, true, true]);

    for (const firstError of [-1, null]) {
      const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: firstError, annotation: undefined, labels: null, judgements: [] });
      expect(rows.some((r) => r.sourceFirstError || r.afterSourceError)).toBe(false);
    }
  });

  it("carries the labels recomputed from the stored values under the current parameters", () => {
    const labels = labelsFromValues(VALUES, CHUNKS.length, PARAMS);
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: { values: VALUES }, labels, judgements: [] });
    // Abs-Q: some rollout from the prefix reached the answer. Rel-Ratio (γ = 0.7): Q_i / Q_{i−1} above γ.
    expect(rows.map((r) => r.labels?.absQ)).toEqual(["Positive", "Positive", "Positive", "Negative"]);
    expect(rows.map((r) => r.labels?.relRatio)).toEqual(["Positive", "Negative", "Negative", "Negative"]);
    expect(rows.every((r) => r.labels?.relEffective === "Positive" || r.labels?.relEffective === "Negative")).toBe(true);

    // A lenient γ lets the falling chunks through: the rows follow the slider.
    const lenient = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: { values: VALUES }, labels: labelsFromValues(VALUES, CHUNKS.length, { ...PARAMS, gamma: 0.1 }), judgements: [] });
    expect(lenient.map((r) => r.labels?.relRatio)).toEqual(["Positive", "Positive", "Positive", "Negative"]);
  });

  it("has no relative labels when a Q-value is missing, and still the Abs-Q ones", () => {
    const gappy = [value(0, 8), value(1, 6), value(3, 2), value(4, 0)];
    const rows = inspectorChunkRows({ chunks: CHUNKS, sourceFirstErrorIndex: null, annotation: { values: gappy }, labels: labelsFromValues(gappy, CHUNKS.length, PARAMS), judgements: [] });
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
    const rows = inspectorChunkRows({ chunks: CHUNKS.slice(0, 3), sourceFirstErrorIndex: null, annotation: undefined, labels: null, judgements });
    expect(rows[1]!.judges).toEqual([
      {
        runId: "run-a",
        name: "qwen-judge",
        samples: [
          { sampleIndex: 0, verdict: "Negative", rationale: "run-a on c1 #0: \\boxed{Negative}" },
          { sampleIndex: 1, verdict: "Negative", rationale: "run-a on c1 #1: \\boxed{Negative}" },
        ],
      },
      // A run that names no judge model goes by its id; a verdict that is not a label reads as unparseable.
      { runId: "run-b", name: "run-b", samples: [{ sampleIndex: 0, verdict: "unparseable", rationale: "run-b on c1 #0: \\boxed{maybe}" }] },
    ]);
    expect(rows[0]!.judges.map((j) => j.samples.map((s) => s.verdict))).toEqual([["Positive"], []]);
    expect(rows[2]!.judges.map((j) => j.samples.length)).toEqual([0, 0]);
  });

  it("has no rows for a solution that was not segmented", () => {
    expect(inspectorChunkRows({ chunks: [], sourceFirstErrorIndex: 2, annotation: { values: VALUES }, labels: null, judgements: [judge("run-a", "j", [])] })).toEqual([]);
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
      annotations: [
        { runId: "r1", segmentationId: "s-steps", values: VALUES },
        { runId: "r2", segmentationId: "s-lines", values: [] },
        { runId: "r3", segmentationId: "s-lines", values: [] },
      ],
    };
    const first = inspectorSelection(data, { segmentationId: null, annotationRunId: null });
    expect([first.segmentation?.id, first.annotations.map((a) => a.runId), first.annotation?.runId]).toEqual(["s-steps", ["r1"], "r1"]);

    const chosen = inspectorSelection(data, { segmentationId: "s-lines", annotationRunId: "r3" });
    expect([chosen.segmentation?.id, chosen.annotations.map((a) => a.runId), chosen.annotation?.runId]).toEqual(["s-lines", ["r2", "r3"], "r3"]);

    // A run of another segmentation, or an unknown id, falls back to the first run of the one shown.
    expect(inspectorSelection(data, { segmentationId: "s-lines", annotationRunId: "r1" }).annotation?.runId).toBe("r2");
    expect(inspectorSelection(data, { segmentationId: "gone", annotationRunId: null }).segmentation?.id).toBe("s-steps");
    expect(inspectorSelection(undefined, { segmentationId: null, annotationRunId: null })).toEqual({ segmentation: undefined, annotations: [], annotation: undefined });
  });
});
