import { describe, expect, it } from "vitest";
import { CRITIC_PREDICTION_PARSERS, parseCriticPrediction, parseCriticPredictionOfficial, pythonInt } from "../../src/processbench/critic-output";

/**
 * The official scorer, QwenLM/ProcessBench `code/run_eval.py` (Apache-2.0): `extract_answer`
 * takes `re.findall(r'\\boxed\{([^}]*)\}', text)[-1].strip()` (None without a match), then
 * `pred = int(pred)` inside `try/except: pred = None`. Each expected value below is what those
 * two functions, copied verbatim, return under CPython 3.11.7 for the same text.
 */
const OFFICIAL_CASES: ReadonlyArray<[string, number | null]> = [
  ["The earliest error is in paragraph 3, so the answer is \\boxed{3}.", 3],
  ["No paragraph is wrong: \\boxed{-1}", -1],
  // int() skips surrounding whitespace, takes a sign, leading zeros and underscores between digits
  ["\\boxed{ 2 }", 2],
  ["\\boxed{\n4\n}", 4],
  ["\\boxed{+2}", 2],
  ["\\boxed{02}", 2],
  ["\\boxed{-0}", 0],
  ["\\boxed{1_0}", 10],
  ["\\boxed{1__0}", null],
  ["\\boxed{_1}", null],
  ["\\boxed{1_}", null],
  ["\\boxed{- 1}", null],
  // any integer is a prediction, in range or not (then simply wrong)
  ["\\boxed{-2}", -2],
  ["\\boxed{17}", 17],
  ["\\boxed{9007199254740991}", 9007199254740991],
  // not base-10 integer literals
  ["\\boxed{2.0}", null],
  ["\\boxed{1e3}", null],
  ["\\boxed{0x1}", null],
  ["\\boxed{}", null],
  ["\\boxed{ }", null],
  ["\\boxed{paragraph 2}", null],
  ["\\boxed{\u22121}", null], // U+2212 MINUS SIGN is not a sign to int()
  // the pattern allows no braces inside the box and no space before it
  ["\\boxed{\\text{2}}", null],
  ["\\boxed{{2}}", null],
  ["\\boxed{\\boxed{2}}", null],
  ["\\boxed {2}", null],
  ["\\boxed{2", null],
  ["\\fbox{2}", null],
  ["no box at all", null],
  // only the last box counts, even when an earlier one held an integer
  ["first \\boxed{2}, then \\boxed{5}", 5],
  ["first \\boxed{2}, then \\boxed{x}", null],
  ["\\boxed{2}} trailing brace", 2],
  ["\\\\boxed{6}", 6],
  // Python's whitespace (str.isspace), not JavaScript's \s
  ["\\boxed{\u00a03\u3000}", 3],
  ["\\boxed{\u001c3\u0085}", 3],
  ["\\boxed{\ufeff3}", null],
  ["\\boxed{\u200b3}", null],
  // int() reads decimal digits of any script
  ["\\boxed{\u0663}", 3],
  ["\\boxed{\uff11\uff12}", 12],
  ["\\boxed{\u{1d7d1}}", 3],
  ["\\boxed{\u0663_\u0663}", 33],
  // Python >= 3.11 refuses strings of more than 4300 digits, leading zeros included
  [`\\boxed{${"0".repeat(4299)}7}`, 7],
  [`\\boxed{${"0".repeat(4300)}7}`, null],
];

describe("official critic answer parsing (processbench-critic@v2)", () => {
  it.each(OFFICIAL_CASES.map(([text, expected]) => ({ text: text.length > 80 ? `${text.slice(0, 20)}… (${text.length} chars)` : text, full: text, expected })))(
    "$text → $expected",
    ({ full, expected }) => {
      expect(parseCriticPredictionOfficial(full)).toBe(expected);
    },
  );

  it("gives null beyond the safe integers, where Python would keep a (wrong) huge integer", () => {
    expect(parseCriticPredictionOfficial("\\boxed{9007199254740992}")).toBeNull();
    expect(parseCriticPredictionOfficial("\\boxed{-9007199254740992}")).toBeNull();
    expect(parseCriticPredictionOfficial(`\\boxed{${"9".repeat(400)}}`)).toBeNull();
  });

  it("takes linear time on unclosed boxes, where the regex rescans to the end from each one", () => {
    const started = Date.now();
    expect(parseCriticPredictionOfficial("\\boxed{".repeat(200_000))).toBeNull();
    expect(parseCriticPredictionOfficial(`${"\\boxed{1_".repeat(100_000)}\\boxed{4}`)).toBeNull(); // the first box runs to the only brace
    expect(parseCriticPredictionOfficial(`\\boxed{4}${"\\boxed{".repeat(200_000)}`)).toBe(4);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads int() on its own the same way", () => {
    expect(pythonInt("  -12\t")).toBe(-12);
    expect(pythonInt("1_000")).toBe(1000);
    expect(pythonInt("+_1")).toBeNull();
    expect(pythonInt("")).toBeNull();
  });

  it("differs from the v1 reading where the official scorer does", () => {
    expect(parseCriticPrediction("\\boxed{\\text{2}}")).toBe(2);
    expect(parseCriticPredictionOfficial("\\boxed{\\text{2}}")).toBeNull();
    expect(parseCriticPrediction("\\boxed{-2}")).toBeNull();
    expect(parseCriticPredictionOfficial("\\boxed{-2}")).toBe(-2);
    expect(parseCriticPrediction("\\boxed{ +2 }")).toBeNull();
    expect(parseCriticPredictionOfficial("\\boxed{ +2 }")).toBe(2);
  });

  it("is the parser of v2; v1 keeps its own", () => {
    expect(CRITIC_PREDICTION_PARSERS["processbench-critic@v2"]).toBe(parseCriticPredictionOfficial);
    expect(CRITIC_PREDICTION_PARSERS["processbench-critic@v1"]).toBe(parseCriticPrediction);
  });
});
