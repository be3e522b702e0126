import { describe, expect, it } from "vitest";
import {
  isSegmentationMethodId,
  RULE_SEGMENTERS,
  SEGMENTATION_METHOD_IDS,
  SEGMENTATION_METHODS,
  segmentByBlankLines,
  segmentByStepMarkers,
  type LocatedChunk,
} from "../../src/chunks";

function texts(chunks: readonly LocatedChunk[]): string[] {
  return chunks.map((chunk) => chunk.text);
}

function expectExactOffsets(original: string, chunks: readonly LocatedChunk[]): void {
  chunks.forEach((chunk, index) => {
    expect(chunk.index).toBe(index);
    expect(original.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
  });
}

describe("segmentByBlankLines", () => {
  it("splits on blank lines and keeps single line breaks inside a chunk", () => {
    const text = "First line\nstill first.\n\nSecond.\n\n\n\nThird.";
    const chunks = segmentByBlankLines(text);
    expect(texts(chunks)).toEqual(["First line\nstill first.", "Second.", "Third."]);
    expectExactOffsets(text, chunks);
  });

  it("counts whitespace-only lines and CRLF as blank lines, and trims every chunk", () => {
    const text = "  a  \n \t \n b\r\n\r\nc\n";
    const chunks = segmentByBlankLines(text);
    expect(texts(chunks)).toEqual(["a", "b", "c"]);
    expectExactOffsets(text, chunks);
  });

  it("gives no chunks for blank text and one chunk for text without blank lines", () => {
    expect(segmentByBlankLines("")).toEqual([]);
    expect(segmentByBlankLines(" \n\n \n")).toEqual([]);
    expect(segmentByBlankLines("x\ny")).toEqual([{ index: 0, text: "x\ny", startOffset: 0, endOffset: 3 }]);
  });
});

describe("segmentByStepMarkers", () => {
  it("cuts before each marker, keeping the marker in its chunk and the preamble as a chunk of its own", () => {
    const text = [
      "Let us solve it.",
      "",
      "Step 1: Compute a = 2.",
      "Then a^2 = 4.",
      "## Step 2: Add one",
      "4 + 1 = 5.",
      "**Step 3:** Answer: \\boxed{5}",
    ].join("\n");
    const chunks = segmentByStepMarkers(text);
    expect(texts(chunks)).toEqual([
      "Let us solve it.",
      "Step 1: Compute a = 2.\nThen a^2 = 4.",
      "## Step 2: Add one\n4 + 1 = 5.",
      "**Step 3:** Answer: \\boxed{5}",
    ]);
    expectExactOffsets(text, chunks);
  });

  it("recognises marker variants and ignores case", () => {
    const text = "**Step 1**: a\n  ### Step 2 : b\n*Step 3:* c\nSTEP 4: d\nstep 10: e\n__Step 11__: f";
    expect(texts(segmentByStepMarkers(text))).toEqual([
      "**Step 1**: a",
      "### Step 2 : b",
      "*Step 3:* c",
      "STEP 4: d",
      "step 10: e",
      "__Step 11__: f",
    ]);
  });

  it("does not cut at a step mentioned mid-line, at markers without a number or colon, or at 'Steps'", () => {
    const text = "Step 1: as in Step 2: below\nStep two: no\nStep 3 without colon\nSteps 4: no";
    expect(texts(segmentByStepMarkers(text))).toEqual([text]);
  });

  it("drops a blank preamble, gives one chunk without markers and none for blank text", () => {
    expect(texts(segmentByStepMarkers("\n\n Step 1: a\nStep 2: b\n"))).toEqual(["Step 1: a", "Step 2: b"]);
    expect(texts(segmentByStepMarkers("no markers\n\nat all"))).toEqual(["no markers\n\nat all"]);
    expect(segmentByStepMarkers("  ")).toEqual([]);
  });

  it("stays fast on long runs of spaces", () => {
    const text = `Step 1${" ".repeat(50_000)}x\n${" ".repeat(50_000)}Step`;
    const started = Date.now();
    segmentByStepMarkers(text);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("segmentation methods", () => {
  it("keep their stable ids", () => {
    expect(SEGMENTATION_METHOD_IDS).toMatchInlineSnapshot(`
      [
        "processbench-paragraphs",
        "blank-line",
        "step-markers",
        "self-segmented",
        "llm-segmenter",
      ]
    `);
    for (const id of SEGMENTATION_METHOD_IDS) expect(SEGMENTATION_METHODS[id].id).toBe(id);
    expect(Object.keys(SEGMENTATION_METHODS).sort()).toEqual([...SEGMENTATION_METHOD_IDS].sort());
  });

  it("expose the rule-based segmenters by id and recognise ids", () => {
    expect(RULE_SEGMENTERS["blank-line"]).toBe(segmentByBlankLines);
    expect(RULE_SEGMENTERS["step-markers"]).toBe(segmentByStepMarkers);
    expect(isSegmentationMethodId("llm-segmenter")).toBe(true);
    expect(isSegmentationMethodId("self")).toBe(false);
  });
});
