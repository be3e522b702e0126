import { describe, expect, it } from "vitest";
import { chunksFromParagraphs } from "../src";

describe("paragraph chunks", () => {
  it("locate every paragraph exactly inside the joined text", () => {
    const paragraphs = ["First step.", "", "Third step\nwith two lines.", "Δ unicode ✓"];
    const { text, chunks } = chunksFromParagraphs(paragraphs);
    expect(text).toBe(paragraphs.join("\n\n"));
    for (const chunk of chunks) expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(paragraphs[chunk.index]);
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });
});
