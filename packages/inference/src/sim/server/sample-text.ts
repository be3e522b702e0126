import { simTokenize } from "../tokens";

/** One choice after the server's own post-processing of the model's text. */
export interface FinishedSample {
  /** What the client receives. */
  text: string;
  finishReason: "stop" | "length";
  /** The stop string that ended the sample; null when the text ended or max_tokens cut it. */
  stopReason: string | null;
  /** Tokens decoded, including those of the stop string (which the client never sees), as vLLM counts them. */
  completionTokens: number;
  /** tokenEnds[k] = characters of `text` covered by its first k + 1 tokens, for streaming at token pace. */
  tokenEnds: number[];
}

function cumulativeEnds(tokens: readonly string[], count: number): number[] {
  const ends = new Array<number>(count);
  let end = 0;
  for (let i = 0; i < count; i++) {
    end += tokens[i]!.length;
    ends[i] = end;
  }
  return ends;
}

/**
 * Applies max_tokens and stop strings the way vLLM's incremental detokenizer
 * does: the sample ends at the first token that completes any stop string
 * (ties go to the earlier string in the list), the text is cut before that
 * string, and a stop string completed within max_tokens wins over "length".
 */
export function finishSample(modelText: string, maxTokens: number, stop: readonly string[]): FinishedSample {
  const tokens = simTokenize(modelText);
  const limit = Math.min(tokens.length, maxTokens);
  const ends = cumulativeEnds(tokens, limit);
  const decodedText = modelText.slice(0, limit > 0 ? ends[limit - 1] : 0);

  let stopToken = -1;
  let stopAt = -1;
  let stopString: string | null = null;
  for (const candidate of stop) {
    if (candidate.length === 0) continue;
    const at = decodedText.indexOf(candidate);
    if (at < 0) continue;
    const end = at + candidate.length;
    let token = 0;
    while (ends[token]! < end) token++;
    if (stopToken < 0 || token < stopToken) {
      stopToken = token;
      stopAt = at;
      stopString = candidate;
    }
  }
  if (stopString !== null) {
    const text = decodedText.slice(0, stopAt);
    return {
      text,
      finishReason: "stop",
      stopReason: stopString,
      completionTokens: stopToken + 1,
      tokenEnds: ends.slice(0, stopToken + 1).map((e) => Math.min(e, text.length)),
    };
  }
  return {
    text: decodedText,
    finishReason: tokens.length > maxTokens ? "length" : "stop",
    stopReason: null,
    completionTokens: limit,
    tokenEnds: ends,
  };
}

/** Same finish and token count, different visible text (the garbage fault). */
export function replaceSampleText(sample: FinishedSample, text: string): FinishedSample {
  const tokens = simTokenize(text);
  const ends = cumulativeEnds(tokens, tokens.length);
  // Streaming maps decoded tokens to visible characters; pad so every decoded token maps somewhere.
  while (ends.length < sample.completionTokens) ends.push(text.length);
  return { ...sample, text, tokenEnds: ends.slice(0, Math.max(sample.completionTokens, 0)) };
}

/** Characters of the sample's text visible once `decoded` tokens are out. */
export function visibleChars(sample: FinishedSample, decoded: number): number {
  if (decoded <= 0 || sample.tokenEnds.length === 0) return 0;
  if (decoded >= sample.completionTokens) return sample.text.length;
  return sample.tokenEnds[Math.min(decoded, sample.tokenEnds.length) - 1]!;
}
