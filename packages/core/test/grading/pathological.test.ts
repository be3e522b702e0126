import { beforeAll, describe, expect, it } from "vitest";
import { gradeAnswer, warmUpCas, type GradeResult } from "../../src/grading";

const LIMIT_MS = 300;
// Room for a busy CI machine to schedule the process; a hang would overshoot by far more.
const SCHEDULING_SLACK_MS = 400;

const sumOf5000Terms = Array.from({ length: 5000 }, (_, i) => String(i + 1)).join("+");

function nestedFractions(depth: number): string {
  let text = "1";
  for (let i = 0; i < depth; i++) text = String.raw`\frac{1}{1+${text}}`;
  return text;
}

const cases: ReadonlyArray<{ name: string; gold: string; pred: string }> = [
  { name: "exponent tower vs tower + 1", gold: "10^{10^{10^{10}}}", pred: "10^{10^{10^{10}}}+1" },
  { name: "huge factorial", gold: "(10^{100})!", pred: "(10^{100})!+1" },
  { name: "large factorial", gold: "100000!", pred: "100001!" },
  { name: "power tower of twos", gold: "2^{2^{2^{2^{2}}}}", pred: "2^{65536}" },
  { name: "huge exponent on a variable", gold: "x^{10^{10}}", pred: "x^{10^{10}}+1" },
  { name: "iterated exponentials", gold: "e^{e^{e^{e^{10}}}}", pred: "1" },
  { name: "5,000-term sum vs its value", gold: sumOf5000Terms, pred: "12502500" },
  { name: "5,000-term sum vs itself + 0", gold: sumOf5000Terms, pred: `${sumOf5000Terms}+0` },
  { name: "300 nested fractions", gold: nestedFractions(300), pred: "0.618" },
  { name: "sum with 10^9 terms", gold: String.raw`\sum_{k=1}^{10^{9}} k`, pred: "500000000500000000" },
  { name: "product with 10^7 factors", gold: String.raw`\prod_{k=1}^{10^{7}} k`, pred: "5" },
  { name: "5,000 nested braces", gold: `${"{".repeat(5000)}1${"}".repeat(5000)}`, pred: "1" },
  { name: "3,000 nested parentheses", gold: `${"(".repeat(3000)}1${")".repeat(3000)}`, pred: "1" },
  { name: "20,000-term boxed expression", gold: String.raw`\boxed{${"x+".repeat(20000)}1}`, pred: "1" },
];

function timed(gold: string, pred: string): { result: GradeResult; ms: number } {
  const start = performance.now();
  const result = gradeAnswer(gold, pred, { timeLimitMs: LIMIT_MS });
  return { result, ms: performance.now() - start };
}

describe("pathological input", () => {
  beforeAll(() => {
    // Building the engine is a one-off per process; it is not what this test measures.
    warmUpCas();
  });

  it.each(cases)("$name: decided within the time limit", ({ gold, pred }) => {
    const { result, ms } = timed(gold, pred);
    expect(ms).toBeLessThan(LIMIT_MS + SCHEDULING_SLACK_MS);
    expect(result.equivalent).toBe(false);
    expect(["timeout", "unparseable", "numeric", "symbolic"]).toContain(result.reason);
  });

  it("refuses what it cannot evaluate with a timeout or unparseable reason", () => {
    expect(timed("10^{10^{10^{10}}}", "10^{10^{10^{10}}}+1").result.reason).toBe("timeout");
    expect(timed(sumOf5000Terms, "12502500").result.reason).toBe("timeout");
    expect(timed(nestedFractions(300), "0.618").result.reason).toBe("unparseable");
  });

  it("still grades identical pathological answers as equal, by string", () => {
    expect(timed(sumOf5000Terms, sumOf5000Terms).result).toMatchObject({ equivalent: true, reason: "string" });
    expect(timed("10^{10^{10^{10}}}", "10^{10^{10^{10}}}").result).toMatchObject({ equivalent: true, reason: "string" });
  });

  it("handles moderately deep nesting normally", () => {
    const { result, ms } = timed(nestedFractions(20), "0.6180339887");
    expect(result).toMatchObject({ equivalent: true, reason: "numeric" });
    expect(ms).toBeLessThan(LIMIT_MS + SCHEDULING_SLACK_MS);
  });

  it("uses the injected clock: a spent budget means timeout before the CAS is asked", () => {
    let t = 0;
    // Every read of the clock moves it on by a second.
    const now = () => (t += 1000);
    const result = gradeAnswer("x^2+2x+1", "(x+1)^2", { timeLimitMs: 500, now });
    expect(result).toMatchObject({ equivalent: false, reason: "timeout" });
    // Decisions that need no CAS do not depend on the budget.
    expect(gradeAnswer("1,000", "1000", { timeLimitMs: 500, now })).toMatchObject({ equivalent: true, reason: "string" });
    expect(gradeAnswer("0.5", String.raw`\frac12`, { timeLimitMs: 500, now })).toMatchObject({ equivalent: true, reason: "numeric" });
  });

  it("reports elapsed time on the injected clock", () => {
    let t = 100;
    const result = gradeAnswer("1", "1", { now: () => (t += 7) });
    expect(result.elapsedMs).toBe(7);
  });
});
