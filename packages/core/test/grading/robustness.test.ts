import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { extractAnswer, gradeAnswer, normaliseAnswer, warmUpCas } from "../../src/grading";

const LIMIT_MS = 200;
// Room for a busy CI machine to schedule the process; a hang would overshoot by far more.
const SCHEDULING_SLACK_MS = 400;

/** LaTeX-flavoured fragments, so generated strings reach the parsers and the CAS, not only the string path. */
const fragment = fc.constantFrom(
  "1", "2", "0.5", "10", "x", "y", "+", "-", "^", "_", "{", "}", "(", ")", "[", "]", ",", "=", " ",
  "\\frac", "\\sqrt", "\\pi", "\\infty", "\\{", "\\}", "\\left(", "\\right)", "\\text{cm}", "\\%", "$",
  "\\boxed{", "&", "\\\\", "\\begin{pmatrix}", "\\end{pmatrix}", "!", "\\cdot", "\\pm", "five", "the answer is ",
);
const latexish = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(""));

describe("robustness", () => {
  beforeAll(() => warmUpCas());

  it("never throws and always decides within the limit, on arbitrary LaTeX-like input", () => {
    fc.assert(
      fc.property(fc.oneof(latexish, fc.string({ maxLength: 60 })), latexish, (gold, pred) => {
        const start = performance.now();
        const result = gradeAnswer(gold, pred, { timeLimitMs: LIMIT_MS });
        expect(performance.now() - start).toBeLessThan(LIMIT_MS + SCHEDULING_SLACK_MS);
        expect(["string", "numeric", "symbolic", "timeout", "unparseable"]).toContain(result.reason);
        expect(typeof result.equivalent).toBe("boolean");
      }),
      { numRuns: 300, seed: 20240601 },
    );
  });

  it("normalises idempotently: the normal form of a normal form is itself", () => {
    const corpus = readFileSync(new URL("./equivalence-corpus.jsonl", import.meta.url), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { gold: string; pred: string });
    for (const { gold, pred } of corpus) {
      for (const side of [gold, pred]) {
        const extracted = extractAnswer(side);
        if (!extracted) continue;
        const once = normaliseAnswer(extracted.text);
        expect(normaliseAnswer(once), side).toBe(once);
      }
    }
  });
});
