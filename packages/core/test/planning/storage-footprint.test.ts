import { describe, expect, it } from "vitest";
import { PAPER_ANNOTATION_VOLUME, projectAnnotationStorage, ROLLOUT_STORAGE_MODEL, rolloutTextBytes, storedRolloutText } from "../../src";

const model = ROLLOUT_STORAGE_MODEL;

describe("annotate run storage projection", () => {
  it("counts a row per rollout, a value per prefix 0..k, a label per chunk and rule, and the per-solution rows", () => {
    const input = { solutions: 10, chunks: 60, rollouts: 960, meanRolloutTokens: 1_000, labelRules: 3 } as const;
    const answerOnly = projectAnnotationStorage({ ...input, rolloutText: "answer-only" });
    expect(answerOnly.rolloutBytes).toBe(960 * model.rolloutRowBytes);
    expect(answerOnly.otherBytes).toBe(70 * model.chunkValueBytes + 180 * model.chunkLabelBytes + 10 * model.perSolutionBytes);
    expect(answerOnly.totalBytes).toBe(answerOnly.rolloutBytes + answerOnly.otherBytes);
    const full = projectAnnotationStorage({ ...input, rolloutText: "full" });
    expect(full.otherBytes).toBe(answerOnly.otherBytes);
    expect(full.rolloutBytes).toBe(960 * (model.rolloutRowBytes + rolloutTextBytes(1_000)));
    expect(full.rolloutBytes).toBeGreaterThan(answerOnly.rolloutBytes * 5);
  });

  it("stores short texts as they are and compresses long ones", () => {
    const short = 100;
    expect(rolloutTextBytes(short)).toBeCloseTo(short * model.rolloutTextCharsPerToken + 4, 6);
    const long = 1_000;
    expect(long * model.rolloutTextCharsPerToken).toBeGreaterThan(model.compressionThresholdBytes);
    expect(rolloutTextBytes(long)).toBe(long * model.rolloutTextBytesPerToken);
    // compression keeps less than the raw characters
    expect(rolloutTextBytes(long)).toBeLessThan(long * model.rolloutTextCharsPerToken);
  });

  it("at the paper's volume, the texts are most of a full run and answer-only is a small fraction of it", () => {
    const full = projectAnnotationStorage({ ...PAPER_ANNOTATION_VOLUME, rolloutText: "full" });
    const answerOnly = projectAnnotationStorage({ ...PAPER_ANNOTATION_VOLUME, rolloutText: "answer-only" });
    expect(full.rolloutBytes / full.totalBytes).toBeGreaterThan(0.9);
    expect(answerOnly.totalBytes / full.totalBytes).toBeLessThan(0.2);
  });

  it("refuses counts that are not finite and non-negative, naming the field", () => {
    expect(() => projectAnnotationStorage({ solutions: 1, chunks: -1, rollouts: 0, meanRolloutTokens: 0, labelRules: 1, rolloutText: "full" })).toThrow(/chunks/);
    expect(() => projectAnnotationStorage({ solutions: 1, chunks: 1, rollouts: Number.NaN, meanRolloutTokens: 0, labelRules: 1, rolloutText: "full" })).toThrow(/rollouts/);
  });

  it("the policy decides what text a rollout row stores", () => {
    expect(storedRolloutText("full", "so the answer is 4")).toBe("so the answer is 4");
    expect(storedRolloutText("answer-only", "so the answer is 4")).toBeNull();
  });
});
