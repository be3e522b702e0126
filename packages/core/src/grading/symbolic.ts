/**
 * Comparison of two scalar LaTeX answers through `@cortex-js/compute-engine`.
 *
 * Order of attempts, cheapest first:
 *   1. canonical forms identical (`2\sqrt{2}` vs `\sqrt{8}`)            → symbolic
 *   2. no free variables: exact rationals compare exactly, anything else
 *      numerically within the tolerance (`\pi` vs `3.14159265`)         → numeric
 *   3. free variables: both sides evaluated at seeded pseudo-random
 *      points (`x^2+2x+1` vs `(x+1)^2`)                                 → symbolic
 *
 * Every CAS call runs inside `ce.withTimeLimit` with the pair's remaining
 * budget; a `CancellationError` becomes the "timeout" reason.
 */
import { createRng } from "../stats/random";
import { CancellationError, ComputeEngine, isFunction, isNumber } from "@cortex-js/compute-engine";
import type { Expression } from "@cortex-js/compute-engine";
import { containsError, estimateLog10, guardInput, MAX_EXACT_LOG10, MAX_LOG10_MAGNITUDE } from "./guards";
import { approxClose, approxFromDecimalString, approxFromNumber, type Approx, type Tolerance } from "./numeric";
import { remainingMs, TIMEOUT, UNPARSEABLE, type Budget, type Outcome } from "./types";

export interface CasContext {
  budget: Budget;
  tolerance: Tolerance;
}

let engine: ComputeEngine | undefined;

/**
 * One engine per process: building one costs ~90 ms. Each comparison runs in
 * its own scope so that symbols the parser declares (say `f` as a function)
 * cannot change how a later, unrelated pair is read.
 */
function getEngine(): ComputeEngine {
  engine ??= new ComputeEngine();
  return engine;
}

function isCancellation(error: unknown): boolean {
  return (
    error instanceof CancellationError ||
    (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "CancellationError")
  );
}

interface Complex {
  re: Approx;
  im: Approx;
}

const ZERO_APPROX = approxFromNumber(0);

function realOf(json: unknown): Approx | null {
  if (typeof json === "number") return approxFromNumber(json);
  if (json === "PositiveInfinity") return approxFromNumber(Infinity);
  if (json === "NegativeInfinity") return approxFromNumber(-Infinity);
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const num = (json as { num?: unknown }).num;
    if (typeof num !== "string") return null;
    if (/^[-+]?infinity$/i.test(num)) return approxFromNumber(num.startsWith("-") ? -Infinity : Infinity);
    return approxFromDecimalString(num);
  }
  return null;
}

/** The numeric value of an `N()` result, or null when it is not a (finite or infinite) number. */
function complexOf(expr: Expression): Complex | null {
  const json: unknown = expr.json;
  if (Array.isArray(json) && json[0] === "Complex") {
    const re = realOf(json[1]);
    const im = realOf(json[2]);
    return re && im ? { re, im } : null;
  }
  const re = realOf(json);
  return re ? { re, im: ZERO_APPROX } : null;
}

function complexClose(a: Complex, b: Complex, tolerance: Tolerance): boolean {
  return approxClose(a.re, b.re, tolerance) && approxClose(a.im, b.im, tolerance);
}

function isFinite(c: Complex): boolean {
  return !c.re.infinite && !c.im.infinite;
}

function isReal(c: Complex, tolerance: Tolerance): boolean {
  return approxClose(c.im, ZERO_APPROX, tolerance);
}

/** Deterministic: the same pair always samples the same points. */
function seededRandom(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.nextFloat();
}

const SAMPLE_SEED = 0x5eed_2024;
const SAMPLE_ATTEMPTS = 12;
const SAMPLES_NEEDED = 3;

/** A decimal literal written in the answer makes it an approximation, so exact comparison would be unfair. */
const HAS_DECIMAL = /\d\.\d|(?<!\d)\.\d/;

const RELATIONS = new Set(["Equal", "Less", "LessEqual", "Greater", "GreaterEqual", "NotEqual"]);

function parse(ce: ComputeEngine, latex: string): Expression | "refused" | null {
  const raw = ce.parse(latex, { form: "raw" });
  if (!raw || containsError(raw.json)) return null;
  // The raw tree is judged before canonicalisation, which may already try to compute a huge power.
  if (estimateLog10(raw.json) > MAX_LOG10_MAGNITUDE) return "refused";
  // Canonicalised from the raw tree: one parse, not two.
  const canonical = raw.canonical;
  if (!canonical || !canonical.isValid || containsError(canonical.json)) return null;
  if (estimateLog10(canonical.json) > MAX_LOG10_MAGNITUDE) return "refused";
  return canonical;
}

function compareConstants(a: Expression, b: Expression, exact: boolean, ctx: CasContext): Outcome {
  if (exact && estimateLog10(a.json) <= MAX_EXACT_LOG10 && estimateLog10(b.json) <= MAX_EXACT_LOG10) {
    // 10^{20} and 10^{20}+1 differ by less than any relative tolerance; exact values decide.
    const ea = a.evaluate();
    const eb = b.evaluate();
    if (isNumber(ea) && isNumber(eb) && ea.isRational === true && eb.isRational === true) {
      return { equal: ea.isSame(eb), reason: "numeric" };
    }
  }
  const na = complexOf(a.N());
  const nb = complexOf(b.N());
  if (na && nb) return { equal: complexClose(na, nb, ctx.tolerance), reason: "numeric" };
  if (na || nb) return { equal: false, reason: "numeric" };
  // Neither is a number (a set, a string, a boolean): compare what they evaluate to.
  return { equal: a.evaluate().isSame(b.evaluate()), reason: "symbolic" };
}

/**
 * Identity by sampling: both sides at the same seeded points. `ratio` lets
 * `2x + 2y = 2` match `x + y = 1` (the differences of the two sides agree up
 * to a constant factor).
 */
function compareBySampling(
  ce: ComputeEngine,
  a: Expression,
  b: Expression,
  variables: readonly string[],
  ratio: "none" | "any" | "positive",
  ctx: CasContext,
): Outcome {
  const random = seededRandom(SAMPLE_SEED);
  let agreed = 0;
  let factor: Complex | null = null;
  for (let attempt = 0; attempt < SAMPLE_ATTEMPTS && agreed < SAMPLES_NEEDED + 2; attempt++) {
    if (remainingMs(ctx.budget) <= 0) return TIMEOUT;
    const bindings: Record<string, Expression> = {};
    // Non-integer points away from 0 and ±1 avoid the coincidences small integers produce;
    // every other point is negative so that |x| and x, or \sqrt{x^2} and x, are told apart.
    const sign = attempt % 2 === 0 ? 1 : -1;
    for (const name of variables) bindings[name] = ce.number(sign * (Math.round((0.5 + 2 * random()) * 1e6) / 1e6));
    const va = complexOf(a.subs(bindings).N());
    const vb = complexOf(b.subs(bindings).N());
    if (!va || !vb || !isFinite(va) || !isFinite(vb)) continue;
    // Outside one side's real domain (\ln(x^2) against 2\ln x at x < 0) the point says nothing.
    if (isReal(va, ctx.tolerance) !== isReal(vb, ctx.tolerance)) continue;
    if (ratio !== "none") {
      const x = va.re.sign * va.re.mantissa * 10 ** va.re.exponent;
      const y = vb.re.sign * vb.re.mantissa * 10 ** vb.re.exponent;
      if (y === 0 || x === 0) {
        if (x !== y) return { equal: false, reason: "symbolic" };
        continue;
      }
      if (ratio === "positive" && x / y < 0) return { equal: false, reason: "symbolic" };
      const k = approxFromNumber(x / y);
      if (!factor) factor = { re: k, im: ZERO_APPROX };
      else if (!approxClose(factor.re, k, ctx.tolerance)) return { equal: false, reason: "symbolic" };
    } else if (!complexClose(va, vb, ctx.tolerance)) {
      return { equal: false, reason: "symbolic" };
    }
    agreed += 1;
  }
  if (agreed >= SAMPLES_NEEDED) return { equal: true, reason: "symbolic" };
  // Too few points where both sides are defined to call it; only identical forms count.
  return { equal: a.isSame(b), reason: "symbolic" };
}

/** A relation as `difference op 0` with op one of Equal, NotEqual, Less, LessEqual. */
function towardsLess(relation: Expression): { operator: string; difference: Expression } | null {
  if (!isFunction(relation) || relation.ops.length !== 2) return null;
  const [lhs, rhs] = relation.ops;
  if (!lhs || !rhs || !lhs.isCanonical || !rhs.isCanonical) return null;
  switch (relation.operator) {
    case "Greater":
      return { operator: "Less", difference: rhs.sub(lhs) };
    case "GreaterEqual":
      return { operator: "LessEqual", difference: rhs.sub(lhs) };
    default:
      return { operator: relation.operator, difference: lhs.sub(rhs) };
  }
}

function freeVariables(...exprs: Expression[]): string[] {
  const names = new Set<string>();
  for (const e of exprs) for (const name of e.unknowns) names.add(name);
  return [...names].sort();
}

function compareParsed(ce: ComputeEngine, a: Expression, b: Expression, exact: boolean, ctx: CasContext): Outcome {
  if (a.isSame(b)) return { equal: true, reason: "symbolic" };
  const relA = RELATIONS.has(a.operator);
  const relB = RELATIONS.has(b.operator);
  if (relA || relB) {
    if (!(relA && relB)) return { equal: false, reason: "symbolic" };
    // `a > b` is `b < a`: each relation as `lhs − rhs` against 0 with one of =, ≠, <, ≤.
    const na = towardsLess(a);
    const nb = towardsLess(b);
    if (!na || !nb || na.operator !== nb.operator) return { equal: false, reason: "symbolic" };
    // Equations and ≠ hold for any non-zero multiple of their difference; inequalities for positive ones only.
    const sign = na.operator === "Equal" || na.operator === "NotEqual" ? "any" : "positive";
    return compareBySampling(ce, na.difference, nb.difference, freeVariables(na.difference, nb.difference), sign, ctx);
  }
  const variables = freeVariables(a, b);
  if (variables.length === 0) return compareConstants(a, b, exact, ctx);
  // A sum or product whose limits are variables is meaningless at the non-integer (or negative) points
  // sampling uses: empty sums make different answers agree. Only identical forms count.
  if (hasIndexedOperator(a) || hasIndexedOperator(b)) return { equal: false, reason: "symbolic" };
  return compareBySampling(ce, a, b, variables, "none", ctx);
}

function hasIndexedOperator(expr: Expression): boolean {
  return /"(?:Sum|Product)"/.test(JSON.stringify(expr.json));
}

/** Compares two normalised scalar answers with the CAS, within the pair's budget. */
export function compareWithCas(a: string, b: string, ctx: CasContext): Outcome {
  const guards = [guardInput(a), guardInput(b)];
  if (guards.includes("too-deep")) return UNPARSEABLE;
  if (guards.includes("too-long")) return TIMEOUT;
  const ms = Math.floor(remainingMs(ctx.budget));
  if (ms <= 0) return TIMEOUT;
  const ce = getEngine();
  const exact = !HAS_DECIMAL.test(a) && !HAS_DECIMAL.test(b);
  ce.pushScope();
  let failed = false;
  try {
    return ce.withTimeLimit({ ms, label: "grading" }, () => {
      const pa = parse(ce, a);
      const pb = parse(ce, b);
      if (pa === null || pb === null) return UNPARSEABLE;
      if (pa === "refused" || pb === "refused") return TIMEOUT;
      return compareParsed(ce, pa, pb, exact, ctx);
    });
  } catch (error) {
    if (isCancellation(error)) return TIMEOUT;
    // Anything else (a RangeError from a deep recursion, an internal error) may leave the engine half-way.
    failed = true;
    return UNPARSEABLE;
  } finally {
    ce.popScope();
    if (failed) engine = undefined;
  }
}

/** Builds the engine ahead of the first comparison, so that cost is not charged to a pair's budget. */
export function warmUpCas(): void {
  getEngine();
  // The engine compiles its exact, numeric, complex and sampling paths on first use: take that cost
  // here, by comparing one pair of each kind, not on the first real pair that needs each path.
  const budget = { now: Date.now, deadline: Date.now() + 10_000 };
  const tolerance = { relative: 1e-9, absolute: 5e-7 };
  for (const [a, b] of WARM_UP_PAIRS) compareWithCas(a, b, { budget, tolerance });
}

const WARM_UP_PAIRS: ReadonlyArray<[string, string]> = [
  ["e^{i\\pi}", "-1"],
  ["\\sqrt{8}", "2\\sqrt{2}"],
  ["\\frac{1}{3}", "0.333333"],
  ["x^{2}+2x+1", "(x+1)^{2}"],
  ["\\sin(x+\\pi)", "-\\sin x"],
  ["x+y=1", "2x+2y=2"],
  ["x<1", "-x>-1"],
];
