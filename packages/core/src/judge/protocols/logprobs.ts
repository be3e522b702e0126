/** One alternative the server reported for a generated token. */
export interface TopLogprob {
  token: string;
  logprob: number;
}

/**
 * One generated token with its log-probability and the server's top alternatives at
 * its position (OpenAI chat `logprobs.content[]`, vLLM's and SGLang's alike).
 */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top: TopLogprob[];
}
