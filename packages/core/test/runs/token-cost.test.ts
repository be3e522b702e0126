import { describe, expect, it } from "vitest";
import { runCost, tokenCostUsd, tokenPriceSchema } from "../../src";

const tokens = { promptTokens: 1_000_000, cachedTokens: 400_000, completionTokens: 250_000 };

describe("token cost", () => {
  it("prices uncached prompt, cached prompt and completion tokens per 1M", () => {
    expect(tokenCostUsd(tokens, { promptPricePerMTokens: 1, cachedPromptPricePerMTokens: 0.25, completionPricePerMTokens: 4 })).toBeCloseTo(0.6 + 0.1 + 1, 12);
    // Without a cached price, cached tokens cost the prompt price.
    expect(tokenCostUsd(tokens, { promptPricePerMTokens: 1, completionPricePerMTokens: 4 })).toBeCloseTo(1 + 1, 12);
    // Cached tokens never count for more than the prompt tokens.
    expect(tokenCostUsd({ promptTokens: 10, cachedTokens: 50, completionTokens: 0 }, { promptPricePerMTokens: 1e6, cachedPromptPricePerMTokens: 0, completionPricePerMTokens: 0 })).toBe(0);
    expect(tokenCostUsd(tokens, { promptPricePerMTokens: 1 })).toBeNull();
    expect(tokenCostUsd(tokens, { completionPricePerMTokens: 1, cachedPromptPricePerMTokens: 1 })).toBeNull();
  });

  it("defines a run's cost only for one priced endpoint, saying why otherwise", () => {
    expect(runCost(tokens, [{ name: "p", promptPricePerMTokens: 2, completionPricePerMTokens: 2 }])).toEqual({ usd: 2.5, reason: null });
    expect(runCost(tokens, [])).toEqual({ usd: null, reason: "this run sends no model requests" });
    expect(runCost(tokens, [{ name: "p" }]).reason).toBe('endpoint "p" had no prompt and completion prices when the run was launched');
    const mixed = [
      { name: "policy", promptPricePerMTokens: 1, completionPricePerMTokens: 1 },
      { name: "judge", promptPricePerMTokens: 1, completionPricePerMTokens: 1 },
    ];
    expect(runCost(tokens, mixed)).toEqual({ usd: null, reason: 'tokens of "policy" and "judge" are counted together, so they cannot be priced apart' });
  });

  it("accepts prices from 0 to 10,000 USD per 1M tokens", () => {
    expect(tokenPriceSchema.safeParse(0).success).toBe(true);
    expect(tokenPriceSchema.safeParse(-0.1).error?.issues[0]?.message).toBe("a price cannot be negative");
    expect(tokenPriceSchema.safeParse(10_001).success).toBe(false);
    expect(tokenPriceSchema.safeParse(Number.POSITIVE_INFINITY).success).toBe(false);
  });
});
