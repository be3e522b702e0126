import { PROCESSBENCH_CRITIC_PROMPT, PROCESSBENCH_CRITIC_PROMPT_V2, type ProcessBenchCriticTemplateId } from "../prompts/processbench-critic";
import { lastBoxed } from "../text/boxed";

/**
 * Reads a critic's answer (spec §4): the earliest error index, or -1, inside the
 * last `\boxed{}`. Returns null when there is none or it is not an integer ≥ -1.
 * The reading of `processbench-critic@v1` answers; v2 answers are read by
 * `parseCriticPredictionOfficial`.
 */
export function parseCriticPrediction(output: string): number | null {
  const box = lastBoxed(output);
  if (!box) return null;
  const text = box.content.replace(/\\text\s*\{([^{}]*)\}/g, "$1").trim();
  if (!/^-?\d+$/.test(text)) return null;
  const value = Number.parseInt(text, 10);
  return value >= -1 ? value : null;
}

/** The official `extract_answer`'s pattern is `r'\\boxed\{([^}]*)\}'`: no nested braces, no space before the brace. */
const OFFICIAL_BOX_OPEN = "\\boxed{";
/** What Python's `str.isspace()` accepts, which is what `str.strip()` and `int()` skip (JS's `\s` differs: it has U+FEFF but not U+001C–U+001F or U+0085). */
// eslint-disable-next-line no-control-regex -- U+001C–U+001F are whitespace to Python's str.isspace(): matching them is the point
const PYTHON_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
/** Python `int(text)` in base 10 after stripping: a sign, then decimal digits (any script's), single underscores only between digits. */
const PYTHON_INT = /^([+-]?)(\p{Nd}(?:_?\p{Nd})*)$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

/**
 * Reads a critic's answer as the official ProcessBench scorer does (QwenLM/ProcessBench,
 * `code/run_eval.py`, Apache-2.0): `extract_answer` takes the content of the last match of
 * `\\boxed\{([^}]*)\}` and strips it, then the prediction is Python's `int()` of it, None
 * when that raises. So `\boxed{ 2 }`, `\boxed{+2}`, `\boxed{02}` and `\boxed{1_0}` (10) are
 * integers, while `\boxed{\text{2}}`, `\boxed{2.0}`, `\boxed{- 1}`, a box holding braces and
 * a last box that is not an integer are null even if an earlier box held one. Any integer is
 * kept, -2 and 7 as much as -1 (they are wrong predictions, not unparseable ones), except
 * those beyond ±(2^53 − 1), which no paragraph index can be and a number cannot hold: null,
 * wrong either way. The reading of `processbench-critic@v2` answers.
 */
export function parseCriticPredictionOfficial(output: string): number | null {
  const answer = officialCriticAnswer(output);
  return answer === null ? null : pythonInt(answer);
}

/**
 * The official `extract_answer`: the content of the last match of `\\boxed\{([^}]*)\}`,
 * stripped as Python's `str.strip()` strips; null without a match. The string a critic
 * vote counts (`run_eval.py` votes over these strings, then takes `int()` of the winner).
 */
export function officialCriticAnswer(output: string): string | null {
  // `re.findall` of the pattern, in linear time: a match is a `\boxed{` and the text up to the
  // first `}` after it, the search goes on after that brace, and once no `}` follows there are
  // no more matches. (The regex itself rescans to the end from every unclosed `\boxed{`.)
  let last: string | undefined;
  for (let from = 0; ; ) {
    const open = output.indexOf(OFFICIAL_BOX_OPEN, from);
    if (open === -1) break;
    const close = output.indexOf("}", open + OFFICIAL_BOX_OPEN.length);
    if (close === -1) break;
    last = output.slice(open + OFFICIAL_BOX_OPEN.length, close);
    from = close + 1;
  }
  if (last === undefined) return null;
  return pythonStrip(last);
}

/** Python ≥ 3.11 refuses to convert a string of more digits than this (`sys.get_int_max_str_digits()`), leading zeros included. */
const PYTHON_INT_MAX_STR_DIGITS = 4300;

/**
 * Python's `int(text)` (base 10), or null where it raises; null too beyond the safe
 * integers. Surrounding whitespace is skipped, the sign must touch the digits.
 */
export function pythonInt(text: string): number | null {
  const match = PYTHON_INT.exec(pythonStrip(text));
  if (!match) return null;
  let digits = "";
  for (const char of match[2]!) if (char !== "_") digits += decimalDigitValue(char);
  if (digits.length > PYTHON_INT_MAX_STR_DIGITS) return null;
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return null;
  return match[1] === "-" && value !== 0 ? -value : value;
}

/** `str.strip()`, one character at a time (a regex strip can take quadratic time on long runs of spaces). */
function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PYTHON_SPACE.test(text[start]!)) start += 1;
  while (end > start && PYTHON_SPACE.test(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}

/**
 * The value of a Unicode decimal digit (general category Nd), as Python's int() reads
 * `٣` or `３`: Unicode assigns them only in runs of ten from 0 to 9, so the value is the
 * count of decimal digits just before it in the code chart, modulo 10.
 */
function decimalDigitValue(char: string): number {
  const code = char.codePointAt(0)!;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let before = 0;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(code - before - 1))) before += 1;
  return before % 10;
}

/** Each critic template's own reading of the answers it asks for. */
export const CRITIC_PREDICTION_PARSERS: Readonly<Record<ProcessBenchCriticTemplateId, (output: string) => number | null>> = Object.freeze({
  [PROCESSBENCH_CRITIC_PROMPT.id]: parseCriticPrediction,
  [PROCESSBENCH_CRITIC_PROMPT_V2.id]: parseCriticPredictionOfficial,
});

/** One critic sample as a vote reads it: the answer string its template's reading counts, and the index it gives (null: unparseable). */
export interface CriticSampleReading {
  /** v2: the official `extract_answer` string; v1: the parsed index as text; null when the sample names none. */
  answer: string | null;
  /** The sample's own prediction with its template's parser. */
  vote: number | null;
}

export function readCriticSample(output: string, templateId: ProcessBenchCriticTemplateId): CriticSampleReading {
  if (templateId === PROCESSBENCH_CRITIC_PROMPT_V2.id) {
    const answer = officialCriticAnswer(output);
    return { answer, vote: answer === null ? null : pythonInt(answer) };
  }
  const vote = parseCriticPrediction(output);
  return { answer: vote === null ? null : String(vote), vote };
}

/** How a critic's K samples decided its prediction. */
export interface CriticVote {
  prediction: number | null;
  /** Each sample's own reading, in sample order. */
  samples: CriticSampleReading[];
  /** The answer strings with their counts, in order of first appearance. */
  tally: Array<{ answer: string; count: number }>;
  /**
   * `single` (K = 1), `majority` (one answer most common), `tie` (several equally common: the
   * one first seen won), `no-answer` (no sample named one: unparseable).
   */
  decidedBy: "single" | "majority" | "tie" | "no-answer";
}

/**
 * ProcessBench's voting (`code/run_eval.py` with `--use_voting`): every sample's answer read
 * by the template's own parser, samples without one left out, the most common answer taken
 * (`Counter(preds).most_common(1)`), then the template's `int()` reading of it. Ties go to
 * the tied answer that appears first in sample order: a Counter keeps first-appearance order
 * and `most_common(1)` returns the first of the largest counts. The v2 template votes over the
 * answer strings as `run_eval.py` does, so `\boxed{02}` and `\boxed{2}` are different votes and a
 * winning string that is not an integer is unparseable; v1 votes over the parsed indices.
 */
export function voteCriticSamples(outputs: readonly string[], templateId: ProcessBenchCriticTemplateId): CriticVote {
  const samples = outputs.map((output) => readCriticSample(output, templateId));
  const counts = new Map<string, number>();
  for (const { answer } of samples) if (answer !== null) counts.set(answer, (counts.get(answer) ?? 0) + 1);
  const tally = [...counts].map(([answer, count]) => ({ answer, count }));
  if (tally.length === 0) return { prediction: null, samples, tally, decidedBy: "no-answer" };
  let winner = tally[0]!;
  for (const entry of tally) if (entry.count > winner.count) winner = entry;
  const tied = tally.filter((entry) => entry.count === winner.count).length > 1;
  const prediction = templateId === PROCESSBENCH_CRITIC_PROMPT_V2.id ? pythonInt(winner.answer) : Number(winner.answer);
  return { prediction, samples, tally, decidedBy: outputs.length === 1 ? "single" : tied ? "tie" : "majority" };
}
