import { describe, expect, it } from "vitest";
import {
  chunksFromParagraphs,
  locateTaggedChunks,
  reconstructChunks,
  SegmentationError,
  solutionFromTaggedOutput,
  type LocatedChunk,
} from "../../src/chunks";

function segmentationErrorOf(run: () => unknown): SegmentationError {
  try {
    run();
  } catch (error) {
    if (error instanceof SegmentationError) return error;
    throw error;
  }
  throw new Error("expected a SegmentationError, but nothing was thrown");
}

function expectSlicesOf(original: string, chunks: readonly LocatedChunk[]): void {
  for (const chunk of chunks) expect(original.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
}

const SOLUTION = [
  "We need the sum of the roots of x^2 - 5x + 6 = 0.",
  "",
  "By Vieta's formulas the sum is 5.",
  "Check: the roots are 2 and 3,",
  "and 2 + 3 = 5.",
  "",
  "The answer is \\boxed{5}.",
].join("\n");

describe("reconstructChunks", () => {
  it("locates chunks in the original and keeps each chunk's inner text, line breaks included", () => {
    const chunks = reconstructChunks(SOLUTION, [
      "We need the sum of the roots of x^2 - 5x + 6 = 0.",
      "By Vieta's formulas the sum is 5.",
      "Check: the roots are 2 and 3,\nand 2 + 3 = 5.",
      "The answer is \\boxed{5}.",
    ]);
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1, 2, 3]);
    expect(chunks[2]).toMatchObject({ text: "Check: the roots are 2 and 3,\nand 2 + 3 = 5." });
    expectSlicesOf(SOLUTION, chunks);
  });

  it("treats a chunk's own outer whitespace as whitespace between chunks: it may differ or be missing", () => {
    const original = "  a b\n\nc\n";
    const chunks = reconstructChunks(original, ["\n\na b  ", "\tc"]);
    expect(chunks).toEqual([
      { index: 0, text: "a b", startOffset: 2, endOffset: 5 },
      { index: 1, text: "c", startOffset: 7, endOffset: 8 },
    ]);
  });

  it("allows a chunk boundary with no whitespace at all, even inside a word", () => {
    expect(reconstructChunks("abcdef", ["abc", "def"]).map((chunk) => [chunk.startOffset, chunk.endOffset])).toEqual([
      [0, 3],
      [3, 6],
    ]);
  });

  it("accepts located chunks as input", () => {
    const { text, chunks } = chunksFromParagraphs(["one", "two"]);
    expect(reconstructChunks(text, chunks)).toEqual(chunks);
  });

  it("names where a changed character diverges: offset and line:column in the original and in the chunk, with excerpts", () => {
    const error = segmentationErrorOf(() =>
      reconstructChunks(SOLUTION, [
        "We need the sum of the roots of x^2 - 5x + 6 = 0.",
        "By Vieta's formulas the sum is 5.",
        "Check: the roots are 2 and 3,\nand 2 + 3 = 6.",
        "The answer is \\boxed{5}.",
      ]),
    );
    expect(error.kind).toBe("diverges");
    expect(error.details.chunkIndex).toBe(2);
    const offset = SOLUTION.indexOf("5.\n\nThe answer");
    expect(error.details.original).toEqual({ offset, line: 5, column: 13 });
    expect(error.details.chunked).toEqual({ offset: 42, line: 2, column: 13 });
    expect(error.details.chunkedText).toBe("chunk text");
    expect(error.message).toBe(
      `chunk 2, chunk text line 2, column 13, original offset ${offset} (line 5, column 13): ` +
        'the chunk differs from the original: the original has "5.\\n\\nThe answer is \\\\boxed{5}." where the chunk has "6."',
    );
  });

  it("rejects changed whitespace inside a chunk", () => {
    const error = segmentationErrorOf(() => reconstructChunks("x = 1\ny = 2", ["x = 1 y = 2"]));
    expect(error.kind).toBe("diverges");
    expect(error.details.original).toEqual({ offset: 5, line: 1, column: 6 });
    expect(error.message).toContain('the original has "\\ny = 2" where the chunk has " y = 2"');
  });

  it("rejects a dropped chunk at the next chunk, and a dropped ending as uncovered text", () => {
    const dropped = segmentationErrorOf(() => reconstructChunks("a\n\nb\n\nc", ["a", "c"]));
    expect(dropped.kind).toBe("diverges");
    expect(dropped.details).toMatchObject({ chunkIndex: 1, original: { offset: 3, line: 3, column: 1 } });

    const ending = segmentationErrorOf(() => reconstructChunks("a\n\nb\n\nc", ["a", "b"]));
    expect(ending.kind).toBe("uncovered-text");
    expect(ending.message).toBe('original offset 6 (line 5, column 1): the original goes on after the last chunk with "c", which no chunk covers');
  });

  it("rejects chunks that run past the end of the original, reordered chunks and added text", () => {
    const pastEnd = segmentationErrorOf(() => reconstructChunks("a b", ["a b c"]));
    expect(pastEnd.kind).toBe("diverges");
    expect(pastEnd.message).toContain("the original has (end of text) where the chunk has");
    expect(segmentationErrorOf(() => reconstructChunks("a\nb", ["b", "a"])).kind).toBe("diverges");
    expect(segmentationErrorOf(() => reconstructChunks("a\nb", ["a", "Note: b"])).kind).toBe("diverges");
  });

  it("rejects a blank chunk and an empty list for a non-blank original", () => {
    const blank = segmentationErrorOf(() => reconstructChunks("a\nb", ["a", " \n ", "b"]));
    expect(blank.kind).toBe("empty-chunk");
    expect(blank.details.chunkIndex).toBe(1);
    expect(segmentationErrorOf(() => reconstructChunks("a", [])).kind).toBe("uncovered-text");
    expect(reconstructChunks(" \n", [])).toEqual([]);
  });

  it("counts offsets in UTF-16 code units, like JavaScript strings", () => {
    const original = "𝑥 = 1 ✓\n\nso 𝑦 = 2";
    const chunks = reconstructChunks(original, ["𝑥 = 1 ✓", "so 𝑦 = 2"]);
    expectSlicesOf(original, chunks);
    expect(chunks[1]?.startOffset).toBe(original.indexOf("so"));
  });
});

describe("locateTaggedChunks", () => {
  it("accepts a segmenter's tagged copy of the solution", () => {
    const tagged = [
      "<chunk>",
      "We need the sum of the roots of x^2 - 5x + 6 = 0.",
      "</chunk>",
      "<chunk>",
      "By Vieta's formulas the sum is 5.",
      "</chunk>",
      "<chunk>Check: the roots are 2 and 3,\nand 2 + 3 = 5.</chunk>",
      "<chunk>The answer is \\boxed{5}.</chunk>",
    ].join("\n");
    const chunks = locateTaggedChunks(SOLUTION, tagged);
    expect(chunks).toHaveLength(4);
    expectSlicesOf(SOLUTION, chunks);
  });

  it("points into the tagged output as well as the original when the copy diverges", () => {
    const tagged = "<chunk>\nWe need the sum of the roots.\n</chunk>\n<chunk>\nBy Vieta's formula the sum is 5.\n</chunk>";
    const original = "We need the sum of the roots.\nBy Vieta's formulas the sum is 5.";
    const error = segmentationErrorOf(() => locateTaggedChunks(original, tagged));
    expect(error.kind).toBe("diverges");
    expect(error.details.chunkedText).toBe("tagged text");
    expect(error.details.chunked).toMatchObject({ line: 5, column: 19 });
    expect(error.details.original).toMatchObject({ line: 2, column: 19 });
    expect(error.message).toContain("chunk 1, tagged text line 5, column 19, original offset 48 (line 2, column 19)");
    expect(error.message).toContain('the original has "s the sum is 5." where the chunk has " the sum is 5.\\n"');
  });

  it("reports malformed tags before comparing anything", () => {
    expect(segmentationErrorOf(() => locateTaggedChunks("a", "Sure!\n<chunk>a</chunk>")).kind).toBe("text-outside-chunk");
  });
});

describe("solutionFromTaggedOutput", () => {
  it("builds the solution from the chunk cores joined by a blank line", () => {
    const { text, chunks } = solutionFromTaggedOutput("<chunk>\nLet x = 2.\n</chunk>\n<chunk>\nThen x^2 = 4.\n\\boxed{4}\n</chunk>\n");
    expect(text).toBe("Let x = 2.\n\nThen x^2 = 4.\n\\boxed{4}");
    expect(chunks.map((chunk) => chunk.text)).toEqual(["Let x = 2.", "Then x^2 = 4.\n\\boxed{4}"]);
    expectSlicesOf(text, chunks);
  });

  it("rejects blank chunks and malformed output", () => {
    const blank = segmentationErrorOf(() => solutionFromTaggedOutput("<chunk>a</chunk>\n<chunk>\n</chunk>"));
    expect(blank.kind).toBe("empty-chunk");
    expect(blank.message).toContain("chunk 1, tagged text line 2, column 8");
    expect(segmentationErrorOf(() => solutionFromTaggedOutput("<chunk>a</chunk>\nThe answer is 4.")).kind).toBe("text-outside-chunk");
  });
});
