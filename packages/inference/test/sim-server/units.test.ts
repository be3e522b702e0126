import { describe, expect, it } from "vitest";
import { PrefixCache, promptBlockHashes } from "../../src/sim/server/prefix-cache";
import { finishSample, replaceSampleText, visibleChars } from "../../src/sim/server/sample-text";
import { simTokenize } from "../../src/sim/tokens";

describe("finishSample", () => {
  it("keeps a text that ends by itself", () => {
    const sample = finishSample("The answer is 42.", 100, []);
    expect(sample).toMatchObject({ text: "The answer is 42.", finishReason: "stop", stopReason: null, completionTokens: 5 });
    expect([0, 1, 2, 5].map((k) => visibleChars(sample, k))).toEqual([0, 3, 10, 17]);
  });

  it("picks the stop string completed first, cutting before it", () => {
    const sample = finishSample("alpha beta</chunk> gamma END", 100, ["END", "</chunk>"]);
    expect(sample).toMatchObject({ text: "alpha beta", stopReason: "</chunk>", finishReason: "stop" });
    expect(sample.completionTokens).toBe(simTokenize("alpha beta</chunk>").length);
    // Streaming never shows a part of the stop string.
    for (let k = 0; k <= sample.completionTokens; k++) expect(visibleChars(sample, k)).toBeLessThanOrEqual(10);
  });

  it("ignores a stop string that only completes after max_tokens", () => {
    expect(finishSample("one two three four", 2, ["three"])).toMatchObject({ text: "one two", finishReason: "length", completionTokens: 2 });
    expect(finishSample("one two three four", 2, ["", "two"])).toMatchObject({ text: "one ", finishReason: "stop", stopReason: "two" });
  });

  it("keeps the token count when the text is replaced", () => {
    const sample = replaceSampleText(finishSample("a b c</s>", 100, ["</s>"]), "x y z");
    expect(sample).toMatchObject({ text: "x y z", completionTokens: 7 }); // a, " b", " c", "<", "/", "s", ">"
    expect([1, 3, 4, 7].map((k) => visibleChars(sample, k))).toEqual([1, 5, 5, 5]);
  });
});

describe("PrefixCache", () => {
  const tokens = (n: number, tag = "t") => Array.from({ length: n }, (_, i) => ` ${tag}${String.fromCharCode(97 + (i % 26))}`);

  it("chains block hashes so equal blocks after different prefixes differ", () => {
    const a = promptBlockHashes("m", [...tokens(16, "x"), ...tokens(16)]);
    const b = promptBlockHashes("m", [...tokens(16, "y"), ...tokens(16)]);
    expect(a).toHaveLength(2);
    expect(a[1]).not.toBe(b[1]);
    expect(promptBlockHashes("other-model", tokens(16))).not.toEqual(promptBlockHashes("m", tokens(16)));
    expect(promptBlockHashes("m", tokens(15))).toEqual([]);
  });

  it("hits leading whole blocks, never the block holding the last prompt token", () => {
    const cache = new PrefixCache(1_000);
    const prompt = tokens(40);
    expect(cache.admit(promptBlockHashes("m", prompt), 40)).toBe(0);
    expect(cache.admit(promptBlockHashes("m", prompt), 40)).toBe(32);
    const exact = tokens(32, "e");
    cache.admit(promptBlockHashes("m", exact), 32);
    expect(cache.admit(promptBlockHashes("m", exact), 32)).toBe(16);
  });

  it("evicts least recently used blocks, tails before heads", () => {
    const cache = new PrefixCache(64); // 4 blocks
    const first = promptBlockHashes("m", tokens(49, "a")); // 3 blocks
    cache.admit(first, 49);
    cache.admit(promptBlockHashes("m", tokens(33, "b")), 33); // 2 more: evicts first's tail block
    expect(cache.size).toBe(4);
    expect(cache.admit(first, 49)).toBe(32);
  });

  // 1,500 blocks: past the first allocation of slots (1,024), so the cache grows while it fills.
  it.each([
    { capacityBlocks: 40, chains: 30, steps: 5000 },
    { capacityBlocks: 1500, chains: 700, steps: 8000 },
  ])("hits exactly what a plain least-recently-used list of $capacityBlocks blocks holds, through many evictions and re-admissions", ({ capacityBlocks, chains, steps }) => {
    const cache = new PrefixCache(capacityBlocks * 16);
    const reference: number[] = []; // least recent first
    // mulberry32: every residue is reached (the low bits of a power-of-two LCG repeat too soon to fill 1,500 blocks).
    let state = 7;
    const random = (n: number) => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    for (let step = 0; step < steps; step++) {
      // Prompts of 1–6 blocks from a small vocabulary of chains, so blocks are shared, re-admitted and evicted.
      const hashes = Array.from({ length: 1 + random(6) }, (_, i) => 1000 * random(chains) + i);
      const promptTokens = hashes.length * 16 + 1;
      let expected = 0;
      while (expected < hashes.length && reference.includes(hashes[expected]!)) expected++;
      expect(cache.admit(hashes, promptTokens)).toBe(expected * 16);
      for (let i = hashes.length - 1; i >= 0; i--) {
        const at = reference.indexOf(hashes[i]!);
        if (at >= 0) reference.splice(at, 1);
        reference.push(hashes[i]!);
      }
      while (reference.length > capacityBlocks) reference.shift();
      expect(cache.size).toBe(reference.length);
    }
    expect(cache.size).toBe(capacityBlocks); // filled, so later admissions evicted
    cache.clear();
    expect(cache.admit([1, 2], 33)).toBe(0);
    expect(cache.admit([1, 2], 33)).toBe(32);
  });
});
