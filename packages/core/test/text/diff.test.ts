import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wordDiff } from "../../src/text/diff";

const side = (parts: ReturnType<typeof wordDiff>, keep: "delete" | "insert") => parts.filter((p) => p.op === "equal" || p.op === keep).map((p) => p.text).join("");

describe("word-level diff", () => {
  it("marks changed words and keeps the shared ones", () => {
    expect(wordDiff("the step adds 3 and 4 to get 7", "the step adds 3 and 5 to get 8")).toEqual([
      { op: "equal", text: "the step adds 3 and " },
      { op: "delete", text: "4" },
      { op: "insert", text: "5" },
      { op: "equal", text: " to get " },
      { op: "delete", text: "7" },
      { op: "insert", text: "8" },
    ]);
  });

  it("finds the longest common subsequence, not only a shared prefix and suffix", () => {
    expect(wordDiff("a b c d", "b c e")).toEqual([
      { op: "delete", text: "a " },
      { op: "equal", text: "b c " },
      { op: "delete", text: "d" },
      { op: "insert", text: "e" },
    ]);
    expect(wordDiff("", "new text")).toEqual([{ op: "insert", text: "new text" }]);
    expect(wordDiff("same", "same")).toEqual([{ op: "equal", text: "same" }]);
  });

  it("gives back both texts exactly, whatever they hold", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const parts = wordDiff(a, b);
        expect(side(parts, "delete")).toBe(a);
        expect(side(parts, "insert")).toBe(b);
      }),
    );
    const words = fc.array(fc.constantFrom("x", "y", "z", " ", "\n", "  "), { maxLength: 30 }).map((w) => w.join(""));
    fc.assert(
      fc.property(words, words, (a, b) => {
        const parts = wordDiff(a, b);
        expect(side(parts, "delete")).toBe(a);
        expect(side(parts, "insert")).toBe(b);
      }),
    );
  });

  it("falls back to replace-all past the size limit, still exact", () => {
    const parts = wordDiff("p a b c q", "p d e f q", { maxCells: 4 });
    expect(parts).toEqual([
      { op: "equal", text: "p " },
      { op: "delete", text: "a b c" },
      { op: "insert", text: "d e f" },
      { op: "equal", text: " q" },
    ]);
  });
});
