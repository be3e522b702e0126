import type { BatchHooks } from "../../runs/run-kind";
import { samplingEvidence, type AnnotateConfig } from "./config";
import { loadSolutionForAnnotation } from "./solution";
import { gradedRolloutRows, rolloutRequest } from "./rollouts";
import { contiguousRanges, indices } from "../../kit/sample-ranges";

/**
 * An annotate run answered offline. `fixed` needs M rollouts from every prefix
 * 0..k-1. The cheaper strategies decide online which prefixes and how many of
 * the M seeds they look at; offline there is no second round, so every prefix
 * they may probe (1..k-1) is requested with all M seeds: always for early-stop
 * with own-prefix evidence (it samples every prefix), and none when the
 * solution's own answer is right for first-error and for early-stop with
 * later-prefixes evidence (they then sample nothing). `adaptive` gets every
 * prefix's first batch; its later rounds depend on those answers and are
 * requested online when the run executes. Sample i of seed s equals a request
 * with seed s + i, so the strategy reads the same samples it would have drawn.
 * Answers are stored as Rollout rows graded exactly as online.
 */
export const annotateBatch: BatchHooks<AnnotateConfig> = {
  position: { name: "prefix length", per: "prefix" },
  samplesPerPosition: (config) => config.rollouts,

  async *requests(db, runId, config, segmentationId, skip) {
    let loaded: Awaited<ReturnType<typeof loadSolutionForAnnotation>>;
    try {
      loaded = await loadSolutionForAnnotation(db, segmentationId);
    } catch (error) {
      skip(error instanceof Error ? error.message : String(error));
      return;
    }
    const { solution, finalCorrect } = loaded;
    const k = solution.chunks.length;
    const samplesEveryPrefix = config.strategy === "early-stop" && samplingEvidence(config) === "own-prefix";
    const everyPrefix = config.strategy === "fixed" || config.strategy === "adaptive";
    const prefixes = everyPrefix ? indices(0, k) : finalCorrect && !samplesEveryPrefix ? [] : indices(1, k);
    const samples = config.strategy === "adaptive" ? Math.min(config.adaptiveBatch, config.maxRollouts) : config.rollouts;
    if (prefixes.length === 0) return;
    const stored = await db.rollout.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, sampleIndex: true } });
    const have = new Set(stored.map((r) => `${r.prefixLength}:${r.sampleIndex}`));
    for (const prefixLength of prefixes) {
      const missing = indices(0, samples).filter((i) => !have.has(`${prefixLength}:${i}`));
      for (const range of contiguousRanges(missing)) {
        yield { position: prefixLength, first: range[0]!, count: range.length, request: rolloutRequest(config, solution, prefixLength, range[0]!, range.length) };
      }
    }
  },

  async unit(tx, runId, config, segmentationId) {
    const { solution } = await loadSolutionForAnnotation(tx, segmentationId);
    const stored = await tx.rollout.findMany({ where: { runId, segmentationId }, select: { prefixLength: true, sampleIndex: true } });
    return {
      positions: solution.chunks.length,
      hasPosition: () => true,
      stored: new Set(stored.map((r) => `${r.prefixLength}:${r.sampleIndex}`)),
      rows: async (prefixLength, sampleIndices, answers, usage) => ({
        table: "rollout",
        rows: await gradedRolloutRows(runId, solution, prefixLength, config, sampleIndices, answers.map((a) => a.text), usage.completionTokens),
      }),
    };
  },
};
