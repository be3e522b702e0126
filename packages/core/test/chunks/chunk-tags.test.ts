import { describe, expect, it } from "vitest";
import { parseChunkTags, SegmentationError, serializeChunkTags } from "../../src/chunks";

function segmentationErrorOf(run: () => unknown): SegmentationError {
  try {
    run();
  } catch (error) {
    if (error instanceof SegmentationError) return error;
    throw error;
  }
  throw new Error("expected a SegmentationError, but nothing was thrown");
}

describe("parseChunkTags", () => {
  it("returns each chunk's text exactly as written between its tags, with its place in the tagged text", () => {
    const tagged = "<chunk>First.</chunk>\n<chunk>\nSecond\n  line.\n</chunk>";
    const chunks = parseChunkTags(tagged);
    expect(chunks.map((chunk) => chunk.text)).toEqual(["First.", "\nSecond\n  line.\n"]);
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1]);
    for (const chunk of chunks) expect(tagged.slice(chunk.contentStart, chunk.contentEnd)).toBe(chunk.text);
  });

  it("tolerates whitespace before, between and after the tags, and adjacent tags", () => {
    const chunks = parseChunkTags("  \n<chunk>a</chunk><chunk>b</chunk> \t\r\n <chunk>c</chunk>\n\n");
    expect(chunks.map((chunk) => chunk.text)).toEqual(["a", "b", "c"]);
  });

  it("keeps chunk text that merely looks like markup", () => {
    expect(parseChunkTags("<chunk>if x < y and <b>z</b> then <chunk/> <Chunk></chunk>").map((c) => c.text)).toEqual([
      "if x < y and <b>z</b> then <chunk/> <Chunk>",
    ]);
  });

  it("rejects text before the first chunk, naming its line and column", () => {
    const error = segmentationErrorOf(() => parseChunkTags("Here is the segmentation:\n<chunk>a</chunk>"));
    expect(error.kind).toBe("text-outside-chunk");
    expect(error.details.chunked).toEqual({ offset: 0, line: 1, column: 1 });
    expect(error.message).toBe(
      'tagged text line 1, column 1: text outside the chunk tags before the first chunk: "Here is the segmentation:\\n<chu"…; only whitespace may stand between chunks',
    );
  });

  it("rejects text between chunks and after the last chunk", () => {
    const between = segmentationErrorOf(() => parseChunkTags("<chunk>a</chunk>\n  and <chunk>b</chunk>"));
    expect(between.kind).toBe("text-outside-chunk");
    expect(between.details.chunked).toMatchObject({ line: 2, column: 3 });
    expect(between.message).toContain("between chunk 0 and chunk 1");

    const after = segmentationErrorOf(() => parseChunkTags("<chunk>a</chunk>\n\\boxed{4}\n"));
    expect(after.message).toContain('after the last chunk: "\\\\boxed{4}\\n"');
    expect(after.details.chunked).toMatchObject({ line: 2, column: 1 });
  });

  it("rejects a chunk opened inside another", () => {
    const error = segmentationErrorOf(() => parseChunkTags("<chunk>a\n<chunk>b</chunk></chunk>"));
    expect(error.kind).toBe("nested-chunk");
    expect(error.details.chunkIndex).toBe(0);
    expect(error.details.chunked).toEqual({ offset: 9, line: 2, column: 1 });
    expect(error.message).toContain("(opened at line 1, column 1); chunks cannot nest");
  });

  it("rejects a chunk that is never closed", () => {
    const error = segmentationErrorOf(() => parseChunkTags("<chunk>a</chunk>\n<chunk>b"));
    expect(error.kind).toBe("unclosed-chunk");
    expect(error.details.chunkIndex).toBe(1);
    expect(error.message).toBe('chunk 1, tagged text line 2, column 1: <chunk> is never closed with </chunk>');
  });

  it("rejects a close tag without an open chunk", () => {
    const error = segmentationErrorOf(() => parseChunkTags("<chunk>a</chunk></chunk>"));
    expect(error.kind).toBe("unmatched-close-tag");
    expect(error.details.chunked).toMatchObject({ offset: 16, line: 1, column: 17 });
  });

  it("rejects output without any chunk", () => {
    expect(segmentationErrorOf(() => parseChunkTags("")).kind).toBe("no-chunks");
    expect(segmentationErrorOf(() => parseChunkTags(" \n ")).kind).toBe("no-chunks");
    expect(segmentationErrorOf(() => parseChunkTags("just text")).kind).toBe("text-outside-chunk");
  });
});

describe("serializeChunkTags", () => {
  it("wraps each chunk unaltered, one per line by default", () => {
    expect(serializeChunkTags(["a", " b\n", { text: "c" }])).toBe("<chunk>a</chunk>\n<chunk> b\n</chunk>\n<chunk>c</chunk>");
    expect(serializeChunkTags(["a", "b"], "\n\n")).toBe("<chunk>a</chunk>\n\n<chunk>b</chunk>");
    expect(serializeChunkTags([])).toBe("");
  });

  it("reads back exactly what it wrote", () => {
    const texts = ["\nx = 1\n", "  then <b> y", "z\t"];
    expect(parseChunkTags(serializeChunkTags(texts)).map((chunk) => chunk.text)).toEqual(texts);
  });

  it("refuses chunk text that holds a chunk tag, and a separator that is not whitespace", () => {
    const error = segmentationErrorOf(() => serializeChunkTags(["fine", "line one\nsee </chunk> here"]));
    expect(error.kind).toBe("tag-inside-chunk");
    expect(error.details.chunkIndex).toBe(1);
    expect(error.message).toContain("chunk 1, chunk text line 2, column 5");
    expect(() => serializeChunkTags(["a"], " | ")).toThrow(RangeError);
  });
});
