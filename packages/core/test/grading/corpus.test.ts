import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gradeAnswer, type GradeOptions } from "../../src/grading";

interface CorpusPair {
  gold: string;
  pred: string;
  equivalent: boolean;
  category: string;
  /** Where a ported or real pair comes from. */
  source?: string;
  /** The settings a Math-Verify case was tested under; `floatRounding` is our `decimalPlaces`. */
  settings?: { floatRounding?: number };
  /** Math-Verify's own verdict, where a careful human grader disagrees with it (see `note`). */
  mathVerifyExpected?: boolean;
  note?: string;
}

/** The corpus files, each named as the known-failures table names it. */
const FILES: ReadonlyArray<{ name: string; url: URL }> = [
  { name: "equivalence-corpus.jsonl", url: new URL("./equivalence-corpus.jsonl", import.meta.url) },
  { name: "corpus/math-verify.jsonl", url: new URL("./corpus/math-verify.jsonl", import.meta.url) },
  { name: "corpus/real-outputs.jsonl", url: new URL("./corpus/real-outputs.jsonl", import.meta.url) },
];
const limitsUrl = new URL("../../../../docs/grading-known-limits.md", import.meta.url);

const corpus = FILES.flatMap(({ name, url }) =>
  readFileSync(url, "utf8")
    .split("\n")
    .map((line, index) => ({ line, where: `${name}:${index + 1}` }))
    .filter(({ line }) => line.trim() !== "")
    .map(({ line, where }) => ({ where, pair: JSON.parse(line) as CorpusPair })),
);

function optionsOf(pair: CorpusPair): GradeOptions {
  return pair.settings?.floatRounding === undefined ? {} : { decimalPlaces: pair.settings.floatRounding };
}

/** Rows of the known-failures table: `| file:line | category | `gold` | `pred` | expected | ... |`. */
function documentedFailures(): Array<{ where: string; gold: string; pred: string }> {
  const doc = readFileSync(limitsUrl, "utf8");
  const table = /<!-- known-failures:start -->([\s\S]*?)<!-- known-failures:end -->/.exec(doc);
  if (!table) throw new Error("docs/grading-known-limits.md has no known-failures table");
  return table[1]!
    .split("\n")
    .filter((row) => /^\|\s*[\w/.-]+\.jsonl:\d+\s*\|/.test(row))
    .map((row) => {
      const code = [...row.matchAll(/`([^`]*)`/g)].map((m) => m[1]!.replace(/\\\|/g, "|"));
      return { where: /^\|\s*([^|\s]+)/.exec(row)![1]!, gold: code[0] ?? "", pred: code[1] ?? "" };
    });
}

/** A table cell shows at most this much of a long text, from its end (where the answer is). */
const CELL_CHARS = 60;
const cell = (text: string) => (text.length > CELL_CHARS ? `…${text.slice(-CELL_CHARS)}` : text).replace(/\n/g, " ").replace(/`/g, "'");

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
  const results = corpus.map(({ where, pair }) => ({ pair, where, result: gradeAnswer(pair.gold, pair.pred, optionsOf(pair)) }));
  const failing = results.filter((r) => r.result.equivalent !== r.pair.equivalent);

  it("has at least 600 pairs: Math-Verify's cases, real model outputs and our own, equivalent and not, in every category", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(600);
    expect(corpus.filter((c) => c.where.startsWith("corpus/math-verify")).length).toBeGreaterThanOrEqual(250);
    expect(corpus.filter((c) => c.where.startsWith("corpus/real-outputs")).length).toBeGreaterThanOrEqual(200);
    for (const { pair } of corpus) if (pair.mathVerifyExpected !== undefined) expect(pair.note, pair.gold).toBeTruthy();
    for (const category of CATEGORIES) {
      const pairs = corpus.filter((p) => p.pair.category === category).map((p) => p.pair);
      expect(pairs.filter((p) => p.equivalent).length, category).toBeGreaterThan(0);
      expect(pairs.filter((p) => !p.equivalent).length, category).toBeGreaterThan(0);
    }
  });

  it("agrees with the expected label on at least 97% of pairs", () => {
    const agreement = 1 - failing.length / corpus.length;
    expect(agreement).toBeGreaterThanOrEqual(0.97);
  });

  it("fails exactly on the pairs listed in docs/grading-known-limits.md", () => {
    const documented = documentedFailures();
    const byWhere = new Map(corpus.map((c) => [c.where, c.pair]));
    for (const d of documented) {
      const pair = byWhere.get(d.where);
      expect(pair, `documented ${d.where}`).toBeDefined();
      expect({ where: d.where, gold: cell(pair!.gold), pred: cell(pair!.pred) }).toEqual(d);
    }
    const actual = failing.map((f) => ({ where: f.where, gold: cell(f.pair.gold), pred: cell(f.pair.pred) }));
    expect(actual).toEqual(documented);
  });

  it("gives the same verdict and reason with the sides swapped, and accepts every short answer against itself", () => {
    for (const { pair, result } of results.filter((r) => r.where.startsWith("equivalence-corpus"))) {
      const swapped = gradeAnswer(pair.pred, pair.gold);
      expect({ equivalent: swapped.equivalent, reason: swapped.reason }, `${pair.gold} | ${pair.pred}`).toEqual({
        equivalent: result.equivalent,
        reason: result.reason,
      });
    }
    for (const { pair } of results) {
      for (const side of [pair.gold, pair.pred]) {
        const self = gradeAnswer(side, side);
        if (self.reason !== "unparseable" && self.reason !== "timeout") expect(self.equivalent, side).toBe(true);
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
