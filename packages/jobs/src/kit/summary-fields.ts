import { z } from "zod";

/**
 * Fields the summaries of several kinds share. A summary is JSON written by
 * whichever release ran the run, so each kind's summary schema reads it, not
 * trusts it; fields added later are optional.
 */
export const count = z.number().int().nonnegative();
export const share = z.number().min(0).max(1);
export const distribution = z.object({ mean: z.number().nullable(), median: z.number().nullable(), min: z.number().nullable(), max: z.number().nullable() });

/** What `segmentationStats` (core) measures of a set of segmented solutions. */
export const segmentationStatsSchema = z.object({
  solutions: count,
  chunks: count,
  chunksPerSolution: distribution,
  charactersPerChunk: distribution,
  tokensPerChunk: distribution,
  oneLineChunkShare: share.nullable(),
});

/** A judge run's outputs: how many, how many cut at the generation limit, how many ended unreadable (summaries written before they were counted lack them). */
export const judgeOutputsSchema = z.object({ outputs: count, truncated: count, unparseable: count });
