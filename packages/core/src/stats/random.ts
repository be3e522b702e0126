/**
 * Seeded pseudo-random numbers, so every sampled training set, shuffle and
 * bootstrap interval can be reproduced from the seed recorded next to it.
 *
 * Generator: xoshiro128** (Blackman & Vigna), 32-bit state words so it runs on
 * plain JS numbers with `Math.imul`. Its 128-bit state is filled from the seed
 * by splitmix64, the seeding Vigna recommends: nearby seeds (1, 2, 3…) then
 * still start from unrelated states. Not for cryptography.
 */

/** A number (a safe integer) or a string; strings are hashed, so "run-42" is a valid seed. */
export type Seed = number | string;

export interface Rng {
  /** Uniform integer in [0, 2^32). */
  nextUint32(): number;
  /** Uniform float in [0, 1) with 53 random bits. */
  nextFloat(): number;
  /** Uniform integer in [0, maxExclusive), without modulo bias; 1 ≤ maxExclusive ≤ 2^32. */
  nextInt(maxExclusive: number): number;
  /**
   * Fills `target` with `target.length` successive `nextInt(maxExclusive)` draws
   * (the same numbers, the generator left where those calls leave it), several
   * times faster: for resampling loops that draw millions of indices.
   */
  fillInts(target: Int32Array | Uint32Array, maxExclusive: number): void;
  /**
   * Draws `codes.length` successive `nextInt(codes.length)` (the same numbers,
   * the generator left where those calls leave it) and adds one to
   * `counts[codes[drawn]]` for each, without storing the draws: one bootstrap
   * resample of items tallied by a code per item.
   */
  tallyInts(codes: ArrayLike<number>, counts: Int32Array): void;
}

const MASK_64 = (1n << 64n) - 1n;
const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;

/**
 * FNV-1a over the UTF-8 bytes, so the same string seed gives the same stream
 * in any language that can encode UTF-8 (UTF-16 code units would tie the
 * stream to JavaScript's string representation).
 */
function fnv1a64Utf8(text: string): bigint {
  let hash = FNV64_OFFSET;
  const feed = (byte: number) => {
    hash = ((hash ^ BigInt(byte)) * FNV64_PRIME) & MASK_64;
  };
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x80) feed(cp);
    else if (cp < 0x800) {
      feed(0xc0 | (cp >> 6));
      feed(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      feed(0xe0 | (cp >> 12));
      feed(0x80 | ((cp >> 6) & 0x3f));
      feed(0x80 | (cp & 0x3f));
    } else {
      feed(0xf0 | (cp >> 18));
      feed(0x80 | ((cp >> 12) & 0x3f));
      feed(0x80 | ((cp >> 6) & 0x3f));
      feed(0x80 | (cp & 0x3f));
    }
  }
  return hash;
}

/**
 * The 64-bit value a seed stands for. Numbers must be safe integers: a float
 * seed such as `Math.random()` could not be written down and replayed exactly.
 * Negative integers map by two's complement.
 */
export function seedToUint64(seed: Seed): bigint {
  if (typeof seed === "string") return fnv1a64Utf8(seed);
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`seed must be a safe integer or a string, got ${seed}`);
  }
  return BigInt.asUintN(64, BigInt(seed));
}

function splitmix64(state: bigint): { state: bigint; value: bigint } {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK_64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
  return { state: next, value: z ^ (z >> 31n) };
}

const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));

class Xoshiro128StarStar implements Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: Seed) {
    const first = splitmix64(seedToUint64(seed));
    const second = splitmix64(first.state);
    this.s0 = Number(first.value & 0xffffffffn) | 0;
    this.s1 = Number(first.value >> 32n) | 0;
    this.s2 = Number(second.value & 0xffffffffn) | 0;
    this.s3 = Number(second.value >> 32n) | 0;
    // The all-zero state is the generator's one fixed point.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9);
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result >>> 0;
  }

  nextFloat(): number {
    // 27 + 26 bits fill a double's 53-bit mantissa; a single 32-bit draw would
    // leave most doubles in [0, 1) unreachable.
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  nextInt(maxExclusive: number): number {
    if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > 2 ** 32) {
      throw new RangeError(`nextInt bound must be an integer in [1, 2^32], got ${maxExclusive}`);
    }
    // Rejecting the top partial block of 2^32 keeps every residue equally likely.
    const limit = 2 ** 32 - (2 ** 32 % maxExclusive);
    let x = this.nextUint32();
    while (x >= limit) x = this.nextUint32();
    return x % maxExclusive;
  }

  fillInts(target: Int32Array | Uint32Array, maxExclusive: number): void {
    if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > 2 ** 32) {
      throw new RangeError(`nextInt bound must be an integer in [1, 2^32], got ${maxExclusive}`);
    }
    if (maxExclusive > 2 ** 31 && target instanceof Int32Array) throw new RangeError(`an Int32Array cannot hold draws below ${maxExclusive}`);
    const limit = 2 ** 32 - (2 ** 32 % maxExclusive);
    // nextUint32 with the state in locals.
    let { s0, s1, s2, s3 } = this;
    for (let i = 0; i < target.length; i++) {
      let x: number;
      do {
        x = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
      } while (x >= limit);
      // x % maxExclusive without a floating-point remainder (exact: x < 2^32, so x / maxExclusive is never rounded up to the next integer).
      target[i] = x - Math.floor(x / maxExclusive) * maxExclusive;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  tallyInts(codes: ArrayLike<number>, counts: Int32Array): void {
    const n = codes.length;
    if (n === 0) return;
    if (n > 2 ** 32) throw new RangeError(`nextInt bound must be an integer in [1, 2^32], got ${n}`);
    const limit = 2 ** 32 - (2 ** 32 % n);
    // x % n by a multiplication with 1/n, corrected by one step when rounding lands on a neighbouring quotient (exact: every product stays below 2^53).
    const inverse = 1 / n;
    let { s0, s1, s2, s3 } = this;
    for (let i = 0; i < n; i++) {
      let x: number;
      do {
        x = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
      } while (x >= limit);
      let r = x - Math.floor(x * inverse) * n;
      if (r < 0) r += n;
      else if (r >= n) r -= n;
      counts[codes[r]!]! += 1;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }
}

export function createRng(seed: Seed): Rng {
  return new Xoshiro128StarStar(seed);
}

/** Accepts a generator to continue its stream, or a seed to start a fresh one. */
export type RngOrSeed = Rng | Seed;

function asRng(source: RngOrSeed): Rng {
  return typeof source === "number" || typeof source === "string" ? createRng(source) : source;
}

/** Fisher–Yates shuffle into a new array; the input is left untouched. */
export function shuffle<T>(items: readonly T[], rng: RngOrSeed): T[] {
  const random = asRng(rng);
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.nextInt(i + 1);
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}

/**
 * `count` distinct positions of `items`, uniformly at random, by a partial
 * Fisher–Yates shuffle (so cost is O(items) copy + O(count) draws). The result
 * is in random order, not input order.
 */
export function sampleWithoutReplacement<T>(items: readonly T[], count: number, rng: RngOrSeed): T[] {
  if (!Number.isInteger(count) || count < 0 || count > items.length) {
    throw new RangeError(`sample size must be an integer in [0, ${items.length}], got ${count}`);
  }
  const random = asRng(rng);
  const pool = items.slice();
  for (let i = 0; i < count; i++) {
    const j = i + random.nextInt(pool.length - i);
    const tmp = pool[i]!;
    pool[i] = pool[j]!;
    pool[j] = tmp;
  }
  return pool.slice(0, count);
}

/**
 * A non-negative 30-bit seed derived from labelled parts (run seed, item id, …):
 * the same parts always give the same seed, in any database, and it leaves room
 * for `seed + i` per sample within a 32-bit signed seed field.
 */
export function derivedSeed(...parts: ReadonlyArray<string | number>): number {
  return createRng(parts.join(":")).nextUint32() & 0x3fffffff;
}
