/**
 * Relations in answers: chained equalities (`x = 5+5+1 = 11`), inequalities
 * (`x \ge 5`, `5 \ge x`, `0 < f(x) < 1`) and `x \ne 3`. A chain of equalities
 * states its last side; an inequality whose bounds are constants states the
 * set of values of its subject, an interval (or a union for `\ne`), so it can
 * be compared with an interval answer.
 */
import { splitTopLevel } from "./latex";

export type RelationOp = "<" | "\\le" | ">" | "\\ge" | "\\ne" | "=";

/** Spellings of the relation operators, longest first (after `cleanAnswer`, `\leq` is already `\le`). */
const OP_TOKENS: ReadonlyArray<[string, RelationOp]> = [
  ["\\le", "\\le"],
  ["\\ge", "\\ge"],
  ["\\ne", "\\ne"],
  ["\\lt", "<"],
  ["\\gt", ">"],
  ["<=", "\\le"],
  [">=", "\\ge"],
  ["=<", "\\le"],
  ["=>", "\\ge"],
  ["!=", "\\ne"],
  ["<", "<"],
  [">", ">"],
  ["=", "="],
];

export interface RelationChain {
  terms: string[];
  ops: RelationOp[];
}

/**
 * Splits `text` at top-level relation operators, or returns null when it has
 * none. Operators inside brackets, braces and environments are left alone.
 */
export function splitRelation(text: string): RelationChain | null {
  if (!/[<>=]|\\(?:le|ge|ne|lt|gt)(?![a-zA-Z])/.test(text)) return null;
  const terms: string[] = [];
  const ops: RelationOp[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (depth === 0 && (ch === "\\" || ch === "<" || ch === ">" || ch === "=" || ch === "!")) {
      const token = OP_TOKENS.find(([spelling]) => text.startsWith(spelling, i) && (!spelling.startsWith("\\") || !/[a-zA-Z]/.test(text[i + spelling.length] ?? "")));
      if (token) {
        terms.push(text.slice(last, i).trim());
        ops.push(token[1]);
        i += token[0].length;
        last = i;
        continue;
      }
    }
    if (ch === "\\") {
      const next = text[i + 1];
      if (next === "{" || next === "(" || next === "[") depth += 1;
      else if (next === "}" || next === ")" || next === "]") depth -= 1;
      else if (text.startsWith("\\begin{", i)) depth += 1;
      else if (text.startsWith("\\end{", i)) depth -= 1;
      const word = /^\\(?:[a-zA-Z]+|.)?/.exec(text.slice(i, i + 40));
      i += Math.max(1, word?.[0].length ?? 1);
      continue;
    }
    if (ch === "(" || ch === "[" || ch === "{") depth += 1;
    else if (ch === ")" || ch === "]" || ch === "}") depth -= 1;
    i += 1;
  }
  if (ops.length === 0) return null;
  terms.push(text.slice(last).trim());
  if (terms.some((t) => t === "")) return null;
  return { terms, ops };
}

/** A name an answer assigns to: `x`, `x_1`, `f(x)`, `\theta`, `(p, q)`. */
export function isName(text: string): boolean {
  const t = text.trim();
  if (/^[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?(?:'*)(?:\([a-zA-Z](?:,\s*[a-zA-Z])*\))?$/.test(t)) return true;
  if (/^\\(?:alpha|beta|gamma|delta|theta|phi|varphi|lambda|mu|omega|ell|rho|sigma|tau)$/.test(t)) return true;
  // A tuple of names: `(p, q) = (3, 2)`.
  const tuple = /^\((.*)\)$/.exec(t);
  return !!tuple && splitTopLevel(tuple[1]!, ",").length >= 2 && splitTopLevel(tuple[1]!, ",").every((part) => isName(part));
}

/**
 * The side a chain of equalities states: `x = 5+5+1 = 11` is `x = 11`,
 * `1 = \zzz = x = 0` is `0`, and a value after `\approx` only approximates the
 * exact one before it (`x = \frac13 \approx 0.33` is `x = \frac13`).
 * Returns the text unchanged when it is not a chain of three or more sides.
 */
export function lastSideOfChain(text: string): string {
  const approx = splitTopLevel(text, "\\approx");
  let body = text;
  if (approx.length > 1 && approx[0]!.trim() !== "") {
    // `x \approx 11` keeps its value; `x = \frac13 \approx 0.33` keeps the exact value.
    const head = approx[0]!.trim();
    body = splitTopLevel(head, "=").length > 1 ? head : `${head}=${approx[approx.length - 1]!.trim()}`;
  }
  // `a = 1, b = 2` is a list of assignments, not a chain.
  if (splitTopLevel(body, ",").length > 1 || splitTopLevel(body, ";").length > 1) return body;
  const chain = splitRelation(body);
  if (!chain || chain.ops.some((op) => op !== "=")) return body;
  const first = chain.terms[0]!;
  // `\frac{3}{16} = 0.0011_2`, `5 + 15 = 20`: a computation states its result.
  const constant = (term: string) => !/[a-zA-Z]/.test(term.replace(/\\[a-zA-Z]+/g, ""));
  if (chain.terms.length === 2 && constant(first) && constant(chain.terms[1]!)) return chain.terms[1]!;
  if (chain.terms.length < 3) return body;
  const last = chain.terms[chain.terms.length - 1]!;
  return isName(first) ? `${first}=${last}` : last;
}

export interface Bound {
  value: string;
  inclusive: boolean;
}

/** What an inequality says about its subject: lower and upper bounds (null: unbounded), or "all but" a value. */
export type RelationSet =
  | { kind: "interval"; subject: string; lower: Bound | null; upper: Bound | null }
  | { kind: "except"; subject: string; value: string };

const letters = (text: string): Set<string> => new Set(text.replace(/\\[a-zA-Z]+/g, " ").match(/[a-zA-Z]/g) ?? []);

/** Constant with respect to the subject: shares none of its letters. */
function isConstantFor(bound: string, subject: string): boolean {
  const subjectLetters = letters(subject);
  for (const letter of letters(bound)) if (subjectLetters.has(letter)) return false;
  return true;
}

const FLIP: Record<RelationOp, RelationOp> = { "<": ">", ">": "<", "\\le": "\\ge", "\\ge": "\\le", "\\ne": "\\ne", "=": "=" };

/**
 * The set an inequality describes, when its bounds are constants: `x > 5` is
 * (5, ∞) for x, `5 \ge x` is (−∞, 5], `0 < f(x) \le 1` is (0, 1] for f(x),
 * `x \ne 3` is everything but 3. Null for equations, for chains that are not
 * of the form `a < E < b`, and when a bound depends on the subject.
 */
export function relationSet(text: string): RelationSet | null {
  const chain = splitRelation(text);
  if (!chain || chain.ops.includes("=")) return null;
  if (chain.ops.length === 1) {
    let [left, right] = chain.terms as [string, string];
    let op = chain.ops[0]!;
    // The subject is the side with letters: `5 \ge x` reads as `x \le 5`.
    if (letters(left).size === 0 && letters(right).size > 0) {
      [left, right] = [right, left];
      op = FLIP[op];
    }
    if (!isConstantFor(right, left)) return null;
    if (op === "\\ne") return { kind: "except", subject: left, value: right };
    const bound = { value: right, inclusive: op === "\\le" || op === "\\ge" };
    return op === "<" || op === "\\le"
      ? { kind: "interval", subject: left, lower: null, upper: bound }
      : { kind: "interval", subject: left, lower: bound, upper: null };
  }
  if (chain.ops.length === 2 && !chain.ops.includes("\\ne")) {
    const [a, subject, b] = chain.terms as [string, string, string];
    const [op1, op2] = chain.ops as [RelationOp, RelationOp];
    const rising = (op: RelationOp) => op === "<" || op === "\\le";
    if (rising(op1) !== rising(op2)) return null;
    if (!isConstantFor(a, subject) || !isConstantFor(b, subject)) return null;
    const low = rising(op1) ? { value: a, inclusive: op1 === "\\le" } : { value: b, inclusive: op2 === "\\ge" };
    const high = rising(op1) ? { value: b, inclusive: op2 === "\\le" } : { value: a, inclusive: op1 === "\\ge" };
    return { kind: "interval", subject, lower: low, upper: high };
  }
  return null;
}
