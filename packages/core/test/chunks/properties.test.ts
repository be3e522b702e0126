import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseChunkTags,
  reconstructChunks,
  SegmentationError,
  segmentByBlankLines,
  segmentByStepMarkers,
  serializeChunkTags,
  type LocatedChunk,
} from "../../src/chunks";

const WHITESPACE = [" ", "\n", "\t", "\r", "\u00a0", "\u2028"];

/** Characters that stress the rules: whitespace of several kinds, tag-like and slot-like text, astral code points. */
const solutionUnit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("a", "b", "x", "=", "2", "\\", "{", "}", "$", "<", ">", "/", "c", "k", "é", "𝑥") },
  { weight: 3, arbitrary: fc.constantFrom(...WHITESPACE) },
  { weight: 1, arbitrary: fc.constantFrom("<chunk", "chunk>", "</chun", "Step 1:", "\n\n") },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 1, unit: "grapheme" }) },
);

const solution = fc
  .array(solutionUnit, { maxLength: 60 })
  .map((units) => units.join(""))
  .filter((text) => !/<\/?chunk>/.test(text));

/** A solution and sorted cut points into it (duplicates allowed: they make blank pieces). */
const solutionWithCuts = solution.chain((text) =>
  fc.record({
    text: fc.constant(text),
    cuts: fc.array(fc.nat({ max: text.length }), { maxLength: 12 }).map((cuts) => [...cuts].sort((a, b) => a - b)),
  }),
);

function piecesAt(text: string, cuts: readonly number[]): string[] {
  const bounds = [0, ...cuts, text.length];
  return bounds.slice(1).map((end, i) => text.slice(bounds[i], end));
}

function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

/** The original rebuilt from the chunks and the original's own text between them. */
function rebuild(original: string, chunks: readonly LocatedChunk[]): { text: string; gaps: string[] } {
  let text = "";
  const gaps: string[] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    const gap = original.slice(cursor, chunk.startOffset);
    gaps.push(gap);
    text += gap + chunk.text;
    cursor = chunk.endOffset;
  }
  const tail = original.slice(cursor);
  gaps.push(tail);
  return { text: text + tail, gaps };
}

describe("chunk tags and reconstruction (property)", () => {
  it("serialise → parse → reconstruct locates every chunk exactly and rebuilds the original", () => {
    fc.assert(
      fc.property(solutionWithCuts, fc.constantFrom("\n", "", "\n\n", " \t"), ({ text, cuts }, separator) => {
        // Blank pieces hold no step; their whitespace lies between the remaining chunks.
        const pieces = piecesAt(text, cuts).filter((piece) => !isBlank(piece));
        fc.pre(pieces.length > 0);
        const parsed = parseChunkTags(serializeChunkTags(pieces, separator)).map((chunk) => chunk.text);
        expect(parsed).toEqual(pieces);

        const located = reconstructChunks(text, parsed);
        expect(located).toHaveLength(pieces.length);
        located.forEach((chunk, index) => {
          expect(chunk.index).toBe(index);
          expect(chunk.text).toBe(pieces[index]?.trim());
          expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
        });
        const rebuilt = rebuild(text, located);
        expect(rebuilt.text).toBe(text);
        for (const gap of rebuilt.gaps) expect(isBlank(gap)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("any single-character change inside a chunk's text makes reconstruction throw", () => {
    const mutation = fc.record({
      kind: fc.constantFrom("replace", "delete", "insert"),
      chunkPick: fc.nat(),
      positionPick: fc.nat(),
      char: fc.oneof(fc.constantFrom(...WHITESPACE, "a", "b", "x", "2", "\\", "𝑥"), fc.string({ minLength: 1, maxLength: 1 })),
    });
    fc.assert(
      fc.property(solutionWithCuts, mutation, ({ text, cuts }, { kind, chunkPick, positionPick, char }) => {
        const chunks = piecesAt(text, cuts)
          .map((piece) => piece.trim())
          .filter((core) => core !== "");
        fc.pre(chunks.length > 0);
        expect(() => reconstructChunks(text, chunks)).not.toThrow();

        const target = chunkPick % chunks.length;
        const core = chunks[target] ?? "";
        let mutated: string;
        if (kind === "insert") {
          // Whitespace added at a chunk's outer edge is whitespace between chunks, which may differ: not a change.
          const position = isBlank(char) ? 1 + (positionPick % Math.max(core.length - 1, 1)) : positionPick % (core.length + 1);
          fc.pre(!isBlank(char) || (position > 0 && position < core.length));
          mutated = core.slice(0, position) + char + core.slice(position);
        } else {
          const position = positionPick % core.length;
          fc.pre(kind === "delete" || core[position] !== char);
          mutated = core.slice(0, position) + (kind === "replace" ? char : "") + core.slice(position + 1);
        }
        const mutatedChunks = chunks.map((chunk, index) => (index === target ? mutated : chunk));
        expect(() => reconstructChunks(text, mutatedChunks)).toThrow(SegmentationError);
      }),
      { numRuns: 1000 },
    );
  });
});

const markdownish = fc
  .array(
    fc.oneof(
      fc.constantFrom("Step 1:", "## Step 2:", "**Step 3:**", "step 4 :", "Step", "1:", "Let x = 2.", "so", "\\boxed{5}", "é𝑥"),
      fc.constantFrom(" ", "\n", "\n\n", "\t", "\r\n", " \n \n", "\u00a0"),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));

describe("baseline segmenters (property)", () => {
  for (const [name, segment] of [
    ["segmentByBlankLines", segmentByBlankLines],
    ["segmentByStepMarkers", segmentByStepMarkers],
  ] as const) {
    it(`${name}: exact, ordered, non-overlapping, non-empty, trimmed chunks covering every non-whitespace character`, () => {
      fc.assert(
        fc.property(markdownish, (text) => {
          const chunks = segment(text);
          let previousEnd = 0;
          const covered = new Array<boolean>(text.length).fill(false);
          chunks.forEach((chunk, index) => {
            expect(chunk.index).toBe(index);
            expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
            expect(chunk.text.length).toBeGreaterThan(0);
            expect(chunk.text.trim()).toBe(chunk.text);
            expect(chunk.startOffset).toBeGreaterThanOrEqual(previousEnd);
            previousEnd = chunk.endOffset;
            covered.fill(true, chunk.startOffset, chunk.endOffset);
          });
          for (let offset = 0; offset < text.length; offset++) {
            if (!/\s/.test(text.charAt(offset))) expect(covered[offset], `offset ${offset} is not covered`).toBe(true);
          }
        }),
        { numRuns: 500 },
      );
    });
  }
});
