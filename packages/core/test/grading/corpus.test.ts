import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gradeAnswer } from "../../src/grading";

interface CorpusPair {
  gold: string;
  pred: string;
  equivalent: boolean;
  category: string;
}

const corpusUrl = new URL("./equivalence-corpus.jsonl", import.meta.url);
const limitsUrl = new URL("../../../../docs/grading-known-limits.md", import.meta.url);

const corpus: CorpusPair[] = readFileSync(corpusUrl, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as CorpusPair);

/** Rows of the known-failures table: `| line | category | `gold` | `pred` | expected | ... |`. */
function documentedFailures(): Array<{ line: number; gold: string; pred: string }> {
  const doc = readFileSync(limitsUrl, "utf8");
  const table = /<!-- known-failures:start -->([\s\S]*?)<!-- known-failures:end -->/.exec(doc);
  if (!table) throw new Error("docs/grading-known-limits.md has no known-failures table");
  return table[1]!
    .split("\n")
    .filter((row) => /^\|\s*\d+\s*\|/.test(row))
    .map((row) => {
      const code = [...row.matchAll(/`([^`]*)`/g)].map((m) => m[1]!.replace(/\\\|/g, "|"));
      return { line: Number(/^\|\s*(\d+)/.exec(row)![1]), gold: code[0] ?? "", pred: code[1] ?? "" };
    });
}

const CATEGORIES = [
  "thousands-separator",
  "decimal-fraction",
  "left-right",
  "thin-space",
  "degrees",
  "percent",
  "text-units",
  "dollar",
  "variable-assignment",
  "tuple",
  "interval",
  "set",
  "matrix",
  "sqrt",
  "pi",
  "symbolic",
  "word-numbers",
  "whole-response",
];

describe("answer-equivalence corpus", () => {
  const results = corpus.map((pair, index) => ({ pair, line: index + 1, result: gradeAnswer(pair.gold, pair.pred) }));
  const failing = results.filter((r) => r.result.equivalent !== r.pair.equivalent);

  it("has at least 170 pairs, equivalent and not, in every category", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(170);
    for (const category of CATEGORIES) {
      const pairs = corpus.filter((p) => p.category === category);
      expect(pairs.filter((p) => p.equivalent).length, category).toBeGreaterThan(0);
      expect(pairs.filter((p) => !p.equivalent).length, category).toBeGreaterThan(0);
    }
  });

  it("agrees with the expected label on at least 95% of pairs", () => {
    const agreement = 1 - failing.length / corpus.length;
    expect(agreement).toBeGreaterThanOrEqual(0.95);
  });

  it("fails exactly on the pairs listed in docs/grading-known-limits.md", () => {
    const documented = documentedFailures();
    for (const d of documented) {
      const pair = corpus[d.line - 1];
      expect(pair, `documented line ${d.line}`).toBeDefined();
      expect({ line: d.line, gold: pair!.gold, pred: pair!.pred }).toEqual(d);
    }
    const actual = failing.map((f) => ({ line: f.line, gold: f.pair.gold, pred: f.pair.pred }));
    expect(actual).toEqual(documented);
  });

  it("gives the same verdict and reason with the sides swapped, and accepts every answer against itself", () => {
    for (const { pair, result } of results) {
      const swapped = gradeAnswer(pair.pred, pair.gold);
      expect({ equivalent: swapped.equivalent, reason: swapped.reason }, `${pair.gold} | ${pair.pred}`).toEqual({
        equivalent: result.equivalent,
        reason: result.reason,
      });
      for (const side of [pair.gold, pair.pred]) {
        const self = gradeAnswer(side, side);
        if (self.reason !== "unparseable") expect(self.equivalent, side).toBe(true);
      }
    }
  });

  it("gives every result a reason, normalised forms and the rule that fired", () => {
    for (const { result } of results) {
      expect(["string", "numeric", "symbolic", "timeout", "unparseable"]).toContain(result.reason);
      if (result.reason !== "unparseable") {
        expect(result.gold.normalised).not.toBeNull();
        expect(result.pred.normalised).not.toBeNull();
        expect(result.gold.rule).not.toBeNull();
        expect(result.pred.rule).not.toBeNull();
      }
    }
  });
});
