/**
 * Our canonical string form of an answer. Two layers:
 *
 * - `cleanAnswer` rewrites notation that never changes the value (dollar
 *   signs, `\left`, thin spaces, `\dfrac`, degree marks, units, ...) over the
 *   whole answer, keeping commas and brackets so the structure stays visible;
 * - `cleanScalar` finishes one element (assignment prefixes, thousands
 *   separators, percent, word numbers) once the structure parser has split the
 *   answer into elements.
 *
 * Every rule is a plain string rewrite so the normalised form is explainable
 * and stable; the CAS only ever sees the result.
 */
import { matchingBrace, matchingBracket, readArgument, splitTopLevel } from "./latex";
import { isName } from "./relations";
import { NUMBER_WORDS, parseWordNumber } from "./word-numbers";

export interface NormaliseOptions {
  /** `50\%` means 0.5 when true; when false (default) the percent sign is dropped and `50\%` means 50. */
  percentAsFraction?: boolean;
  /** Bare comma lists (`2, 3`) compare as unordered collections of roots (default true). */
  unorderedLists?: boolean;
}

const UNICODE: ReadonlyArray<[RegExp, string]> = [
  [/[−–]/g, "-"],
  [/π/g, "\\pi "],
  [/∞/g, "\\infty "],
  [/√/g, "\\sqrt"],
  [/×/g, "\\times "],
  [/[·⋅]/g, "\\cdot "],
  [/÷/g, "\\div "],
  [/°/g, "^\\circ"],
  [/≤/g, "\\le "],
  [/≥/g, "\\ge "],
  [/≠/g, "\\ne "],
  [/∪/g, "\\cup "],
  [/∅/g, "\\emptyset "],
  [/±/g, "\\pm "],
  [/[\u00a0\u2009\u202f]/g, " "],
];

/** Commands that only choose a style or size; the value is the same without them. */
const DROPPED_COMMANDS =
  /\\(?:displaystyle|textstyle|scriptstyle|left|right|bigl|bigr|bigm|Bigl|Bigr|Bigm|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![a-zA-Z])/g;

/** Commands whose argument is text or styling: the argument is the value. */
const UNWRAP_COMMANDS = [
  "text",
  "textbf",
  "textit",
  "textrm",
  "textnormal",
  "mathrm",
  "mathbf",
  "mathit",
  "boldsymbol",
  "bm",
  "mbox",
  "hbox",
  "emph",
  "mathsf",
  "mathtt",
];

/** Words that can follow a number without being its unit. */
const NOT_UNITS = new Set(["or", "and", "percent", "percentage", "pct", "of", "to", "mod", "times", "over", "plus", "minus"]);

/** Heuristic rewrites with quadratic worst cases only run on answers up to this length. */
const MAX_HEURISTIC_CHARS = 300;

const UNIT_WORDS = new Set(
  (
    "cm mm km m meter meters metre metres centimeter centimeters kilometer kilometers inch inches in ft foot feet " +
    "yard yards yd mile miles mi unit units sq square cubic g kg gram grams kilogram kilograms lb lbs pound pounds " +
    "oz ounce ounces l liter liters litre litres ml s sec second seconds min minute minutes h hr hrs hour hours " +
    "day days week weeks month months year years dollar dollars cent cents degree degrees deg rad radian radians " +
    "mph kmh"
  ).split(" "),
);

function replaceAll(text: string, rules: ReadonlyArray<[RegExp, string]>): string {
  return rules.reduce((acc, [re, to]) => acc.replace(re, to), text);
}

/**
 * Rewrites `\cmd X` with unbraced one-token arguments as `\cmd{X}`, so that
 * `\frac12`, `\frac1{2}` and `\frac{1}{2}` share one spelling.
 */
function braceArguments(text: string, command: string, arity: number): string {
  const re = new RegExp(`\\\\${command}(?![a-zA-Z])`, "g");
  let out = "";
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let i = m.index + m[0].length;
    let rebuilt = `\\${command}`;
    if (command === "sqrt") {
      // Keep an index such as \sqrt[3]{...}.
      const rest = text.slice(i);
      const index = /^\s*\[([^\]]*)\]/.exec(rest);
      if (index) {
        rebuilt += `[${index[1]}]`;
        i += index[0].length;
      }
    }
    let ok = true;
    // Plain-text `sqrt(2)` (already turned into `\sqrt(2)`) takes the parenthesised group.
    if (command === "sqrt" && arity === 1 && /^\s*\(/.test(text.slice(i))) {
      const open = text.indexOf("(", i);
      const close = matchingBracket(text, open);
      if (close !== -1 && text[close] === ")") {
        out += `${text.slice(last, m.index)}\\sqrt{${text.slice(open + 1, close)}}`;
        last = close + 1;
        re.lastIndex = close + 1;
        continue;
      }
    }
    for (let k = 0; k < arity; k++) {
      const arg = readArgument(text, i);
      if (!arg) {
        ok = false;
        break;
      }
      rebuilt += `{${arg.content}}`;
      i = arg.end;
    }
    if (!ok) continue;
    out += text.slice(last, m.index) + rebuilt;
    last = i;
    re.lastIndex = i;
  }
  return out + text.slice(last);
}

/** `x^2` and `x^{2}` read the same; we spell every script with braces. */
function braceScripts(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length) {
      out += ch + text[i + 1];
      i += 1;
      continue;
    }
    if ((ch === "^" || ch === "_") && text[i + 1] !== "{") {
      const arg = readArgument(text, i + 1);
      if (arg && !arg.braced) {
        out += `${ch}{${arg.content}}`;
        i = arg.end - 1;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** Replaces `\cmd{content}` by `content` for each unwrap command (outermost first, repeatedly). */
/** One compiled pattern per list of commands (the lists are a few constants). */
const UNWRAP_PATTERNS = new Map<string, RegExp>();

function unwrapCommands(text: string, commands: readonly string[], keepSpace = false): string {
  if (!text.includes("\\")) return text;
  const key = commands.join("|");
  let re = UNWRAP_PATTERNS.get(key);
  if (!re) {
    re = new RegExp(`\\\\(?:${key})\\s*\\{`, "g");
    UNWRAP_PATTERNS.set(key, re);
  }
  let result = text;
  for (let guard = 0; guard < 50; guard++) {
    re.lastIndex = 0;
    const m = re.exec(result);
    if (!m) break;
    const open = m.index + m[0].length - 1;
    const close = matchingBrace(result, open);
    if (close === -1) {
      result = result.slice(0, m.index) + result.slice(open + 1);
      continue;
    }
    const inner = result.slice(open + 1, close);
    const padded = keepSpace ? ` ${inner} ` : inner;
    result = result.slice(0, m.index) + padded + result.slice(close + 1);
  }
  return result;
}

/** Text between `\text{...}` braces that is a separator between alternatives ("or", "and"). */
const TEXT_SEPARATOR = /\\(?:text|textrm|mbox|mathrm)\s*\{\s*(?:or|and|,)\s*\}/g;

/** A trailing unit in a text command: `5 \text{ cm}^2`, `10\mathrm{kg}`. */
const TRAILING_TEXT_UNIT =
  /\s*\\(?:text|textrm|textnormal|mathrm|mbox|operatorname)\s*\{\s*[a-zA-Z][a-zA-Z ./-]*\}(?:\^\{?[0-9]\}?)?\s*$/;

/** A trailing unit removed from an answer, and what is left. */
interface Unitless {
  text: string;
  /** The unit as written (`\text{ cm}^2`, `square units`), or null. */
  unit: string | null;
}

function stripTrailingUnits(text: string): Unitless {
  let result = text;
  let unit: string | null = null;
  for (let guard = 0; guard < 5; guard++) {
    const m = TRAILING_TEXT_UNIT.exec(result);
    if (!m || m.index === 0) break;
    const before = result.slice(0, m.index);
    if (before.trim() === "") break;
    unit = unit === null ? m[0] : `${m[0]} ${unit}`;
    result = before;
  }
  // Bare unit words after a number-like head: "5 cm", "12 square units". Short answers only:
  // the lazy head makes this regex quadratic, and long answers are never "number unit".
  if (result.length > MAX_HEURISTIC_CHARS) return { text: result, unit };
  const bare = /^(.*?[0-9}])\s+([a-zA-Z]+(?:\s+[a-zA-Z]+)?)((?:\^\{?[0-9]\}?)?)\s*$/.exec(result);
  if (bare) {
    const head = bare[1]!;
    const words = bare[2]!.toLowerCase().split(/\s+/);
    const headHasVariables = /[a-zA-Z]/.test(head.replace(/\\[a-zA-Z]+/g, ""));
    // After a purely numeric head, trailing words name what is counted ("5 oranges", "12 cm").
    const countable = words.every((w) => UNIT_WORDS.has(w) || (w.length >= 2 && !NOT_UNITS.has(w)));
    if (!headHasVariables && countable) {
      unit = unit === null ? `${bare[2]}${bare[3]}` : `${bare[2]}${bare[3]} ${unit}`;
      result = head;
    }
  }
  return { text: result, unit };
}

/** Spellings of one unit, mapped to one name. */
const UNIT_ALIASES: Record<string, string> = Object.fromEntries(
  (
    [
      ["mm", "millimeter millimetre"],
      ["cm", "centimeter centimetre"],
      ["m", "meter metre"],
      ["km", "kilometer kilometre"],
      ["in", "inch inche"],
      ["ft", "foot feet"],
      ["yd", "yard"],
      ["mi", "mile"],
      ["g", "gram"],
      ["kg", "kilogram"],
      ["lb", "pound lbs"],
      ["oz", "ounce"],
      ["l", "liter litre"],
      ["ml", "milliliter millilitre"],
      ["s", "sec second"],
      ["min", "minute"],
      ["h", "hr hour hrs"],
      ["deg", "degree"],
      ["rad", "radian"],
      ["dollar", "usd"],
      ["cent", "¢"],
      ["unit", "units"],
    ] as const
  ).flatMap(([name, spellings]) => [[name, name] as const, ...spellings.split(" ").map((spelling) => [spelling, name] as const)]),
);

/**
 * One spelling per unit: `\text{ cm}^2`, `square centimeters`, `sq cm` and
 * `cm^2` are all `cm^2`; plurals are singular; unknown words stay as words.
 */
export function canonicalUnit(raw: string): string {
  let s = unwrapCommands(raw, UNWRAP_COMMANDS, true)
    .replace(/\\[a-zA-Z]+/g, " ")
    .replace(/[{}]/g, "")
    .toLowerCase()
    .trim();
  let power = "";
  const script = /\^\s*([0-9])\s*$/.exec(s);
  if (script) {
    power = `^${script[1]}`;
    s = s.slice(0, script.index).trim();
  }
  const words = s.split(/\s+/).filter((w) => w !== "" && w !== "of");
  if (words[0] === "square" || words[0] === "sq") {
    words.shift();
    power = "^2";
  } else if (words[0] === "cubic" || words[0] === "cu") {
    words.shift();
    power = "^3";
  }
  const named = words.map((w) => {
    const singular = UNIT_ALIASES[w] ?? (w.length > 3 && w.endsWith("s") ? w.slice(0, -1) : w);
    return UNIT_ALIASES[singular] ?? singular;
  });
  return `${named.join(" ")}${power}`;
}

/** The whole-answer rewrites that keep structure (commas, brackets) intact. */
export function cleanAnswer(answer: string): string {
  let s = answer.trim();
  s = replaceAll(s, UNICODE);
  // `\\frac` outside a matrix is an over-escaped `\frac`, not a row break followed by text.
  if (!s.includes("\\begin")) s = s.replace(/\\\\(?=[a-zA-Z])/g, "\\");
  s = s.replace(/\*\*/g, "").replace(/^`+|`+$/g, "");
  s = unwrapCommands(s, ["boxed", "fbox"]);
  // Currency dollars go first so that the math-mode `$` stripping below cannot eat them.
  s = s.replace(/\\\$/g, "").replace(/\$/g, "");
  // `\15` is a currency sign that lost its dollar: the number is 15.
  s = s.replace(/(?<!\\)\\(?=\d)/g, "");
  s = s.replace(/(?<!\\)\\[()[\]]/g, "");
  s = s.replace(DROPPED_COMMANDS, "");
  // `11,\! 111,\! 100`: a thousands comma with its spacing.
  s = s.replace(/(\d),\s*\\[!,:;]\s*(?=\d{3}(?!\d))/g, "$1,");
  s = s.replace(/(?<!\\)\\[!,:;>]/g, "");
  s = s.replace(/\\(?:qquad|quad)|\\(?:enspace|thinspace|medspace|thickspace)(?![a-zA-Z])|(?<!\\)\\ |~/g, " ");
  // `{,}` is how LaTeX writes a comma without list spacing; before three digits it separates thousands.
  // Between digits otherwise it is a decimal comma (`3{,}5` is 3.5).
  s = s.replace(/(\d)\{,\}(?=\d{3}(?!\d))/g, "$1").replace(/(\d)\{,\}(?=\d)/g, "$1.").replace(/\{,\}/g, ",");
  s = s.replace(/\\[dtc]frac(?![a-zA-Z])/g, "\\frac").replace(/\\[dt]binom(?![a-zA-Z])/g, "\\binom");
  s = s.replace(/\\(?:leq|leqslant)(?![a-zA-Z])/g, "\\le").replace(/\\(?:geq|geqslant)(?![a-zA-Z])/g, "\\ge");
  s = s.replace(/\\(?:neq|not\s*=)(?![a-zA-Z])/g, "\\ne").replace(/\\varnothing(?![a-zA-Z])/g, "\\emptyset");
  s = s.replace(/\\(?:leqq|le)(?![a-zA-Z])/g, "\\le").replace(/\\(?:geqq|ge)(?![a-zA-Z])/g, "\\ge");
  s = s.replace(/\\lt(?![a-zA-Z])/g, "<").replace(/\\gt(?![a-zA-Z])/g, ">");
  s = s.replace(/<=|=</g, "\\le ").replace(/>=|=>/g, "\\ge ").replace(/!=/g, "\\ne ");
  // The real line, written as a named set.
  s = s.replace(/^\\mathbb\s*\{?R\}?$/, "(-\\infty,\\infty)");
  s = s.replace(/\\langle(?![a-zA-Z])/g, "(").replace(/\\rangle(?![a-zA-Z])/g, ")");
  s = s.replace(/\\infinity(?![a-zA-Z])/g, "\\infty").replace(/(?<![\\a-zA-Z])(?:infinity|inf)(?![a-zA-Z])/gi, "\\infty");
  s = s.replace(/(?<![\\a-zA-Z])sqrt(?![a-zA-Z])/g, "\\sqrt").replace(/(?<![\\a-zA-Z])pi(?![a-zA-Z])/g, "\\pi");
  // Inside a trigonometric function a degree mark is a conversion: \sin 30^\circ is \sin(\pi/6).
  if (/\\(?:sin|cos|tan|sec|csc|cot)(?![a-zA-Z])/.test(s)) {
    s = s.replace(/(\d+(?:\.\d+)?)\s*\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![a-zA-Z]))/g, "(\\frac{\\pi}{180}\\cdot$1)");
  }
  // Degrees: the value of 30° is 30 (degrees are the unit, not a conversion to radians).
  s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![a-zA-Z])|\\degree(?![a-zA-Z])|\\circ(?![a-zA-Z])/g, "");
  s = s.replace(TEXT_SEPARATOR, ",");
  s = braceArguments(s, "frac", 2);
  s = braceArguments(s, "binom", 2);
  s = braceArguments(s, "sqrt", 1);
  s = s.trim().replace(/[.;]+$/, "").trim();
  return s;
}

/** Strips `x =`, `y=`, `f(x) =`, `\theta =`, `x \in` from the front when the rest is the value. */
export function stripAssignment(text: string): { variable: string | null; value: string } {
  // `(p, q) = (3, 2)`: a tuple of names assigned at once.
  const tuple = /^\s*(\([^()=]*\))\s*=\s*/.exec(text);
  if (tuple && isName(tuple[1]!)) {
    const rest = text.slice(tuple[0].length);
    if (rest.trim() !== "" && splitTopLevel(rest, "=").length === 1) return { variable: tuple[1]!.replace(/\s+/g, ""), value: rest };
  }
  const label = labelledConstant(text);
  if (label) return label;
  const m = /^\s*([a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?(?:\([a-zA-Z]\))?|\\[a-zA-Z]+)\s*(=|\\approx|\\in)\s*/.exec(text);
  if (!m) return { variable: null, value: text };
  const rest = text.slice(m[0].length);
  if (rest.trim() === "" || splitTopLevel(rest, "=").length > 1) return { variable: null, value: text };
  // Commands like \frac are not variables; Greek letters and \ell are.
  if (m[1]!.startsWith("\\") && !/^\\(?:alpha|beta|gamma|delta|theta|phi|varphi|lambda|mu|omega|ell|rho|sigma|tau)$/.test(m[1]!)) {
    return { variable: null, value: text };
  }
  return { variable: m[1]!.replace(/\s+/g, ""), value: rest };
}

/**
 * `AB = 4`, `|AB| = 1`, `A:B = 7:32`, `\frac{NO}{BO} = \frac{1}{\sqrt6}`: a named quantity
 * (letters combined without + or −, no digits outside subscripts) given a constant value.
 */
function labelledConstant(text: string): { variable: string; value: string } | null {
  const sides = splitTopLevel(text, "=");
  if (sides.length !== 2) return null;
  const [lhs, rhs] = [sides[0]!.trim(), sides[1]!.trim()];
  if (lhs === "" || rhs === "" || /[<>]/.test(lhs)) return null;
  const name = lhs.replace(/_\{[^{}]*\}|_[a-zA-Z0-9]/g, "");
  if (/[\d+-]|\\(?:pm|cdot|times)(?![a-zA-Z])/.test(name) || !/[a-zA-Z]/.test(name.replace(/\\[a-zA-Z]+/g, ""))) return null;
  if (/^[a-zA-Z]$/.test(name)) return null;
  const rhsLetters = rhs.replace(/\\[a-zA-Z]+/g, "").replace(/\b(?:e|i)\b/g, "");
  if (/[a-zA-Z]/.test(rhsLetters)) return null;
  return { variable: lhs.replace(/\s+/g, ""), value: rhs };
}

/** Removes the thousands commas of a whole numeral: `1,000,000.5` → `1000000.5`. */
function stripThousands(text: string): string {
  return /^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(text) ? text.replace(/,/g, "") : text;
}

/** Shifts a decimal numeral two places left without floating-point error: `12.5` → `0.125`. */
function percentOf(numeral: string): string | null {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(numeral);
  if (!m || (m[2] === "" && !m[3])) return null;
  const digits = `${m[2]}${m[3] ?? ""}`;
  const scale = (m[3] ?? "").length + 2;
  const padded = digits.padStart(scale + 1, "0");
  const whole = padded.slice(0, padded.length - scale).replace(/^0+(?=\d)/, "");
  const fraction = padded.slice(padded.length - scale).replace(/0+$/, "");
  return `${m[1] === "-" ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

function applyPercent(text: string, asFraction: boolean): string {
  if (!text.includes("%") && !/percent|pct/.test(text)) return text;
  if (text.length > MAX_HEURISTIC_CHARS) return text.replace(/\\?%/g, "");
  const m = /^(.*?)\s*(?:\\%|%|\\text\{\s*(?:percent|percentage|pct)\s*\}|\s*(?:percent|percentage|pct))\s*$/.exec(text);
  if (!m) return text.replace(/\\?%/g, "");
  const body = m[1]!.trim();
  if (!asFraction) return body;
  const shifted = percentOf(stripThousands(body));
  return shifted ?? `\\frac{${body}}{100}`;
}

/** Removes whitespace except between two letters, where it separates words or `\pi r`. */
export function collapseSpaces(text: string): string {
  return text
    .trim()
    .replace(/\s+/g, " ")
    .replace(/ (?![a-zA-Z])|(?<![a-zA-Z]) /g, "");
}

/**
 * One element of an answer (a scalar, or a tuple component) in canonical
 * form: units, assignment, percent, thousands, word numbers, whitespace.
 */
export function cleanScalar(text: string, options: NormaliseOptions = {}, keepAssignment = false): string {
  return cleanNamedScalar(text, options, keepAssignment).text;
}

/** `cleanScalar`, also reporting the variable an assignment prefix named (`y` in `y = 2x + 1`). */
export function cleanNamedScalar(
  text: string,
  options: NormaliseOptions = {},
  keepAssignment = false,
): { text: string; variable: string | null; unit: string | null } {
  let s = text.trim();
  let variable: string | null = null;
  let unit: string | null = null;
  const dropUnits = () => {
    const stripped = stripTrailingUnits(s);
    s = stripped.text;
    if (stripped.unit !== null) unit = unit === null ? stripped.unit : `${stripped.unit} ${unit}`;
  };
  // A whole-answer text command is the answer itself: \text{(A)}, \text{five}, \text{odd}.
  dropUnits();
  s = unwrapCommands(s, UNWRAP_COMMANDS, true).trim();
  dropUnits();
  if (!keepAssignment) {
    const assigned = stripAssignment(s);
    variable = assigned.variable;
    s = assigned.value.trim();
  }
  s = applyPercent(s, options.percentAsFraction ?? false);
  dropUnits();
  s = s.trim();
  const word = parseWordNumber(s.replace(/[.,;!]+$/, ""));
  if (word !== null) s = word;
  s = braceScripts(collapseSpaces(s));
  s = stripThousands(s);
  // `.5` is 0.5; a trailing `.` after a number is sentence punctuation.
  s = s.replace(/(?<![\d}])\.(\d)/g, "0.$1").replace(/(\d)\.$/, "$1");
  s = s.replace(/^\+(?=[\d\\])/, "");
  s = s.replace(/^\+?\\infty$/, "\\infty");
  // A lone choice letter in parentheses: (B) → B.
  s = s.replace(/^\(([A-E])\)$/, "$1");
  if (/^\\\{\s*\\\}$/.test(s)) s = "\\emptyset";
  return {
    text: s,
    variable: variable === null ? null : braceScripts(variable),
    unit: unit === null || s === "" ? null : canonicalUnit(unit),
  };
}

/** True when the text reads as words rather than mathematics (three or more letters in a row outside commands). */
export function isTextual(text: string): boolean {
  const bare = text.replace(/\\[a-zA-Z]+/g, " ");
  const words = bare.match(/[a-zA-Z]{3,}/g) ?? [];
  return words.some((w) => !NUMBER_WORDS.has(w.toLowerCase()));
}

/** Canonical text for comparing textual answers: case and spacing do not matter. */
export function textualKey(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
}
