/**
 * Finds arithmetic equations in free text ("12 + 5 = 17", "$1,200 × 3 = $3,600",
 * "3 \times 4 = 12", "a + b + c = d = e") and checks them. Operators: + - − –
 * * × x · / ÷ ^ \times \cdot \div; numbers with thousands commas, decimals,
 * $ and %; parentheses; "=" with or without spaces. Anything that is not an
 * equation between numbers is ignored: words break an expression, so "x = 5",
 * "2x + 3 = 7" and "3 hours * 4 = 12" are not read as claims, and a side that
 * is the tail of a phrase ("25% of $1.60 = …", "Age} - 4 = …", "f(5) = …") is
 * dropped. Sides agree when equal, when a decimal rounds the other side to the
 * digits it shows, or when "= 20%" follows a value of 20.
 *
 * Known limits: integer quotients with a remainder ("18 ÷ 4 = 4 R 2") and
 * approximations written with "=" are reported as wrong.
 */

type Op = "+" | "-" | "*" | "/" | "^";

interface NumberToken {
  type: "number";
  /** The value, a percentage read as a fraction (20% → 0.2). */
  value: number;
  /** Set for "20%": the number as written (20), since "0.2 * 100 = 20%" means 20. */
  percentOf?: number;
  /** Digits after the decimal point, as written. */
  decimals: number;
  start: number;
  end: number;
}

type Token =
  | NumberToken
  | { type: "op"; op: Op; start: number; end: number }
  | { type: "eq" | "lparen" | "rparen" | "space"; start: number; end: number }
  /** Anything else ends an expression; `word` for letters (and LaTeX commands), `glue` for _ } ' ^ that bind what follows to what precedes. */
  | { type: "break"; word: boolean; glue?: boolean; start: number; end: number };

// `\$` and `\%` are LaTeX escapes; `{,}` and `\,` are LaTeX thousands separators.
const NUMBER = /(?:\\?\$)?(?:\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+|\d+)(?:\.\d+)?(?:\\?%)?|(?:\\?\$)?\.\d+(?:\\?%)?/y;
const LATEX_OPERATOR = /\\(times|cdot|div)(?![A-Za-z])/y;
const SPACE = /[ \t]+|\\[ ;:!]/y;
const OPERATORS: Readonly<Record<string, Op>> = { "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", "·": "*", x: "*", X: "*", "/": "/", "÷": "/", "^": "^" };

/** Whether the character at `at` is a letter, other than an x with a digit beyond it (`direction` away from the number). */
function gluedToLetter(text: string, at: number, direction: 1 | -1): boolean {
  const char = text.charAt(at);
  if (!/[A-Za-z]/.test(char)) return false;
  return !((char === "x" || char === "X") && /\d/.test(text.charAt(at + direction)));
}

function numberToken(written: string, start: number): NumberToken {
  const percent = /\\?%$/.test(written);
  const digits = written.replace(/^\\?\$/, "").replace(/\\?%$/, "").replace(/\{,\}|\\,|,/g, "");
  const decimals = digits.includes(".") ? digits.length - digits.indexOf(".") - 1 : 0;
  const number = Number(digits);
  return percent
    ? { type: "number", value: number / 100, percentOf: number, decimals: decimals + 2, start, end: start + written.length }
    : { type: "number", value: number, decimals, start, end: start + written.length };
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const push = (token: Token) => {
    tokens.push(token);
    at = token.end;
  };
  const sticky = (pattern: RegExp): string | null => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    return match ? match[0] : null;
  };
  while (at < text.length) {
    const char = text.charAt(at);
    const number = /[\d.$\\]/.test(char) ? sticky(NUMBER) : null;
    if (number !== null) {
      // A number glued to a letter ("2x", "3rd", "x2", "a12") is not a number of an
      // equation, except around the x of "5x3".
      const glued = gluedToLetter(text, at + number.length, 1) || gluedToLetter(text, at - 1, -1);
      push(glued ? { type: "break", word: true, start: at, end: at + number.length } : numberToken(number, at));
      continue;
    }
    // LaTeX math delimiters \( \) \[ \] are not brackets of an expression.
    if (char === "\\" && "()[]".includes(text.charAt(at + 1))) {
      push({ type: "break", word: false, start: at, end: at + 2 });
      continue;
    }
    const latex = char === "\\" ? sticky(LATEX_OPERATOR) : null;
    if (latex !== null) {
      push({ type: "op", op: latex === "\\div" ? "/" : "*", start: at, end: at + latex.length });
      continue;
    }
    const space = sticky(SPACE);
    if (space !== null) {
      push({ type: "space", start: at, end: at + space.length });
      continue;
    }
    if (char === "=" || char === "(" || char === ")") {
      push({ type: char === "=" ? "eq" : char === "(" ? "lparen" : "rparen", start: at, end: at + 1 });
      continue;
    }
    const op = OPERATORS[char];
    // A letter x multiplies only standing alone between spaces ("5 x 3") or between
    // digits ("5x3"), never in "2x + 3" or "x = 5".
    const isLetter = char === "x" || char === "X";
    const before = text.charAt(at - 1);
    const after = text.charAt(at + 1);
    if (op && (!isLetter || (/[ \t]/.test(before) && /[ \t]/.test(after)) || (/\d/.test(before) && /\d/.test(after)))) {
      push({ type: "op", op, start: at, end: at + 1 });
      continue;
    }
    const word = sticky(/\\?[A-Za-z]+/y);
    push({ type: "break", word: word !== null, glue: "_}'^".includes(char), start: at, end: at + (word?.length ?? 1) });
  }
  return tokens;
}

interface SideValue {
  value: number;
  operators: number;
  /** The side's only token when it is a single number. */
  plain: NumberToken | null;
}

/**
 * Recursive descent over one side of an equation (+ − below × ÷ below ^;
 * a minus is unary only when glued to what follows, as in "-3"); null if the
 * tokens are not one complete expression.
 */
function evaluate(tokens: readonly Token[]): SideValue | null {
  let at = 0;
  let operators = 0;
  const peekOp = (...ops: Op[]): Op | null => {
    const token = tokens[at];
    return token?.type === "op" && ops.includes(token.op) ? token.op : null;
  };
  const binary = (operand: () => number | null, ops: Op[], apply: (op: Op, left: number, right: number) => number) => (): number | null => {
    let left = operand();
    for (let op = peekOp(...ops); left !== null && op !== null; op = peekOp(...ops)) {
      at++;
      operators++;
      const right = operand();
      if (right === null) return null;
      left = apply(op, left, right);
    }
    return left;
  };
  const factor = (): number | null => {
    const token = tokens[at];
    if (!token) return null;
    if (token.type === "op" && token.op === "-" && tokens[at + 1]?.start === token.end) {
      at++;
      const inner = power();
      return inner === null ? null : -inner;
    }
    if (token.type === "number") {
      at++;
      return token.value;
    }
    if (token.type === "lparen") {
      at++;
      const inner = sum();
      if (inner === null || tokens[at]?.type !== "rparen") return null;
      at++;
      return inner;
    }
    return null;
  };
  const power = (): number | null => {
    const base = factor();
    if (base === null || peekOp("^") === null) return base;
    at++;
    operators++;
    const exponent = power();
    return exponent === null ? null : base ** exponent;
  };
  const product = binary(power, ["*", "/"], (op, left, right) => (op === "*" ? left * right : left / right));
  const sum = binary(product, ["+", "-"], (op, left, right) => (op === "+" ? left + right : left - right));
  const value = sum();
  if (value === null || at !== tokens.length || !Number.isFinite(value)) return null;
  const only = tokens.length === 1 && tokens[0]?.type === "number" ? tokens[0] : null;
  return { value, operators, plain: only };
}

export interface CheckedEquation {
  /** The equation as it stands in the text. */
  text: string;
  start: number;
  end: number;
  /** The value of each side, left to right. */
  values: number[];
  correct: boolean;
  /** For a wrong equation: the first side that does not equal the one before it, and what it should be. */
  wrongSide?: { index: number; previous: string; written: string; expected: number };
}

function closeTo(a: number, b: number, decimalsShown: number): boolean {
  const difference = Math.abs(a - b);
  if (difference <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))) return true;
  return decimalsShown > 0 && difference <= 0.5 * 10 ** -decimalsShown + 1e-9;
}

/**
 * Two sides agree if equal, or if one is a plain decimal that rounds the
 * other to the digits it shows ("10 / 3 = 3.33"); a whole number must be
 * exact. A plain percentage also matches its number as written
 * ("0.2 * 100 = 20%").
 */
function sidesAgree(left: SideValue, right: SideValue): boolean {
  const shown = Math.max(right.plain?.decimals ?? 0, left.plain?.decimals ?? 0);
  if (closeTo(left.value, right.value, shown)) return true;
  const rawShown = (side: SideValue) => (side.plain?.decimals ?? 2) - 2;
  if (right.plain?.percentOf !== undefined && closeTo(left.value, right.plain.percentOf, rawShown(right))) return true;
  return left.plain?.percentOf !== undefined && closeTo(left.plain.percentOf, right.value, rawShown(left));
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(6)));
}

function splitOn<T>(items: readonly T[], isSeparator: (item: T) => boolean): T[][] {
  const parts: T[][] = [[]];
  for (const item of items) {
    if (isSeparator(item)) parts.push([]);
    else parts[parts.length - 1]!.push(item);
  }
  return parts;
}

/** Whether the last side runs on into words: "36 = 50 - 50 \\cos X" (the last 50 multiplies the cosine). */
function runsIntoWords(side: readonly Token[], after: Token | undefined): boolean {
  return side.some((token) => token.type === "op") && after?.type === "break" && after.word;
}

/**
 * Whether the first side of a run is really the tail of the text before it:
 * "… Age} - 4 = 10 - 4 = 6" (an operator with a space after it), "25% of
 * $1.60 = 0.25 * $1.60" (a lone number right after a word), or "f(5) = 26",
 * "a_3 = 7" (glued to the symbol before it).
 */
function isTailOfPhrase(side: readonly Token[], before: Token | undefined): boolean {
  const [first, second] = side;
  if (!first) return false;
  if (first.type === "op" && second !== undefined && second.start !== first.end) return true;
  if (before?.type === "break" && before.end === first.start && (before.word || before.glue)) return true;
  return side.length === 1 && first.type === "number" && before?.type === "break" && before.word;
}

/** Every equation between numbers in `text`, checked. */
export function findEquations(text: string): CheckedEquation[] {
  const tokens = tokenize(text);
  const equations: CheckedEquation[] = [];
  let runStart = 0;
  for (let i = 0; i <= tokens.length; i++) {
    if (i < tokens.length && tokens[i]!.type !== "break") continue;
    const run = tokens.slice(runStart, i);
    // The breaks around the run (spaces belong to the run).
    const before = tokens[runStart - 1];
    const after = tokens[i];
    runStart = i + 1;
    if (!run.some((token) => token.type === "eq")) continue;
    let sides = splitOn(run, (token) => token.type === "eq").map((side) => side.filter((token) => token.type !== "space"));
    // Text before the first "=" that is not an expression ("Total =", "3 hours * 4 =")
    // ends the words before it, not a side; the same goes after the last one.
    while (sides.length > 0 && (evaluate(sides[0]!) === null || isTailOfPhrase(sides[0]!, before))) sides = sides.slice(1);
    while (sides.length > 0 && (evaluate(sides[sides.length - 1]!) === null || runsIntoWords(sides[sides.length - 1]!, after))) sides = sides.slice(0, -1);
    if (sides.length < 2) continue;
    const evaluated = sides.map(evaluate);
    if (evaluated.some((side) => side === null)) continue;
    const values = evaluated as SideValue[];
    if (values.every((side) => side.operators === 0)) continue;
    const spanOf = (side: readonly Token[]) => ({ start: side[0]!.start, end: side[side.length - 1]!.end });
    const start = spanOf(sides[0]!).start;
    const end = spanOf(sides[sides.length - 1]!).end;
    const equation: CheckedEquation = { text: text.slice(start, end), start, end, values: values.map((side) => side.value), correct: true };
    // In a chain each side is compared with the one before it: "2 + 3 = 5 × 2 = 10" is wrong at "5 × 2".
    const wrongAt = values.findIndex((side, index) => index > 0 && !sidesAgree(values[index - 1]!, side));
    if (wrongAt > 0) {
      const previous = spanOf(sides[wrongAt - 1]!);
      const written = spanOf(sides[wrongAt]!);
      equation.correct = false;
      equation.wrongSide = {
        index: wrongAt,
        previous: text.slice(previous.start, previous.end),
        written: text.slice(written.start, written.end),
        expected: values[wrongAt - 1]!.value,
      };
    }
    equations.push(equation);
  }
  return equations;
}

export interface ArithmeticCheck {
  equations: CheckedEquation[];
  wrong: CheckedEquation[];
  correct: boolean;
}

export function checkArithmetic(text: string): ArithmeticCheck {
  const equations = findEquations(text);
  const wrong = equations.filter((equation) => !equation.correct);
  return { equations, wrong, correct: wrong.length === 0 };
}

/** One sentence per finding, for a judge's rationale. */
export function describeArithmeticCheck(check: ArithmeticCheck): string {
  if (check.equations.length === 0) return "The chunk contains no arithmetic equation to check, and nothing in it contradicts the problem.";
  const parts = check.equations.map((equation) =>
    equation.correct
      ? `${equation.text} is correct`
      : `${equation.text} is wrong: ${equation.wrongSide!.previous} is ${formatNumber(equation.wrongSide!.expected)}, not ${equation.wrongSide!.written}`,
  );
  const count = check.equations.length === 1 ? "one equation" : `${check.equations.length} equations`;
  return `I checked ${count}: ${parts.join("; ")}.`;
}
