/**
 * Grading one (gold, prediction) pair: extract, normalise, then compare the
 * two structures element by element, each scalar by the cheapest comparison
 * that can decide it (string, then plain numbers, then the CAS).
 */
import { extractAnswer, type ExtractionMode, type ExtractionRule } from "./extract";
import { splitTopLevel } from "./latex";
import { isTextual, textualKey, type NormaliseOptions } from "./normalise";
import { parsePlainNumber, plainNumbersEqual, type Tolerance } from "./numeric";
import { parseAnswer, serialiseAnswer, type AnswerNode } from "./structures";
import { compareWithCas } from "./symbolic";
import { remainingMs, TIMEOUT, UNPARSEABLE, type Budget, type GradeReason, type Outcome } from "./types";

export interface GradeOptions {
  /** Budget for the whole pair, in ms of the `now` clock (default 2000). */
  timeLimitMs?: number;
  /**
   * Which rules may find the prediction's answer (the gold answer is always read leniently):
   * `lenient` (default) tries every rule, `boxed` only boxes and explicit answer phrases.
   */
  mode?: ExtractionMode;
  /**
   * A decimal approximation matches a value when both agree to this many decimal places, as
   * Math-Verify rounds (default 6): `0.333333` ≡ `\frac13`, `3.14159` ≢ `\pi`; with 5, `3.14159` ≡ `\pi`.
   */
  decimalPlaces?: number;
  /** Relative tolerance for large magnitudes and floating-point noise (default 1e-9). */
  relativeTolerance?: number;
  /** `50\%` ≡ `0.5` when true; `50\%` ≡ `50` when false (default false). */
  percentAsFraction?: boolean;
  /** Bare comma lists such as `2, 3` are unordered (≡ `3, 2`, ≡ `\{2,3\}`) when true (default true). */
  unorderedLists?: boolean;
  /**
   * The problem's text, when known. It decides readings the answers alone cannot: a percent
   * answer and a decimal (`62.5\%` ≡ `0.625`) are the same value only when the problem does not
   * ask for a percentage (see `percentReadingAllowed`).
   */
  problem?: string;
  /** The clock; injectable so core stays free of ambient time (default `Date.now`). */
  now?: () => number;
}

export interface GradedSide {
  extracted: string | null;
  rule: ExtractionRule | null;
  normalised: string | null;
}

/**
 * How the two answers were read, when more than one reading was possible (docs/grading-known-limits.md):
 * - `unordered-list`: a bare list (`1, 2`) against a list or set, as a set of answers;
 * - `ordered-tuple`: a bare list against a parenthesised tuple (`1,2,3` and `(1, 2, 3)`), element by element in order;
 * - `equation-value-side`: the prediction `lhs = rhs` against a reference value, by its last side;
 * - `percent-as-fraction`: `62.5\%` read as `0.625`, because the problem does not ask for a percentage.
 */
export const GRADE_READINGS = ["unordered-list", "ordered-tuple", "equation-value-side", "percent-as-fraction"] as const;
export type GradeReading = (typeof GRADE_READINGS)[number];

export interface GradeResult {
  equivalent: boolean;
  reason: GradeReason;
  /** The reading that decided the verdict, when one applied (absent for a plain comparison). */
  reading?: GradeReading;
  gold: GradedSide;
  pred: GradedSide;
  elapsedMs: number;
}

export const DEFAULT_GRADE_OPTIONS: Required<Omit<GradeOptions, "now" | "problem">> = {
  timeLimitMs: 2000,
  mode: "lenient",
  decimalPlaces: 6,
  relativeTolerance: 1e-9,
  percentAsFraction: false,
  unorderedLists: true,
};

interface Context {
  budget: Budget;
  tolerance: Tolerance;
  unorderedLists: boolean;
}

/** Above this many elements, unordered collections are compared by their sorted text only. */
const MAX_MATCHED_ELEMENTS = 40;

/** How strong a positive verdict's evidence is; an equal structure reports its strongest element. */
const STRENGTH: Record<GradeReason, number> = { string: 0, numeric: 1, symbolic: 2, timeout: 3, unparseable: 3 };

function strongest(outcomes: Outcome[]): Outcome {
  let reason: GradeReason = "string";
  for (const o of outcomes) if (STRENGTH[o.reason] > STRENGTH[reason]) reason = o.reason;
  return { equal: true, reason };
}

function compareScalars(a: string, b: string, ctx: Context): Outcome {
  if (a === b) return { equal: true, reason: "string" };
  if (a === "" || b === "") return UNPARSEABLE;
  if (isTextual(a) || isTextual(b)) return { equal: textualKey(a) === textualKey(b), reason: "string" };
  // Two different single letters are two different names (choices, variables).
  if (/^[a-zA-Z]$/.test(a) && /^[a-zA-Z]$/.test(b)) return { equal: false, reason: "string" };
  const na = parsePlainNumber(a);
  const nb = parsePlainNumber(b);
  if (na && nb) return { equal: plainNumbersEqual(na, nb, ctx.tolerance), reason: "numeric" };
  return compareWithCas(a, b, { budget: ctx.budget, tolerance: ctx.tolerance });
}

type ScalarNode = Extract<AnswerNode, { kind: "scalar" }>;

/**
 * The assignment prefix is dropped so that `y = 2x + 1` matches `2x + 1`; when
 * the other side is an equation (`x + y = 1`), the prefix is put back and the
 * two equations are compared instead.
 */
function compareNamedScalars(a: ScalarNode, b: ScalarNode, ctx: Context): Outcome {
  // Units are ignored when one side has none; two different units are two different answers (5 cm, 5 m).
  if (a.unit !== undefined && b.unit !== undefined && a.unit !== b.unit) return { equal: false, reason: "string" };
  const outcome = compareScalars(a.text, b.text, ctx);
  if (outcome.equal || outcome.reason === "timeout") return outcome;
  const isEquation = (node: ScalarNode) => splitTopLevel(node.text, "=").length === 2;
  if (a.variable && !b.variable && isEquation(b)) return compareScalars(`${a.variable}=${a.text}`, b.text, ctx);
  if (b.variable && !a.variable && isEquation(a)) return compareScalars(a.text, `${b.variable}=${b.text}`, ctx);
  return outcome;
}

/** Element-wise, in order; the first difference decides. */
function compareOrdered(a: AnswerNode[], b: AnswerNode[], ctx: Context): Outcome {
  if (a.length !== b.length) return { equal: false, reason: "string" };
  const outcomes: Outcome[] = [];
  for (let i = 0; i < a.length; i++) {
    const o = compareNodes(a[i]!, b[i]!, ctx);
    if (!o.equal) return o;
    outcomes.push(o);
  }
  return strongest(outcomes);
}

/**
 * Order-free: a perfect matching between the two collections (augmenting
 * paths), so `\{1, 0.5\}` matches `\{\frac12, 1\}` even when elements are
 * only equal numerically.
 */
function compareUnordered(a: AnswerNode[], b: AnswerNode[], ctx: Context): Outcome {
  if (a.length !== b.length) return { equal: false, reason: "string" };
  const ka = a.map(serialiseAnswer);
  const kb = b.map(serialiseAnswer);
  if ([...ka].sort().join("\u0000") === [...kb].sort().join("\u0000")) return { equal: true, reason: "string" };
  if (a.length > MAX_MATCHED_ELEMENTS) return { equal: false, reason: "string" };

  const cache = new Map<number, Outcome>();
  // The most informative reason a candidate pair was unequal, reported if no matching exists.
  const seen: { failure: Outcome | null } = { failure: null };
  const equal = (i: number, j: number): boolean => {
    const key = i * b.length + j;
    let o = cache.get(key);
    if (!o) {
      o = ka[i] === kb[j] ? { equal: true, reason: "string" } : compareNodes(a[i]!, b[j]!, ctx);
      cache.set(key, o);
      if (o.reason === "timeout" || o.reason === "unparseable") seen.failure ??= o;
      else if (!o.equal && (!seen.failure || seen.failure.reason === "string")) seen.failure = o;
    }
    return o.equal;
  };
  const matchOfB = new Array<number>(b.length).fill(-1);
  const augment = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < b.length; j++) {
      if (seen[j] || !equal(i, j)) continue;
      seen[j] = true;
      if (matchOfB[j] === -1 || augment(matchOfB[j]!, seen)) {
        matchOfB[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < a.length; i++) {
    if (remainingMs(ctx.budget) <= 0) return TIMEOUT;
    if (!augment(i, new Array<boolean>(b.length).fill(false))) {
      const failure = seen.failure;
      if (failure && (failure.reason === "timeout" || failure.reason === "unparseable")) return failure;
      return { equal: false, reason: failure?.reason ?? "string" };
    }
  }
  return strongest(matchOfB.map((i, j) => cache.get(i * b.length + j) ?? { equal: true, reason: "string" }));
}

function isUnordered(node: AnswerNode, ctx: Pick<Context, "unorderedLists">): boolean {
  return node.kind === "set" || (node.kind === "list" && !node.ordered && ctx.unorderedLists);
}

/** The budget is checked where time is spent (CAS calls, matchings); string and number checks are free. */
function compareNodes(a: AnswerNode, b: AnswerNode, ctx: Context): Outcome {
  if (a.kind === "scalar" && b.kind === "scalar") return compareNamedScalars(a, b, ctx);
  // Two inequalities about different subjects (`-x > -1`, `x < 1`) compare as relations.
  const ra = relationOf(a);
  const rb = relationOf(b);
  if (ra && rb && ra.subject !== rb.subject) return compareScalars(ra.text, rb.text, ctx);
  // `1000,99` against a number is one number with a decimal comma.
  if (a.kind === "list" && a.decimal !== undefined && b.kind === "scalar") return compareScalars(a.decimal, b.text, ctx);
  if (b.kind === "list" && b.decimal !== undefined && a.kind === "scalar") return compareScalars(a.text, b.decimal, ctx);
  // `k = 45, n = 2` against `45, 2`: the values in the order of their names.
  if (a.kind === "list" && b.kind === "list" && !!a.namedValues !== !!b.namedValues) {
    const [named, bare] = a.namedValues ? [a, b] : [b, a];
    // The names' alphabetical order (x, y) or the order they were written in (`x = -5, p = \frac{14}{3}`).
    const alphabetical = compareOrdered(named.namedValues!, bare.items, ctx);
    if (alphabetical.equal || alphabetical.reason === "timeout") return alphabetical;
    const written = named.writtenValues ? compareOrdered(named.writtenValues, bare.items, ctx) : alphabetical;
    return written.equal ? written : alphabetical;
  }
  // A set of roots and a bare list of the same roots say the same thing.
  if (isUnordered(a, ctx) && isUnordered(b, ctx)) {
    return compareUnordered((a as { items: AnswerNode[] }).items, (b as { items: AnswerNode[] }).items, ctx);
  }
  if (a.kind === "list" && b.kind === "list") return compareOrdered(a.items, b.items, ctx);
  if (a.kind === "sequence" && b.kind === "sequence") {
    if (a.open !== b.open || a.close !== b.close) return { equal: false, reason: "string" };
    return compareOrdered(a.items, b.items, ctx);
  }
  if (a.kind === "union" && b.kind === "union") return compareUnordered(a.items, b.items, ctx);
  if (a.kind === "matrix" && b.kind === "matrix") {
    if (a.rows.length !== b.rows.length || a.rows.some((row, i) => row.length !== b.rows[i]!.length)) {
      return { equal: false, reason: "string" };
    }
    return compareOrdered(a.rows.flat(), b.rows.flat(), ctx);
  }
  // A vector written as a one-column (or one-row) matrix or as a parenthesised tuple is the same vector.
  const vector = asVector(a) ?? null;
  const tuple = vector ? asTuple(b) : null;
  if (vector && tuple) return compareOrdered(vector, tuple, ctx);
  // `x = 1, y = 2` is the point (1, 2): values in the order of their variable names.
  if (a.kind === "list" && a.namedValues && asTuple(b)) return compareOrdered(a.namedValues, asTuple(b)!, ctx);
  if (b.kind === "list" && b.namedValues && asTuple(a)) return compareOrdered(asTuple(a)!, b.namedValues, ctx);
  const vectorB = asVector(b);
  const tupleA = vectorB ? asTuple(a) : null;
  if (vectorB && tupleA) return compareOrdered(tupleA, vectorB, ctx);
  // `1,2,3` against `(1, 2, 3)`: a bare list of the tuple's entries, in the same order.
  const listTuple = bareListAndTuple(a, b);
  if (listTuple) return compareOrdered(listTuple[0], listTuple[1], ctx);
  // Different shapes (a tuple against a number, a set against an interval).
  return { equal: false, reason: "string" };
}

/** A bare list and a tuple (not an interval read from an inequality) of the same length, as their items. */
function bareListAndTuple(a: AnswerNode, b: AnswerNode): [AnswerNode[], AnswerNode[]] | null {
  const bare = (n: AnswerNode) => n.kind === "list" && n.decimal === undefined && !n.namedValues;
  const tuple = (n: AnswerNode) => (n.kind === "sequence" && !n.relation ? asTuple(n) : null);
  if (bare(a) && tuple(b)) return (a as { items: AnswerNode[] }).items.length === tuple(b)!.length ? [(a as { items: AnswerNode[] }).items, tuple(b)!] : null;
  if (bare(b) && tuple(a)) return (b as { items: AnswerNode[] }).items.length === tuple(a)!.length ? [tuple(a)!, (b as { items: AnswerNode[] }).items] : null;
  return null;
}

/** Which list reading compares these two shapes, if any (the `reading` of a verdict). */
function listReading(a: AnswerNode, b: AnswerNode, ctx: Pick<Context, "unorderedLists">): GradeReading | undefined {
  if (bareListAndTuple(a, b)) return "ordered-tuple";
  const bareList = (n: AnswerNode) => n.kind === "list" && n.decimal === undefined && !n.namedValues && !n.ordered && ctx.unorderedLists;
  if ((bareList(a) || bareList(b)) && isUnordered(a, ctx) && isUnordered(b, ctx)) return "unordered-list";
  return undefined;
}

/**
 * Whether a percent answer may be read as a fraction (`62.5\%` ≡ `0.625`): the problem is known and
 * does not ask for a percentage ("what percent", "as a percentage", "in %", "nearest percent").
 */
export function percentReadingAllowed(problem: string | undefined): boolean {
  if (problem === undefined || problem.trim() === "") return false;
  return !/\bper\s?cent(?:age)?s?\b|\bpct\b|(?:\bin|\bas\s+a|\bnearest)\s*(?:\\?%|\\%)|\\?%\s*\??\s*$/i.test(problem.trim());
}

function relationOf(node: AnswerNode) {
  return node.kind === "sequence" || node.kind === "union" ? node.relation : undefined;
}

function asVector(node: AnswerNode): AnswerNode[] | null {
  if (node.kind !== "matrix") return null;
  if (node.rows.length === 1) return node.rows[0]!;
  return node.rows.every((row) => row.length === 1) ? node.rows.map((row) => row[0]!) : null;
}

function asTuple(node: AnswerNode): AnswerNode[] | null {
  return node.kind === "sequence" && node.open === "(" && node.close === ")" ? node.items : null;
}

interface Side {
  graded: GradedSide;
  node: AnswerNode | null;
}

function prepare(text: string, options: NormaliseOptions, mode: ExtractionMode): Side {
  const extracted = extractAnswer(text, mode);
  if (!extracted) return { graded: { extracted: null, rule: null, normalised: null }, node: null };
  const node = parseAnswer(extracted.text, options);
  const normalised = serialiseAnswer(node);
  return { graded: { extracted: extracted.text, rule: extracted.rule, normalised }, node: normalised === "" ? null : node };
}

/**
 * Whether `pred` states the same final answer as `gold`. Both may be bare
 * answers, LaTeX, or whole responses. Returns within about `timeLimitMs`
 * (work that cannot be interrupted is refused up front, see guards.ts).
 */
export function gradeAnswer(gold: string, pred: string, options: GradeOptions = {}): GradeResult {
  const now = options.now ?? Date.now;
  const opts = { ...DEFAULT_GRADE_OPTIONS, ...stripUndefined(options) };
  const start = now();
  const normaliseOptions: NormaliseOptions = {
    percentAsFraction: opts.percentAsFraction,
    unorderedLists: opts.unorderedLists,
  };
  const empty: Side = { graded: { extracted: null, rule: null, normalised: null }, node: null };
  let g = empty;
  let p = empty;
  const finish = (outcome: Outcome, reading?: GradeReading): GradeResult => ({
    equivalent: outcome.equal,
    reason: outcome.reason,
    ...(reading ? { reading } : {}),
    gold: g.graded,
    pred: p.graded,
    elapsedMs: now() - start,
  });
  try {
    g = prepare(referenceAnswerList(gold), normaliseOptions, "lenient");
    p = prepare(pred, normaliseOptions, opts.mode);
    if (!g.node || !p.node) return finish(UNPARSEABLE);
    if (g.graded.normalised === p.graded.normalised) return finish({ equal: true, reason: "string" }, listReading(g.node, p.node, opts));
    const ctx: Context = {
      budget: { now, deadline: start + opts.timeLimitMs },
      tolerance: { relative: opts.relativeTolerance, absolute: 0.5 * 10 ** -opts.decimalPlaces },
      unorderedLists: opts.unorderedLists,
    };
    const outcome = compareNodes(g.node, p.node, ctx);
    const reading = listReading(g.node, p.node, ctx);
    if (outcome.equal || outcome.reason === "timeout") return finish(outcome, reading);
    // An answer stated as an equation (`x + y = 4027`, `E(2020, 1993) = 76`) against a reference value: its value side.
    const goldText = g.graded.extracted ?? "";
    const predText = p.graded.extracted ?? "";
    if (!goldText.includes("=")) {
      const sides = splitTopLevel(predText, "=");
      // `>=`, `<=`, `!=` are relations, not equations.
      const relation = sides.slice(0, -1).some((side) => /[<>!:]\s*$/.test(side));
      // One equation only: `x = 14, y = 15` is two statements, not a value.
      const single = splitTopLevel(predText, ",").length === 1;
      if (sides.length >= 2 && single && !relation && sides.every((side) => side.trim() !== "")) {
        const value = parseAnswer(sides[sides.length - 1]!, normaliseOptions);
        if (serialiseAnswer(value) !== "") {
          const side = compareNodes(g.node, value, ctx);
          if (side.equal) return finish(side, "equation-value-side");
          if (side.reason === "timeout") return finish(side);
        }
      }
    }
    // `62.5\%` against `0.625`: the same value when the problem does not ask for a percentage.
    if (!opts.percentAsFraction && /%/.test(goldText + predText) && percentReadingAllowed(options.problem)) {
      const asFraction: NormaliseOptions = { ...normaliseOptions, percentAsFraction: true };
      const gf = prepare(referenceAnswerList(gold), asFraction, "lenient").node;
      const pf = prepare(pred, asFraction, opts.mode).node;
      if (gf && pf) {
        const fraction = compareNodes(gf, pf, ctx);
        if (fraction.equal) return finish(fraction, "percent-as-fraction");
        if (fraction.reason === "timeout") return finish(fraction);
      }
    }
    return finish(outcome, reading);
  } catch {
    // A grader that throws stops a whole batch; input we cannot handle is "unparseable" instead.
    return finish(UNPARSEABLE);
  }
}

/**
 * OlympiadBench writes a reference with several answers as `8$,$4` or `2^{-2 / 3}$, $8`
 * (each answer in its own math span, the outer `$` removed). Read as a comma list, which is
 * order-free unless `unorderedLists` is off, as OlympiadBench's own evaluator compares them.
 */
export function referenceAnswerList(gold: string): string {
  if (gold.includes("\\boxed") || !/\$\s*,\s*\$/.test(gold)) return gold;
  const inner = gold.trim().replace(/^\$+/, "").replace(/\$+$/, "");
  return inner.split(/\$\s*,\s*\$/).map((part) => part.trim()).join(", ");
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
