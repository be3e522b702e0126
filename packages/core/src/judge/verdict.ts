import type { Label } from "../labels/label";
import { lastBoxed } from "../text/boxed";

/** A judge's verdict on one chunk: a label, or `unparseable` when the output holds none. */
export type Verdict = Label | "unparseable";

export interface ParsedVerdict {
  verdict: Verdict;
  /** The boxed text the verdict was read from, or null when there was no balanced box. */
  boxed: string | null;
  /** Why a verdict is unparseable; absent when parsed. */
  problem?: "no-boxed" | "not-a-verdict";
}

// Formatting wrappers a model may put around the word; stripping them reads the
// same word, it does not guess a different one.
const WRAPPER = /^\\(?:text|textbf|mathrm|mathbf|textit|texttt)\s*\{([\s\S]*)\}$/;

function unwrap(text: string): string {
  let current = text.trim();
  for (let match = WRAPPER.exec(current); match; match = WRAPPER.exec(current)) current = match[1]!.trim();
  return current;
}

/**
 * Reads the verdict from the last `\boxed{…}` with balanced braces (spec §3):
 * "Positive" or "Negative", case-insensitive. Anything else is unparseable and
 * recorded as such, never guessed.
 */
export function parseVerdict(output: string): ParsedVerdict {
  const box = lastBoxed(output);
  if (!box) return { verdict: "unparseable", boxed: null, problem: "no-boxed" };
  const word = unwrap(box.content).toLowerCase();
  if (word === "positive") return { verdict: "Positive", boxed: box.content };
  if (word === "negative") return { verdict: "Negative", boxed: box.content };
  return { verdict: "unparseable", boxed: box.content, problem: "not-a-verdict" };
}
