/**
 * Turns model-written text into Markdown whose every `$` is unambiguous, before
 * remark-math sees it.
 *
 * remark-math alone is not enough for LLM output: it treats any `$…$` pair as
 * math (so "It costs $5 and $10 more" becomes math), it knows nothing of the
 * `\(…\)` / `\[…\]` delimiters models favour, and a `$$` at the start of a line
 * with no closing fence swallows the rest of the document. So this pass
 * decides, for every dollar sign outside code, whether it delimits math, and
 * emits Markdown in which:
 *
 * - every math span is `$…$` (inline) or `$$…$$` (display) on a single line,
 *   with no `$` inside it (a literal dollar inside math becomes the
 *   `\mdDollar` KaTeX macro, because micromark ends math at any `$`, even `\$`);
 * - every other dollar sign is escaped as `\$`, so it renders as text;
 * - code spans and fenced code blocks are copied through untouched.
 *
 * Display math is never emitted as a `$$` fence block: a one-line `$$…$$` can
 * never open a fence (micromark rejects a `$` in the fence meta), so a stray
 * `$$` cannot swallow the text after it. The renderer shows `$$…$$` as display
 * math (see `remarkDisplayMath`).
 *
 * The currency rule (Pandoc's, tightened):
 * 1. Its closing `$` is the first unescaped `$` outside braces. `{…}` groups are
 *    skipped so `$\boxed{$8.00}$` is one span, as the model meant.
 * 2. That closing `$` must be a single `$`, preceded by a non-space character
 *    and not followed by a digit. If it is not, the opening `$` is text: TeX
 *    itself would end the math there, so there is no other plausible span.
 * 3. A span never crosses a blank line.
 * 4. A span that looks like it may start with a price is held to more: one
 *    that starts with a digit, or whose opening `$` is followed by a space,
 *    must not read as prose (two words of two or more letters in a row,
 *    outside `\commands` and `{…}` groups: "$5 and the rest 6$") nor contain
 *    a backtick (the `$` of "$5 `x$`" belongs to the code span), and a spaced
 *    opening must not be followed by a digit ("$ 5").
 * So "$5 and $10" is text (the second `$` follows a space), "$3.50 + $2" is text
 * (the second `$` is followed by a digit), while "$x + 1$", "$5$" and
 * "$ -36, \ldots, 48$" are math.
 *
 * Known limits: indented (four-space) code blocks are not recognised as code,
 * and `|` inside math in a GFM table row still splits the cell.
 */

/** KaTeX macro a literal dollar sign inside math is rewritten to; the renderer defines it as `\$`. */
export const DOLLAR_MACRO = "\\mdDollar";

type Segment = { code: boolean; text: string };

/**
 * A fence may sit after block-quote markers and list-item markers, e.g. "> ```"
 * or "1. ```". Its info string may not contain a backtick, or it is a code span.
 */
const FENCE_OPEN = /^(?:[ \t]*(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])[ \t]+))*[ \t]*(`{3,}|~{3,})([^\n]*)$/;
const FENCE_CLOSE = /^(?:[ \t]*>[ \t]?)*[ \t]*(`{3,}|~{3,})[ \t]*$/;

function splitFencedCode(text: string): Segment[] {
  const lines = text.split("\n");
  const segments: Segment[] = [];
  let prose: string[] = [];
  let i = 0;
  const flushProse = () => {
    if (prose.length) segments.push({ code: false, text: prose.join("\n") });
    prose = [];
  };
  while (i < lines.length) {
    const line = lines[i]!;
    const open = FENCE_OPEN.exec(line);
    if (!open || (open[1]!.startsWith("`") && open[2]!.includes("`"))) {
      prose.push(line);
      i++;
      continue;
    }
    const fence = open[1]!;
    let end = i + 1;
    while (end < lines.length) {
      const close = FENCE_CLOSE.exec(lines[end]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      end++;
    }
    flushProse();
    // CommonMark: an unclosed fence runs to the end of the document.
    segments.push({ code: true, text: lines.slice(i, Math.min(end + 1, lines.length)).join("\n") });
    i = end + 1;
  }
  flushProse();
  // Rejoin with the newlines that separated the segments.
  return segments.map((s, k) => (k < segments.length - 1 ? { ...s, text: `${s.text}\n` } : s));
}

function backslashRun(s: string, at: number): number {
  let n = 0;
  while (s[at + n] === "\\") n++;
  return n;
}

function charRun(s: string, at: number, ch: string): number {
  let n = 0;
  while (s[at + n] === ch) n++;
  return n;
}

/** True at a line break that ends a paragraph (the next line is blank). */
function isBlankLineAt(s: string, at: number): boolean {
  if (s[at] !== "\n") return false;
  let j = at + 1;
  while (s[j] === " " || s[j] === "\t") j++;
  return j >= s.length || s[j] === "\n";
}

/**
 * How far a closing delimiter is looked for; longer math does not occur in
 * practice. Each search also draws on a per-call step budget, so adversarial
 * text (thousands of unmatched `$`, `{` or `\(` in one paragraph) degrades to
 * literal text in linear time instead of making this pass quadratic.
 */
const MAX_SPAN = 10_000;

interface Budget {
  steps: number;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Walks a span's characters from `from`, within MAX_SPAN and the budget:
 * `visit(j)` returns the next index to look at, `{ found }` to stop with a
 * result, or `END` where the span cannot go on (a blank line). -1 when the
 * span is not closed.
 */
const END = -1;
function scanSpan<T>(s: string, from: number, budget: Budget, visit: (j: number) => number | { found: T }): T | -1 {
  const limit = Math.min(s.length, from + MAX_SPAN);
  for (let j = from; j < limit; ) {
    if (--budget.steps < 0) return -1;
    const next = visit(j);
    if (typeof next !== "number") return next.found;
    if (next === END) return -1;
    j = next;
  }
  return -1;
}

/**
 * Finds where a `$`/`$$` math span that starts at `from` ends: the first `$`
 * run outside braces. Returns its index and length, or -1 when the paragraph
 * ends first.
 */
function findDollarClose(s: string, from: number, budget: Budget): { at: number; run: number } | -1 {
  let depth = 0;
  return scanSpan(s, from, budget, (j) => {
    const c = s[j]!;
    if (c === "\\") return j + 2; // `\{`, `\}`, `\$` and `\\` are content, never structure
    if (isBlankLineAt(s, j)) return END;
    if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (c === "$") {
      const run = charRun(s, j, "$");
      return depth === 0 ? { found: { at: j, run } } : j + run;
    }
    return j + 1;
  });
}

/** Finds the `\)` or `\]` closing a `\(` / `\[` span, in the same paragraph. */
function findBackslashClose(s: string, from: number, closer: ")" | "]", budget: Budget): number {
  return scanSpan(s, from, budget, (j) => {
    if (s[j] === "\\") {
      const run = backslashRun(s, j);
      if (run % 2 === 1 && s[j + run] === closer) return { found: j + run - 1 };
      return j + run + (run % 2); // an odd run escapes the next character
    }
    return isBlankLineAt(s, j) ? END : j + 1;
  });
}

/** Index just past the `}` matching the `{` at `open`, or -1. */
function findBraceClose(s: string, open: number, budget: Budget): number {
  let depth = 0;
  const limit = Math.min(s.length, open + MAX_SPAN);
  for (let j = open; j < limit; j++) {
    if (--budget.steps < 0) return -1;
    const c = s[j]!;
    if (c === "\\") {
      j++;
      continue;
    }
    if (isBlankLineAt(s, j)) return -1;
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return j + 1;
  }
  return -1;
}

/** Prices, not math: "$5 and the rest 6$". Commands and `{…}` groups are not prose. */
function readsAsProse(tex: string): boolean {
  let flat = tex.replace(/\\[A-Za-z]+/g, " ");
  for (let previous = ""; previous !== flat; ) {
    previous = flat;
    flat = flat.replace(/\{[^{}]*\}/g, " ");
  }
  return /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(flat);
}

/** Rule 4 of the currency rule, for the TeX between a `$` pair that passed rules 1-3. */
function plausibleInlineMath(tex: string): boolean {
  const spaced = isSpace(tex[0]);
  const body = tex.trimStart();
  if (!body || (spaced && isDigit(body[0]))) return false;
  if (!spaced && !isDigit(body[0])) return true;
  return !tex.includes("`") && !readsAsProse(tex);
}

/**
 * Rewrites TeX so it can sit between `$` delimiters: dollars become the macro,
 * line breaks become spaces (a multi-line span could otherwise be cut by a
 * line that starts a list or a quote), and a bare `%` becomes `\%` because
 * models mean a percent sign, while KaTeX would drop the rest of the line as a
 * comment.
 */
function toMathBody(tex: string): string {
  let out = "";
  let j = 0;
  while (j < tex.length) {
    const c = tex[j]!;
    if (c === "\\") {
      const run = backslashRun(tex, j);
      const next = tex[j + run];
      if (run % 2 === 1 && next === "$") {
        out += `${"\\".repeat(run - 1)}${DOLLAR_MACRO} `;
        j += run + 1;
      } else if (run % 2 === 1 && next !== undefined && next !== "\n" && next !== "\r") {
        out += "\\".repeat(run) + next;
        j += run + 1;
      } else {
        out += "\\".repeat(run);
        j += run;
      }
      continue;
    }
    if (c === "$") out += `${DOLLAR_MACRO} `;
    else if (c === "%") out += "\\%";
    else if (c === "\n" || c === "\r") out += " ";
    else out += c;
    j++;
  }
  return out;
}

function inlineMath(tex: string): string {
  return `$${toMathBody(tex)}$`;
}

function displayMath(tex: string): string {
  return `$$${toMathBody(tex)}$$`;
}

const COMMAND = /[A-Za-z]+/y;

function rewriteProse(s: string): string {
  const budget: Budget = { steps: 20 * s.length + 100_000 };
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;

    if (c === "`") {
      const run = charRun(s, i, "`");
      let j = i + run;
      let close = -1;
      const limit = Math.min(s.length, i + MAX_SPAN);
      while (j < limit && !isBlankLineAt(s, j) && --budget.steps >= 0) {
        if (s[j] === "`") {
          const r = charRun(s, j, "`");
          if (r === run) {
            close = j;
            break;
          }
          j += r;
        } else j++;
      }
      const end = close === -1 ? i + run : close + run;
      out += s.slice(i, end);
      i = end;
      continue;
    }

    if (c === "\\") {
      const run = backslashRun(s, i);
      out += "\\".repeat(run - (run % 2));
      i += run - (run % 2);
      if (run % 2 === 0) continue;
      // An odd run: the last backslash applies to what follows.
      const next = s[i + 1];
      if (next === "(" || next === "[") {
        const close = findBackslashClose(s, i + 2, next === "(" ? ")" : "]", budget);
        const tex = close === -1 ? "" : s.slice(i + 2, close);
        if (tex.trim()) {
          out += next === "(" ? inlineMath(tex) : displayMath(tex);
          i = close + 2;
          continue;
        }
      }
      COMMAND.lastIndex = i + 1;
      const command = COMMAND.exec(s)?.[0];
      if (command === "boxed") {
        // A bare \boxed{…} outside math: models write it as the final answer.
        let open = i + 1 + command.length;
        while (s[open] === " ") open++;
        const end = s[open] === "{" ? findBraceClose(s, open, budget) : -1;
        if (end !== -1) {
          out += inlineMath(`\\boxed${s.slice(open, end)}`);
          i = end;
          continue;
        }
      }
      if (command) {
        out += `\\${command}`;
        i += 1 + command.length;
      } else {
        out += s.slice(i, i + 2);
        i += 2;
      }
      continue;
    }

    if (c === "$") {
      const run = charRun(s, i, "$");
      if (run === 1) {
        const close = findDollarClose(s, i + 1, budget);
        if (close !== -1 && close.run === 1 && !isSpace(s[close.at - 1]) && !isDigit(s[close.at + 1])) {
          const tex = s.slice(i + 1, close.at);
          if (plausibleInlineMath(tex)) {
            out += inlineMath(tex);
            i = close.at + 1;
            continue;
          }
        }
      } else if (run === 2) {
        const close = findDollarClose(s, i + 2, budget);
        if (close !== -1 && close.run === 2) {
          const tex = s.slice(i + 2, close.at);
          if (tex.trim()) {
            out += displayMath(tex);
            i = close.at + 2;
            continue;
          }
        }
      }
      out += "\\$".repeat(run);
      i += run;
      continue;
    }

    out += c;
    i++;
  }
  return out;
}

/**
 * Normalises the math delimiters of untrusted model text into the Markdown
 * dialect the renderer parses (see the module comment for the rules).
 * Pure; safe to call on any string.
 */
export function normalizeMathDelimiters(text: string): string {
  return splitFencedCode(text.replace(/\r\n?/g, "\n"))
    .map((segment) => (segment.code ? segment.text : rewriteProse(segment.text)))
    .join("");
}
