import { sha256Hex } from "./sha256";
import { utf8Bytes } from "./text-codec";

/**
 * How a solution imported twice is recognised, across files and formats: the
 * SHA-256 (hex) of `{"generator":…,"problem":…,"steps":[…]}`, keys in that
 * order, serialised by JSON.stringify (so the same strings always give the
 * same bytes). Steps are hashed as a list, not joined, so a different split of
 * the same text is a different solution.
 */
export function contentHashOf(problem: string, steps: readonly string[], generator: string): string {
  return sha256Hex(utf8Bytes(JSON.stringify({ generator, problem, steps })));
}

/** The 16-hex prefix used in derived external ids ("prm800k-…"): 64 bits, ample within one dataset. */
export function shortHash(contentHash: string): string {
  return contentHash.slice(0, 16);
}
