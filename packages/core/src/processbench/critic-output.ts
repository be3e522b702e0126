import { lastBoxed } from "../text/boxed";

/**
 * Reads a critic's answer (spec §4): the earliest error index, or -1, inside the
 * last `\boxed{}`. Returns null when there is none or it is not an integer ≥ -1.
 */
export function parseCriticPrediction(output: string): number | null {
  const box = lastBoxed(output);
  if (!box) return null;
  const text = box.content.replace(/\\text\s*\{([^{}]*)\}/g, "$1").trim();
  if (!/^-?\d+$/.test(text)) return null;
  const value = Number.parseInt(text, 10);
  return value >= -1 ? value : null;
}
