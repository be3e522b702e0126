import { JUDGE_PROTOCOLS, type JudgeProtocolId } from "../judge/protocols/registry";
import { CHAT_TEMPLATE_TOKENS } from "./annotate-cost";
import { ROLLOUT_STORAGE_MODEL, rolloutTextBytes } from "./storage-footprint";

/**
 * The judge and benchmark runs' estimate, simpler than the annotate planner's: every chunk
 * (or every solution, for the protocols that read a whole solution) is judged K times, one
 * request per sample; prompts are the problem and the chunks the judge sees, measured from
 * the stored chunk lengths; every output is taken at its generation limit (an upper bound).
 * docs/DOMAIN.md "Capacity planning" states it.
 */

/** Tokens per character where chunk and problem texts are measured in characters (about 4 characters per token). */
export const JUDGE_PLAN_TOKENS_PER_CHAR = 0.25;

export interface JudgeCostSettings {
  protocol: JudgeProtocolId;
  /** K: judge samples per chunk (or per solution). */
  samples: number;
  /** The judge's generation limit per output. */
  maxTokens: number;
}

/** One solution as the estimate sees it: its problem's and its chunks' lengths in characters. */
export interface JudgeCostSolution {
  problemChars: number;
  chunkChars: readonly number[];
}

export interface JudgeCost {
  solutions: number;
  chunks: number;
  requests: number;
  promptTokens: number;
  /** An upper bound: every output at maxTokens (0 for a pooling protocol, which generates nothing). */
  generatedTokens: number;
  /** Stored judge samples (rows). */
  samples: number;
  /** An upper bound: each sample a rollout-sized row with a text of maxTokens tokens (the measured rollout storage model). */
  storageBytes: number;
}

/** Whether one request of the protocol judges one chunk (otherwise one solution). */
export function judgesChunkByChunk(protocol: JudgeProtocolId): boolean {
  return JUDGE_PROTOCOLS[protocol].granularity === "chunk";
}

/** Whether the protocol's requests generate text (a pooling reward model only scores). */
export function judgeGenerates(protocol: JudgeProtocolId): boolean {
  return JUDGE_PROTOCOLS[protocol].api !== "pooling";
}

/** Sums the estimate over solutions, one at a time, so a plan of any size streams through it. */
export class JudgeCostAccumulator {
  private readonly total: JudgeCost = { solutions: 0, chunks: 0, requests: 0, promptTokens: 0, generatedTokens: 0, samples: 0, storageBytes: 0 };
  private readonly perChunk: boolean;
  private readonly generates: boolean;

  constructor(private readonly settings: JudgeCostSettings) {
    for (const [field, value] of Object.entries({ samples: settings.samples, maxTokens: settings.maxTokens })) {
      if (!(Number.isInteger(value) && value >= 1)) throw new RangeError(`${field} must be a whole number ≥ 1, got ${value}`);
    }
    this.perChunk = judgesChunkByChunk(settings.protocol);
    this.generates = judgeGenerates(settings.protocol);
  }

  add(solution: JudgeCostSolution): void {
    const k = solution.chunkChars.length;
    if (k === 0) return;
    const { samples } = this.settings;
    const tokens = (chars: number) => chars * JUDGE_PLAN_TOKENS_PER_CHAR;
    let requests: number;
    let prompt: number;
    if (this.perChunk) {
      // Chunk i's request holds the problem and chunks 1..i.
      let seen = CHAT_TEMPLATE_TOKENS + tokens(solution.problemChars);
      prompt = 0;
      for (const chars of solution.chunkChars) {
        seen += tokens(chars);
        prompt += seen;
      }
      requests = k * samples;
      prompt *= samples;
    } else {
      requests = samples;
      prompt = samples * (CHAT_TEMPLATE_TOKENS + tokens(solution.problemChars) + solution.chunkChars.reduce((sum, chars) => sum + tokens(chars), 0));
    }
    const t = this.total;
    t.solutions += 1;
    t.chunks += k;
    t.requests += requests;
    t.promptTokens += prompt;
    t.samples += requests;
    const generated = this.generates ? this.settings.maxTokens : 0;
    t.generatedTokens += requests * generated;
    t.storageBytes += requests * (ROLLOUT_STORAGE_MODEL.rolloutRowBytes + (generated > 0 ? rolloutTextBytes(generated) : 0));
  }

  totals(): JudgeCost {
    return { ...this.total, promptTokens: Math.round(this.total.promptTokens), storageBytes: Math.round(this.total.storageBytes) };
  }
}

/** The estimate's assumptions, as the plan panel prints them. */
export function judgeCostAssumptions(settings: JudgeCostSettings, options: { stopAtFirstNegative: boolean }): string[] {
  const info = JUDGE_PROTOCOLS[settings.protocol];
  const perChunk = judgesChunkByChunk(settings.protocol);
  return [
    perChunk
      ? `requests: chunks × samples (K = ${settings.samples}): ${info.label} asks once per chunk and sample`
      : `requests: solutions × samples (K = ${settings.samples}): ${info.label} reads a whole solution per request`,
    ...(options.stopAtFirstNegative && perChunk ? ["stop at first Negative is on: chunks after a solution's first Negative are not judged, so requests and tokens are an upper bound"] : []),
    perChunk
      ? `prompt tokens: the problem and the chunks up to the judged one, from the stored chunk lengths at ${1 / JUDGE_PLAN_TOKENS_PER_CHAR} characters per token, + ${CHAT_TEMPLATE_TOKENS} tokens of chat template; the judge prompt's own words are not counted`
      : `prompt tokens: the problem and the whole solution, from the stored chunk lengths at ${1 / JUDGE_PLAN_TOKENS_PER_CHAR} characters per token, + ${CHAT_TEMPLATE_TOKENS} tokens of chat template; the judge prompt's own words are not counted`,
    judgeGenerates(settings.protocol)
      ? `generated tokens: an upper bound, every output at maxTokens = ${settings.maxTokens}`
      : `generated tokens: none, ${info.label} scores through the pooling API`,
    `storage: an upper bound, each judge sample a row of the measured rollout model (${ROLLOUT_STORAGE_MODEL.rolloutRowBytes} bytes) with a text of its generated tokens`,
  ];
}
