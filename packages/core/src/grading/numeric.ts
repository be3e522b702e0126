/**
 * Numbers the grader can read without the CAS (integers, decimals, simple and
 * mixed fractions) and the tolerance comparison every numeric verdict uses.
 * Most answers are plain numbers, so this path keeps grading fast.
 */

/** An exact rational read from the answer text; `approximate` when a decimal point was written. */
export interface PlainNumber {
  num: bigint;
  den: bigint;
  approximate: boolean;
}

export interface Tolerance {
  relative: number;
  absolute: number;
}

const INT = String.raw`[-+]?\d+`;
const DEC = String.raw`[-+]?(?:\d+\.\d*|\.\d+|\d+)`;
const INTEGER_RE = new RegExp(`^${INT}$`);
const DECIMAL_RE = new RegExp(`^${DEC}$`);
const FRAC_RE = new RegExp(String.raw`^([-+]?)\\frac\{(${DEC})\}\{(${DEC})\}$`);
const SLASH_RE = new RegExp(`^(${DEC})/(${DEC})$`);
const MIXED_RE = new RegExp(String.raw`^([-+]?)(\d+)\\frac\{(\d+)\}\{(\d+)\}$`);

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function reduce(num: bigint, den: bigint, approximate: boolean): PlainNumber | null {
  if (den === 0n) return null;
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g, approximate };
}

function decimal(text: string): PlainNumber | null {
  if (!DECIMAL_RE.test(text)) return null;
  const negative = text.startsWith("-");
  const body = text.replace(/^[-+]/, "");
  const [whole = "", fraction = ""] = body.split(".");
  const digits = `${whole}${fraction}` || "0";
  const num = BigInt(digits) * (negative ? -1n : 1n);
  return reduce(num, 10n ** BigInt(fraction.length), body.includes("."));
}

function quotient(a: PlainNumber | null, b: PlainNumber | null, sign: string): PlainNumber | null {
  if (!a || !b || b.num === 0n) return null;
  const s = sign === "-" ? -1n : 1n;
  return reduce(s * a.num * b.den, a.den * b.num, a.approximate || b.approximate);
}

/**
 * The value of a normalised scalar that is just a number, or null. Mixed
 * numbers (`2\frac{1}{2}`) mean 2½ here, as in school answers, although the
 * CAS would read them as a product.
 */
export function parsePlainNumber(text: string): PlainNumber | null {
  if (text.length > 400) return null;
  if (INTEGER_RE.test(text) || DECIMAL_RE.test(text)) return decimal(text);
  const frac = FRAC_RE.exec(text);
  if (frac) return quotient(decimal(frac[2]!), decimal(frac[3]!), frac[1]!);
  const slash = SLASH_RE.exec(text);
  if (slash) return quotient(decimal(slash[1]!), decimal(slash[2]!), "+");
  const mixed = MIXED_RE.exec(text);
  if (mixed) {
    const whole = BigInt(mixed[2]!);
    const n = BigInt(mixed[3]!);
    const d = BigInt(mixed[4]!);
    if (d === 0n || n >= d) return null;
    const s = mixed[1] === "-" ? -1n : 1n;
    return reduce(s * (whole * d + n), d, false);
  }
  return null;
}

/**
 * A real number as mantissa × 10^exponent. Doubles overflow at 1e308 but the
 * CAS happily returns 10^19728, so comparisons go through this form.
 */
export interface Approx {
  sign: -1 | 0 | 1;
  /** In [1, 10) unless sign is 0. */
  mantissa: number;
  exponent: number;
  /** Infinite values carry sign and this flag only. */
  infinite?: boolean;
}

const ZERO: Approx = { sign: 0, mantissa: 0, exponent: 0 };

function fromDigits(sign: -1 | 1, digits: string, exponent: number): Approx {
  const trimmed = digits.replace(/^0+/, "");
  if (trimmed === "") return ZERO;
  const lead = trimmed.slice(0, 17);
  const mantissa = Number(`${lead[0]}.${lead.slice(1) || "0"}`);
  return { sign, mantissa, exponent: exponent + trimmed.length - 1 };
}

/** Reads a decimal numeral such as `-2.0035e+19728`, `12502500` or `0.5`. */
export function approxFromDecimalString(text: string): Approx | null {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const sign = m[1] === "-" ? -1 : 1;
  const whole = m[2] ?? "";
  const fraction = m[3] ?? "";
  const exp = Number(m[4] ?? "0");
  if (!Number.isFinite(exp)) return null;
  // digits d1 d2 ... with the decimal point after `whole`: value = 0.d1d2... × 10^(len(whole)+exp)
  const digits = whole + fraction;
  const leadingZeros = /^0*/.exec(digits)![0].length;
  const significant = digits.slice(leadingZeros);
  if (significant === "") return ZERO;
  return fromDigits(sign, significant, exp + whole.length - leadingZeros - significant.length);
}

export function approxFromNumber(value: number): Approx {
  if (value === 0) return ZERO;
  if (!Number.isFinite(value)) return { sign: value > 0 ? 1 : -1, mantissa: 1, exponent: 0, infinite: true };
  const [m = "0", e = "0"] = Math.abs(value).toExponential(16).split("e");
  return { sign: value > 0 ? 1 : -1, mantissa: Number(m), exponent: Number(e) };
}

export function approxFromPlain(value: PlainNumber): Approx {
  if (value.num === 0n) return ZERO;
  const sign = value.num < 0n ? -1 : 1;
  const n = (value.num < 0n ? -value.num : value.num).toString();
  const d = value.den.toString();
  // Leading 17 digits of each side keep double precision while the exponent stays exact.
  const nm = Number(`${n[0]}.${n.slice(1, 17) || "0"}`);
  const dm = Number(`${d[0]}.${d.slice(1, 17) || "0"}`);
  let mantissa = nm / dm;
  let exponent = n.length - d.length;
  if (mantissa < 1) {
    mantissa *= 10;
    exponent -= 1;
  }
  return { sign, mantissa, exponent };
}

function toNumber(a: Approx): number {
  if (a.infinite) return a.sign * Infinity;
  return a.sign * a.mantissa * 10 ** a.exponent;
}

/**
 * |a − b| ≤ max(absolute, relative × max(|a|, |b|)). The absolute term only
 * matters near zero; the relative term makes 0.333333333 match 1/3 but not 0.33.
 */
export function approxClose(a: Approx, b: Approx, tol: Tolerance): boolean {
  if (a.infinite || b.infinite) return !!a.infinite && !!b.infinite && a.sign === b.sign;
  if (a.sign === 0 || b.sign === 0) {
    const other = a.sign === 0 ? b : a;
    if (other.sign === 0) return true;
    return other.exponent < 300 && Math.abs(toNumber(other)) <= tol.absolute;
  }
  const big = Math.max(a.exponent, b.exponent);
  if (Math.abs(big) < 300) {
    const x = toNumber(a);
    const y = toNumber(b);
    return Math.abs(x - y) <= Math.max(tol.absolute, tol.relative * Math.max(Math.abs(x), Math.abs(y)));
  }
  if (a.sign !== b.sign) return false;
  // Both huge (or tiny): compare relative to the larger one, at its scale.
  const x = a.mantissa * 10 ** (a.exponent - big);
  const y = b.mantissa * 10 ** (b.exponent - big);
  return Math.abs(x - y) <= tol.relative * Math.max(x, y);
}

/**
 * Exact rationals compare exactly (10^20 and 10^20+1 differ); as soon as one
 * side was written as a decimal it is an approximation and the tolerance applies.
 */
export function plainNumbersEqual(a: PlainNumber, b: PlainNumber, tol: Tolerance): boolean {
  if (!a.approximate && !b.approximate) return a.num === b.num && a.den === b.den;
  return approxClose(approxFromPlain(a), approxFromPlain(b), tol);
}
