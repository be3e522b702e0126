import { createRng } from "@stepwiser/core";
import type { FaultConfig } from "./config";
import type { SimFaultKind } from "./metrics";

/** The project's seeded PRNG, so faults are reproducible for the same request order. */
export function seededRandom(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.nextFloat();
}

const ORDER: ReadonlyArray<[SimFaultKind, keyof FaultConfig]> = [
  ["error5xx", "error5xxRate"],
  ["rateLimit", "rateLimitRate"],
  ["hang", "hangRate"],
  ["drop", "dropRate"],
  ["malformed", "malformedRate"],
  ["garbage", "garbageRate"],
  ["empty", "emptyRate"],
  ["verdictless", "verdictlessRate"],
];

/**
 * Decides, per completion request and in arrival order, which fault (if any) it
 * suffers, from one seeded stream: the same seed and request order give the same
 * faults. The same stream also fills in each fault's details.
 */
export class FaultInjector {
  readonly random: () => number;
  readonly counts: Record<SimFaultKind, number> = {
    error5xx: 0,
    rateLimit: 0,
    hang: 0,
    drop: 0,
    malformed: 0,
    garbage: 0,
    empty: 0,
    verdictless: 0,
  };
  private readonly enabled: boolean;

  constructor(readonly config: FaultConfig, seed: number) {
    this.random = seededRandom(seed);
    this.enabled = ORDER.some(([, rate]) => (config[rate] as number) > 0);
  }

  draw(): SimFaultKind | null {
    if (!this.enabled) return null;
    const u = this.random();
    let threshold = 0;
    for (const [kind, rate] of ORDER) {
      threshold += this.config[rate] as number;
      if (u < threshold) {
        this.counts[kind]++;
        return kind;
      }
    }
    return null;
  }

  /** Random lowercase words: `tokens` of them, so usage still adds up. */
  garbage(tokens: number): string {
    const words: string[] = [];
    for (let i = 0; i < tokens; i++) {
      const length = 1 + Math.floor(this.random() * 8);
      let word = "";
      for (let j = 0; j < length; j++) word += String.fromCharCode(97 + Math.floor(this.random() * 26));
      words.push(word);
    }
    return words.join(" ");
  }
}

/** The text up to its last `\boxed{`, ending in words that decide nothing; texts without one are kept. */
export function withoutFinalBoxed(text: string): string {
  const at = text.lastIndexOf("\\boxed{");
  if (at < 0) return text;
  return `${text.slice(0, at)}I cannot decide.`;
}
