import type { SimTokenDecision, SimTopLogprob } from "../model";
import { simTokenize } from "../tokens";
import { fnv1a32 } from "../world/text";

/** VLLM's (and OpenAI's) ceiling on top_logprobs for chat completions. */
export const MAX_TOP_LOGPROBS = 20;

/** One generated token as a server reports it: its log-probability and the top alternatives at its position, best first. */
export interface SimTokenLogprob {
  token: string;
  logprob: number;
  /** Character offset of the token in the sample's text. */
  offset: number;
  top: SimTopLogprob[];
}

/** Runner-up tokens for positions the model did not decide: common words and symbols, each less likely than the last. */
const FILLERS = [" the", ",", ".", " is", "\n", " a", " to", " of", " and", " =", " in", " that", " so", " we", " this", " it", " be", " not", " 1", " 2", " step", ":"];

/** A number in [0, 1) fixed by the sample's seed and the token's position. */
function jitter(seed: number, position: number): number {
  return fnv1a32(`${seed}|${position}`) / 2 ** 32;
}

/** Alternatives other than `exclude`, sharing `mass` of probability in halving shares. */
function fillers(mass: number, count: number, exclude: ReadonlySet<string>): SimTopLogprob[] {
  const out: SimTopLogprob[] = [];
  let share = mass / 2;
  for (const token of FILLERS) {
    if (out.length >= count) break;
    if (exclude.has(token)) continue;
    out.push({ token, logprob: Math.log(share) });
    share /= 2;
  }
  return out;
}

/**
 * The log-probabilities of a finished sample's visible tokens (the server's
 * tokenizer, as usage counts them), with `topK` alternatives each. A token the
 * model decided (same offset and text) carries the model's probabilities; any
 * other gets a plausible confident value fixed by the seed and its position
 * (p between 0.78 and 0.99), its runners-up sharing the rest.
 */
export function sampleLogprobs(text: string, decisions: readonly SimTokenDecision[], topK: number, seed: number): SimTokenLogprob[] {
  const byOffset = new Map(decisions.map((decision) => [decision.at, decision]));
  const out: SimTokenLogprob[] = [];
  let offset = 0;
  simTokenize(text).forEach((token, position) => {
    const decision = byOffset.get(offset);
    if (decision && decision.token === token) {
      const top = [...decision.top].sort((a, b) => b.logprob - a.logprob);
      const chosen = top.find((alternative) => alternative.token === token)?.logprob ?? Math.log(0.5);
      // Runners-up share what the model's own alternatives leave over, if anything.
      const rest = 1 - top.reduce((sum, alternative) => sum + Math.exp(alternative.logprob), 0);
      const extra = rest > 1e-3 ? fillers(rest, Math.max(0, topK - top.length), new Set(top.map((alternative) => alternative.token))) : [];
      out.push({ token, logprob: chosen, offset, top: [...top, ...extra].slice(0, topK) });
    } else {
      const p = 0.99 - 0.21 * jitter(seed, position);
      const top = [{ token, logprob: Math.log(p) }, ...fillers(1 - p, topK - 1, new Set([token]))];
      out.push({ token, logprob: Math.log(p), offset, top: top.slice(0, topK) });
    }
    offset += token.length;
  });
  return out;
}

const bytesOf = (token: string) => [...Buffer.from(token, "utf8")];

/** OpenAI chat `choices[].logprobs`. */
export function chatLogprobsBody(tokens: readonly SimTokenLogprob[]) {
  return {
    content: tokens.map((t) => ({
      token: t.token,
      logprob: t.logprob,
      bytes: bytesOf(t.token),
      top_logprobs: t.top.map((alternative) => ({ token: alternative.token, logprob: alternative.logprob, bytes: bytesOf(alternative.token) })),
    })),
  };
}

/** OpenAI (legacy) completions `choices[].logprobs`; each top dictionary also holds the sampled token, as vLLM's does. */
export function completionLogprobsBody(tokens: readonly SimTokenLogprob[]) {
  return {
    text_offset: tokens.map((t) => t.offset),
    token_logprobs: tokens.map((t) => t.logprob),
    tokens: tokens.map((t) => t.token),
    top_logprobs: tokens.map((t) => Object.fromEntries([...t.top.map((alternative) => [alternative.token, alternative.logprob] as const), [t.token, t.logprob] as const])),
  };
}
