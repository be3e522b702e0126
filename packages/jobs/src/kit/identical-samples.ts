import type { z } from "zod";

export interface SamplesAtTemperature {
  /** The configuration field holding K, e.g. "samples" or "judgeSamples". */
  samplesField: string;
  samples: number;
  /** The configuration field holding the temperature those K samples are drawn at. */
  temperatureField: string;
  temperature: number;
  /** The usual temperature for K samples, named in the advice, e.g. "ProcessBench voting: 1.0". */
  usual: string;
}

/**
 * Refuses K > 1 samples at temperature 0. Greedy decoding gives the same text
 * for every sample of a prompt, so "Maj@8" at temperature 0 is one answer
 * counted eight times: a vote or pass rate that only looks like one. The
 * issue sits on the samples field and names both fields; K = 1 at
 * temperature 0 (one greedy answer) stays valid.
 */
export function refuseIdenticalSamples(ctx: z.RefinementCtx, check: SamplesAtTemperature): void {
  const { samplesField, samples, temperatureField, temperature, usual } = check;
  if (samples <= 1 || temperature > 0) return;
  ctx.addIssue({
    code: "custom",
    path: [samplesField],
    message: `${samplesField} is ${samples} but ${temperatureField} is 0: the ${samples} samples would be identical; set ${temperatureField} > 0 (${usual}) or ${samplesField} 1`,
  });
}

/** The usual temperature for votes among judge samples (ProcessBench's official voting: n = 8 at temperature 1, top_p 0.9). */
export const JUDGE_VOTING_TEMPERATURE = "ProcessBench voting: 1.0";
