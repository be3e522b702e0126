/**
 * Small brace-aware scanners shared by extraction, normalisation and the
 * structure parser. All of them are iterative (no recursion on input depth), so
 * a pathological answer cannot overflow the stack here.
 */

import { matchingBrace } from "../text/boxed";

export { matchingBrace };

export interface TexArgument {
  /** The argument without its braces. */
  content: string;
  /** Offset just past the argument. */
  end: number;
  braced: boolean;
}

/**
 * The TeX argument starting at `start` (leading spaces skipped): a `{group}`,
 * a control word such as `\pi`, or a single character. TeX reads `\frac12`
 * as `\frac{1}{2}`, which is why unbraced arguments are one character.
 */
export function readArgument(text: string, start: number): TexArgument | null {
  let i = start;
  while (i < text.length && /\s/.test(text[i]!)) i += 1;
  if (i >= text.length) return null;
  const ch = text[i]!;
  if (ch === "{") {
    const close = matchingBrace(text, i);
    if (close === -1) return null;
    return { content: text.slice(i + 1, close), end: close + 1, braced: true };
  }
  if (ch === "}" || ch === "^" || ch === "_" || ch === "&") return null;
  if (ch === "\\") {
    const word = /^\\(?:[a-zA-Z]+|.)/.exec(text.slice(i, i + 40));
    if (!word) return null;
    return { content: word[0], end: i + word[0].length, braced: false };
  }
  return { content: ch, end: i + 1, braced: false };
}

/** Reused results: these scanners run over every character of every answer, several times. */
const OPEN = { delta: 1, length: 1 };
const CLOSE = { delta: -1, length: 1 };
const PLAIN = { delta: 0, length: 1 };
const ESCAPED_OPEN = { delta: 1, length: 2 };
const ESCAPED_CLOSE = { delta: -1, length: 2 };

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * Nesting depth contributed by the token at `i` and the token's length. Round
 * and square brackets are interchangeable here because half-open intervals
 * (`[1,2)`) pair them crosswise. The result may be shared: do not modify it.
 */
function depthToken(text: string, i: number): { delta: number; length: number } {
  const code = text.charCodeAt(i);
  if (code === 92 /* \\ */) {
    const next = text.charCodeAt(i + 1);
    if (next === 123 /* { */) return ESCAPED_OPEN;
    if (next === 125 /* } */) return ESCAPED_CLOSE;
    if (text.startsWith("\\begin{", i)) {
      const close = text.indexOf("}", i);
      return { delta: 1, length: close === -1 ? 7 : close - i + 1 };
    }
    if (text.startsWith("\\end{", i)) {
      const close = text.indexOf("}", i);
      return { delta: -1, length: close === -1 ? 5 : close - i + 1 };
    }
    // A control word (`\\frac`, at most 39 letters read) or a control symbol (`\\,`).
    if (!isLetter(next)) return { delta: 0, length: i + 1 < text.length && next !== 10 && next !== 13 ? 2 : 1 };
    let end = i + 2;
    while (end < text.length && end - i < 40 && isLetter(text.charCodeAt(end))) end += 1;
    return { delta: 0, length: end - i };
  }
  if (code === 40 || code === 91 || code === 123) return OPEN;
  if (code === 41 || code === 93 || code === 125) return CLOSE;
  return PLAIN;
}

/** Splits at occurrences of `separator` that sit outside every bracket, brace and environment. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < text.length; ) {
    if (depth === 0 && text.startsWith(separator, i)) {
      // `\\` is a row separator, never a comma; only split on the literal separator.
      parts.push(text.slice(last, i));
      i += separator.length;
      last = i;
      continue;
    }
    const { delta, length } = depthToken(text, i);
    depth += delta;
    i += length;
  }
  parts.push(text.slice(last));
  return parts;
}

/**
 * Offset of the bracket that closes the opener at `open` (any of `(`/`[` closing
 * with `)`/`]`, `\{` with `\}`), or -1. Used to tell `(1,2)` (one bracketed
 * whole) from `(1)(2)` (two groups).
 */
export function matchingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; ) {
    const { delta, length } = depthToken(text, i);
    depth += delta;
    if (depth === 0) return i;
    i += length;
  }
  return -1;
}

/** Deepest nesting of brackets, braces and environments; used as a cheap guard before the CAS. */
export function maxNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; ) {
    const { delta, length } = depthToken(text, i);
    depth += delta;
    if (depth > max) max = depth;
    i += length;
  }
  return max;
}
