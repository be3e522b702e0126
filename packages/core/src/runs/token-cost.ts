import { z } from "zod";

/** Largest price accepted, in USD per 1M tokens (a typo guard, far above any real price). */
export const TOKEN_PRICE_MAX = 10_000;

/** One price in USD per 1M tokens: a finite number from 0 up to `TOKEN_PRICE_MAX`. */
export const tokenPriceSchema = z
  .number({ error: "a price is a number of USD per 1M tokens" })
  .finite("a price is a finite number")
  .min(0, "a price cannot be negative")
  .max(TOKEN_PRICE_MAX, `a price is at most ${TOKEN_PRICE_MAX} USD per 1M tokens`);

/**
 * An endpoint's prices in USD per 1M tokens. Cached prompt tokens are part of the
 * prompt tokens (as OpenAI-compatible servers count them) and cost the cached price
 * when one is set, else the prompt price.
 */
export interface TokenPrices {
  promptPricePerMTokens?: number | null;
  cachedPromptPricePerMTokens?: number | null;
  completionPricePerMTokens?: number | null;
}

/** Token counters as a run keeps them; `cachedTokens` is the part of `promptTokens` served from the prefix cache. */
export interface TokenCounts {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

/** An endpoint has prices when both its prompt and completion prices are set. */
export function hasTokenPrices(prices: TokenPrices): boolean {
  return prices.promptPricePerMTokens != null && prices.completionPricePerMTokens != null;
}

/**
 * What the tokens cost in USD at these prices, or null when the endpoint has no
 * prompt or no completion price.
 */
export function tokenCostUsd(tokens: TokenCounts, prices: TokenPrices): number | null {
  const prompt = prices.promptPricePerMTokens;
  const completion = prices.completionPricePerMTokens;
  if (prompt == null || completion == null) return null;
  const cached = prices.cachedPromptPricePerMTokens ?? prompt;
  const cachedTokens = Math.min(tokens.cachedTokens, tokens.promptTokens);
  return ((tokens.promptTokens - cachedTokens) * prompt + cachedTokens * cached + tokens.completionTokens * completion) / 1_000_000;
}

/** A run's cost: a number of USD, or null and why it is not defined. */
export type RunCost = { usd: number; reason: null } | { usd: null; reason: string };

/** The endpoints a run's token counters cover, as its config snapshot holds them. */
export interface SpendingEndpoint extends TokenPrices {
  /** The endpoint's name, for messages. */
  name: string;
}

/**
 * A run's cost, defined only when every token it counted went to one endpoint
 * that had prices when the run was launched: a run counts its tokens in one set of
 * counters, so tokens of two endpoints (a chunk-reset run's policy and judge)
 * cannot be priced apart. A run that sends no request costs nothing to infer but
 * is not priced either (null), so lists do not mix it with priced runs.
 */
export function runCost(tokens: TokenCounts, endpoints: readonly SpendingEndpoint[]): RunCost {
  if (endpoints.length === 0) return { usd: null, reason: "this run sends no model requests" };
  if (endpoints.length > 1) {
    return { usd: null, reason: `tokens of ${endpoints.map((e) => `"${e.name}"`).join(" and ")} are counted together, so they cannot be priced apart` };
  }
  const endpoint = endpoints[0]!;
  const usd = tokenCostUsd(tokens, endpoint);
  if (usd === null) return { usd: null, reason: `endpoint "${endpoint.name}" had no prompt and completion prices when the run was launched` };
  return { usd, reason: null };
}
