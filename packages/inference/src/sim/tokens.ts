/**
 * The simulated tokenizer: words, numbers and single symbols are tokens, and
 * whitespace attaches to the token after it. Every part of the simulation (usage,
 * max_tokens, prefix cache, capacity) counts with it, so the numbers agree.
 */
const TOKEN = /\s*(?:[A-Za-z]+|\d+|[^\sA-Za-z\d])|\s+$/g;

export function simTokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

export function simTokenCount(text: string): number {
  return simTokenize(text).length;
}
