import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRng, sampleWithoutReplacement, seedToUint64, shuffle } from "../../src/stats";

describe("seeded PRNG (xoshiro128** seeded by splitmix64)", () => {
  // Reference values from Vigna's C code (xoshiro128starstar.c, splitmix64.c):
  // splitmix64 seeded with the 64-bit seed gives two outputs u, v; the state is
  // s = [lo32(u), hi32(u), lo32(v), hi32(v)]; string seeds are first hashed with
  // 64-bit FNV-1a over their UTF-8 bytes. Compiled with gcc and run once; a
  // change here changes every stored seeded result.
  it.each([
    [42, [1776835114, 4165204688, 17111135, 2317295270, 2792088233]],
    [0, [3737715805, 2584255861, 2876756834, 3286328325, 1553311962]],
    [-1, [477689756, 2493998634, 555695776, 607808419, 61340979]],
    ["stepwiser", [2714222736, 3273412306, 563331469, 2851831260, 3056688483]],
    ["héllo ∑ 𝑥", [4192415879, 3511463046, 441963630, 3361215450, 3451587419]],
  ] as const)("seed %j gives the reference stream", (seed, expected) => {
    const rng = createRng(seed);
    expect(Array.from({ length: 5 }, () => rng.nextUint32())).toEqual(expected);
  });

  it("builds floats from 27 + 26 bits of two draws", () => {
    // seed 42: ((1776835114 >>> 5) · 2^26 + (4165204688 >>> 6)) / 2^53
    //        = (55526097 · 67108864 + 65081323) / 9007199254740992 = 0.4137016681565887
    expect(createRng(42).nextFloat()).toBe(0.4137016681565887);
  });

  it("maps negative seeds by two's complement and rejects non-integers", () => {
    expect(seedToUint64(-1)).toBe(2n ** 64n - 1n);
    expect(() => createRng(0.5)).toThrow(/safe integer/);
    expect(() => createRng(Number.NaN)).toThrow(/safe integer/);
  });

  it("gives different streams for different seeds and the same stream for the same seed", () => {
    const draw = (seed: number | string) => {
      const rng = createRng(seed);
      return Array.from({ length: 4 }, () => rng.nextUint32());
    };
    expect(draw("a")).toEqual(draw("a"));
    expect(draw(1)).not.toEqual(draw(2));
    expect(draw("a")).not.toEqual(draw("b"));
  });

  it("keeps floats in [0, 1) and ints in [0, max)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 2 ** 32 }), (seed, max) => {
        const rng = createRng(seed);
        for (let i = 0; i < 20; i++) {
          const x = rng.nextFloat();
          expect(x >= 0 && x < 1).toBe(true);
          const k = rng.nextInt(max);
          expect(Number.isInteger(k) && k >= 0 && k < max).toBe(true);
        }
      }),
    );
  });

  it("draws nextInt without visible bias", () => {
    // 30 000 draws over 3 values: each count ≈ 10 000 with sd √(30000·⅓·⅔) ≈ 82;
    // ±500 is > 6 sd, so only a real bias fails this.
    const rng = createRng("bias");
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[rng.nextInt(3)]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it("rejects impossible nextInt bounds", () => {
    const rng = createRng(1);
    for (const bad of [0, -1, 1.5, 2 ** 32 + 1]) expect(() => rng.nextInt(bad)).toThrow(RangeError);
  });

  it("fillInts draws exactly the numbers of successive nextInt calls and continues the stream", () => {
    // 3e9 rejects ~30 % of raw draws, so the rejection loop is exercised; 2^32 and 1 are the edges.
    for (const bound of [1, 7, 100_000, 3_000_000_001, 2 ** 32]) {
      const one = createRng(`fill-${bound}`);
      const many = createRng(`fill-${bound}`);
      const expected = Array.from({ length: 5000 }, () => one.nextInt(bound));
      const filled = new Uint32Array(5000);
      many.fillInts(filled, bound);
      expect(Array.from(filled)).toEqual(expected);
      expect(many.nextUint32()).toBe(one.nextUint32());
    }
    const rng = createRng(1);
    for (const bad of [0, 1.5, 2 ** 32 + 1]) expect(() => rng.fillInts(new Uint32Array(1), bad)).toThrow(RangeError);
    expect(() => rng.fillInts(new Int32Array(1), 2 ** 32)).toThrow(RangeError);
  });
});

describe("shuffle and sampling", () => {
  it("shuffle returns a permutation and leaves the input alone", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.oneof(fc.integer(), fc.string()), (items, seed) => {
        const copy = items.slice();
        const out = shuffle(items, seed);
        expect(items).toEqual(copy);
        expect(out).not.toBe(items);
        expect([...out].sort((a, b) => a - b)).toEqual([...items].sort((a, b) => a - b));
      }),
    );
  });

  it("shuffle is reproducible per seed and actually moves things", () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    expect(shuffle(items, 7)).toEqual(shuffle(items, 7));
    expect(shuffle(items, 7)).not.toEqual(items);
    expect(shuffle(items, 7)).not.toEqual(shuffle(items, 8));
  });

  it("sample without replacement takes distinct positions", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 50 }).chain((items) =>
          fc.tuple(fc.constant(items), fc.integer({ min: 0, max: items.length }), fc.integer()),
        ),
        ([items, count, seed]) => {
          // Distinct positions, not values: tag each item with its index.
          const tagged = items.map((value, index) => ({ value, index }));
          const sample = sampleWithoutReplacement(tagged, count, seed);
          expect(sample).toHaveLength(count);
          expect(new Set(sample.map((s) => s.index)).size).toBe(count);
          for (const s of sample) expect(tagged[s.index]).toBe(s);
        },
      ),
    );
  });

  it("sample of everything is a permutation; oversampling is refused", () => {
    expect(sampleWithoutReplacement([1, 2, 3], 3, 5).sort()).toEqual([1, 2, 3]);
    expect(() => sampleWithoutReplacement([1, 2, 3], 4, 5)).toThrow(RangeError);
    expect(() => sampleWithoutReplacement([1, 2, 3], -1, 5)).toThrow(RangeError);
  });

  it("continues a shared generator instead of restarting it", () => {
    const rng = createRng(3);
    const first = shuffle([1, 2, 3, 4, 5, 6], rng);
    const second = shuffle([1, 2, 3, 4, 5, 6], rng);
    expect(first).toEqual(shuffle([1, 2, 3, 4, 5, 6], 3));
    // The second call draws later numbers, so it is (almost surely) another order.
    expect(second).not.toEqual(first);
  });
});
