import { approximateTokenCount, summarize, type SegmentationStats, type TokenCounter } from "@stepwiser/core";

/**
 * `segmentationStats` fed one solution at a time, so a summary over a run of
 * 100k solutions keeps numbers in memory, not chunk texts. Measures exactly as
 * `segmentationStats` does (trimmed text, code points, one-line share).
 */
export class SegmentationStatsAccumulator {
  private readonly chunkCounts: number[] = [];
  private readonly characters: number[] = [];
  private readonly tokens: number[] = [];
  private oneLine = 0;

  constructor(private readonly countTokens: TokenCounter = approximateTokenCount) {}

  add(chunkTexts: readonly string[]): void {
    this.chunkCounts.push(chunkTexts.length);
    for (const raw of chunkTexts) {
      const text = raw.trim();
      this.characters.push([...text].length);
      this.tokens.push(this.countTokens(text));
      if (!text.includes("\n")) this.oneLine++;
    }
  }

  result(): SegmentationStats {
    return {
      solutions: this.chunkCounts.length,
      chunks: this.characters.length,
      chunksPerSolution: summarize(this.chunkCounts),
      charactersPerChunk: summarize(this.characters),
      tokensPerChunk: summarize(this.tokens),
      oneLineChunkShare: this.characters.length === 0 ? null : this.oneLine / this.characters.length,
    };
  }
}
