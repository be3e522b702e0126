import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  locateTaggedChunks,
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

/** The rule stated independently of the implementation: the original is whitespace, then each chunk's core, separated and ended by whitespace only. */
function reproducesOriginal(original: string, chunks: readonly string[]): boolean {
  const cores = chunks.map((chunk) => chunk.trim());
  if (cores.some((core) => core === "")) return false;
  const escaped = cores.map((core) => core.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^\\s*${escaped.join("\\s*")}\\s*$`).test(original);
}

/** What a careless segmenter does to a faithful segmentation; some edits keep it faithful, most do not. */
const segmentationEdit = fc.record({
  kind: fc.constantFrom("none", "edit a character", "pad with whitespace", "drop a chunk", "swap two chunks", "repeat a chunk", "merge two chunks", "split a chunk", "add a blank chunk"),
  pick: fc.nat(),
  other: fc.nat(),
  char: fc.oneof(fc.constantFrom(...WHITESPACE, "a", "x", "2", "\\", "𝑥"), fc.string({ minLength: 1, maxLength: 1 })),
});

function applyEdit(chunks: string[], { kind, pick, other, char }: { kind: string; pick: number; other: number; char: string }): string[] {
  const out = [...chunks];
  if (out.length === 0) return out;
  const i = pick % out.length;
  const j = other % out.length;
  const chunk = out[i]!;
  switch (kind) {
    case "edit a character": {
      const at = other % (chunk.length + 1);
      out[i] = pick % 2 === 0 ? chunk.slice(0, at) + char + chunk.slice(at) : chunk.slice(0, at) + chunk.slice(at + 1);
      break;
    }
    case "pad with whitespace":
      out[i] = `${char.trim() === "" ? char : " "}${chunk}\n`;
      break;
    case "drop a chunk":
      out.splice(i, 1);
      break;
    case "swap two chunks":
      [out[i], out[j]] = [out[j]!, chunk];
      break;
    case "repeat a chunk":
      out.splice(i, 0, chunk);
      break;
    case "merge two chunks":
      if (i + 1 < out.length) out.splice(i, 2, `${chunk}${char.trim() === "" ? char : " "}${out[i + 1]}`);
      break;
    case "split a chunk": {
      const at = other % (chunk.length + 1);
      out.splice(i, 1, chunk.slice(0, at), chunk.slice(at));
      break;
    }
    case "add a blank chunk":
      out.splice(i, 0, char.trim() === "" ? char : " ");
      break;
  }
  return out;
}

const checked = { accepted: 0, rejected: 0 };
afterAll(() => {
  process.stderr.write(`chunk properties: ${checked.accepted + checked.rejected} candidate segmentations checked (${checked.accepted} accepted, ${checked.rejected} rejected with a position), every verdict as the rule states it\n`);
});

describe("segmentation check (property)", () => {
  it("accepts exactly the segmentations that reproduce the original, as chunk texts and as rendered <chunk> tags, and places a rejection inside the original", () => {
    fc.assert(
      fc.property(solutionWithCuts, fc.array(segmentationEdit, { maxLength: 2 }), ({ text, cuts }, edits) => {
        const faithful = piecesAt(text, cuts).filter((piece) => !isBlank(piece));
        const candidate = edits.reduce(applyEdit, faithful);
        fc.pre(candidate.length > 0 && !candidate.some((chunk) => /<\/?chunk>/.test(chunk)));
        const expected = reproducesOriginal(text, candidate);

        const verdicts = [() => reconstructChunks(text, candidate), () => locateTaggedChunks(text, serializeChunkTags(candidate))].map((check) => {
          try {
            const located = check();
            located.forEach((chunk, index) => expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(candidate[index]!.trim()));
            return true;
          } catch (error) {
            expect(error).toBeInstanceOf(SegmentationError);
            const { original } = (error as SegmentationError).details;
            if (original) {
              expect(original.offset).toBeGreaterThanOrEqual(0);
              expect(original.offset).toBeLessThanOrEqual(text.length);
              expect(text.slice(0, original.offset).split("\n")).toHaveLength(original.line);
            }
            return false;
          }
        });
        expect(verdicts).toEqual([expected, expected]);
        checked[expected ? "accepted" : "rejected"] += 1;
      }),
      { numRuns: 1500 },
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
