/**
 * Cheap checks that run before the CAS is asked anything. The CAS honours its
 * deadline inside evaluation loops, but not everywhere (parsing a long string,
 * canonicalising `10^{10^{10^{10}}}`, a BigInt power): those must be refused up
 * front so a single pair can never hang the grader.
 */
import { maxNestingDepth } from "./latex";

/** Longer LaTeX is not sent to the CAS: parsing alone is ~6 µs per character and cannot be interrupted. */
export const MAX_CAS_CHARS = 4_000;

/** Deeper nesting overflows the CAS parser's recursion (≈300 nested fractions do). */
export const MAX_CAS_NESTING = 48;

/** Values with more than this many digits are refused: no sensible answer is that big. */
export const MAX_LOG10_MAGNITUDE = 100_000;

/** Exact (BigInt) evaluation is only attempted below this many digits. */
export const MAX_EXACT_LOG10 = 2_000;

export type InputGuard = "ok" | "too-long" | "too-deep";

export function guardInput(latex: string): InputGuard {
  if (latex.length > MAX_CAS_CHARS) return "too-long";
  if (maxNestingDepth(latex) > MAX_CAS_NESTING) return "too-deep";
  return "ok";
}

type Json = unknown;

const MAX_WALK_DEPTH = 200;

function log10OfNumeral(text: string): number {
  const m = /^[-+]?(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text);
  if (!m) return text.includes("Infinity") || text.includes("NaN") ? 0 : Infinity;
  const whole = (m[1] ?? "").replace(/^0+/, "");
  const exp = Number(m[3] ?? "0");
  return Math.max(0, whole.length + exp);
}

function argsOf(node: readonly Json[]): Json[] {
  return node.slice(1);
}

/**
 * An upper estimate of log10 |value| of a MathJSON expression, computed from
 * its shape without evaluating anything. Unknowns count as small numbers
 * (they are sampled in [0.5, 2.5]). Infinity means "do not evaluate".
 */
export function estimateLog10(json: Json, depth = 0): number {
  if (depth > MAX_WALK_DEPTH) return Infinity;
  if (typeof json === "number") return Number.isFinite(json) ? Math.max(0, Math.log10(Math.abs(json) || 1)) : 0;
  if (typeof json === "string") return 1;
  if (json === null || typeof json !== "object") return 0;
  if (!Array.isArray(json)) {
    const num = (json as { num?: unknown }).num;
    if (typeof num === "string") return log10OfNumeral(num);
    const fn = (json as { fn?: unknown }).fn;
    return Array.isArray(fn) ? estimateLog10(fn, depth) : 1;
  }
  const op = json[0];
  const args = argsOf(json);
  const est = (i: number) => estimateLog10(args[i], depth + 1);
  const all = () => args.map((a) => estimateLog10(a, depth + 1));
  switch (op) {
    case "Power": {
      const base = est(0);
      const exponent = est(1);
      if (exponent > 15) return Infinity;
      return Math.max(base, 0.5) * 10 ** exponent;
    }
    case "Exp": {
      const x = est(0);
      return x > 15 ? Infinity : 0.4343 * 10 ** x;
    }
    case "Factorial":
    case "Factorial2":
    case "Gamma": {
      const n = est(0);
      if (n > 15) return Infinity;
      const value = 10 ** n;
      return value * Math.log10(Math.max(value, 2));
    }
    case "Binomial": {
      const n = est(0);
      return n > 15 ? Infinity : 0.302 * 10 ** n;
    }
    case "Multiply":
    case "InvisibleOperator":
    case "Divide":
    case "Rational":
      return all().reduce((sum, x) => sum + x, 0);
    case "Add":
    case "Subtract":
    case "Sum":
    case "Product":
    default: {
      const parts = all();
      if (parts.length === 0) return 0;
      return Math.max(...parts) + Math.log10(parts.length + 1);
    }
  }
}

/** True when the MathJSON contains a parse error node. */
export function containsError(json: Json, depth = 0): boolean {
  if (depth > MAX_WALK_DEPTH) return true;
  if (!Array.isArray(json)) {
    if (json !== null && typeof json === "object") {
      const fn = (json as { fn?: unknown }).fn;
      return Array.isArray(fn) ? containsError(fn, depth) : false;
    }
    return false;
  }
  if (json[0] === "Error") return true;
  return json.some((part) => containsError(part, depth + 1));
}
