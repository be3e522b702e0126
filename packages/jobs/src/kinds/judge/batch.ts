import { contiguousRanges, indices } from "../../kit/sample-ranges";
import { judgePromptOf, judgeRequest, judgeSampleRows, type JudgedChunkContext } from "../../judging/judge-chunks";
import type { BatchHooks } from "../../runs/run-kind";
import type { JudgeConfig } from "./kind";

/**
 * A judge run answered offline: K samples of every chunk; with
 * `stopAtFirstNegative` the chunks after the first Negative vote are requested
 * too (offline cannot stop early). Answers are stored as JudgeSample rows with
 * their parsed verdicts, as online.
 */
export const judgeBatch: BatchHooks<JudgeConfig> = {
  position: { name: "chunk", per: "chunk" },
  samplesPerPosition: (config) => config.samples,

  async *requests(db, runId, config, segmentationId) {
    const segmentation = await db.segmentation.findUniqueOrThrow({
      where: { id: segmentationId },
      select: {
        chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true } },
        solution: { select: { externalId: true, problem: { select: { text: true } } } },
      },
    });
    const { chunks, solution } = segmentation;
    const context: JudgedChunkContext = { segmentationId, externalId: solution.externalId, problemText: solution.problem.text, chunks };
    const stored = await db.judgeSample.findMany({ where: { runId, chunkId: { in: chunks.map((c) => c.id) } }, select: { chunkId: true, sampleIndex: true } });
    const have = new Set(stored.map((s) => `${s.chunkId}:${s.sampleIndex}`));
    for (let position = 0; position < chunks.length; position++) {
      const chunk = chunks[position]!;
      const missing = indices(0, config.samples).filter((i) => !have.has(`${chunk.id}:${i}`));
      for (const range of contiguousRanges(missing)) {
        yield { position: chunk.index, first: range[0]!, count: range.length, request: judgeRequest(config, context, position, range[0]!, range.length) };
      }
    }
  },

  async unit(tx, runId, config, segmentationId) {
    const chunks = await tx.chunk.findMany({ where: { segmentationId }, orderBy: { index: "asc" }, select: { id: true, index: true } });
    const stored = await tx.judgeSample.findMany({ where: { runId, chunkId: { in: chunks.map((c) => c.id) } }, select: { chunkId: true, sampleIndex: true } });
    const indexOf = new Map(chunks.map((c) => [c.id, c.index]));
    const chunkIds: string[] = [];
    for (const chunk of chunks) chunkIds[chunk.index] = chunk.id;
    return {
      positions: chunkIds.length,
      hasPosition: (position) => chunkIds[position] !== undefined,
      stored: new Set(stored.map((s) => `${indexOf.get(s.chunkId)}:${s.sampleIndex}`)),
      rows: (position, sampleIndices, answers, usage) =>
        Promise.resolve({ table: "judgeSample", rows: judgeSampleRows(runId, chunkIds[position]!, sampleIndices, answers, usage, judgePromptOf(config)) }),
    };
  },
};
