/** A chunk of thought located in its solution's text by character offsets. */
export interface LocatedChunk {
  index: number;
  text: string;
  /** text === solutionText.slice(startOffset, endOffset) */
  startOffset: number;
  endOffset: number;
}

export const PARAGRAPH_SEPARATOR = "\n\n";

/**
 * Joins ProcessBench paragraphs into one solution text and keeps one chunk per
 * paragraph, so chunk offsets point into the stored text exactly.
 */
export function chunksFromParagraphs(
  paragraphs: readonly string[],
  separator = PARAGRAPH_SEPARATOR,
): { text: string; chunks: LocatedChunk[] } {
  const chunks: LocatedChunk[] = [];
  let offset = 0;
  paragraphs.forEach((paragraph, index) => {
    if (index > 0) offset += separator.length;
    chunks.push({ index, text: paragraph, startOffset: offset, endOffset: offset + paragraph.length });
    offset += paragraph.length;
  });
  return { text: paragraphs.join(separator), chunks };
}
