/**
 * Word-level diff of two texts (e.g. two judges' rationales on one chunk), by
 * the longest common subsequence of their tokens. Tokens are runs of
 * non-space characters and runs of whitespace, so joining the "equal" and
 * "delete" parts gives back `a` exactly and "equal" + "insert" gives `b`.
 *
 * The LCS table is (n+1)·(m+1) cells after the common prefix and suffix are
 * set aside; above `maxCells` the middle is reported as one deletion and one
 * insertion rather than spending seconds on two essays that share nothing.
 */

export type DiffOp = "equal" | "delete" | "insert";

export interface DiffPart {
  op: DiffOp;
  text: string;
}

export const DEFAULT_DIFF_MAX_CELLS = 4_000_000;

export function diffTokens(text: string): string[] {
  return text.match(/\s+|\S+/g) ?? [];
}

export function wordDiff(a: string, b: string, options: { maxCells?: number } = {}): DiffPart[] {
  const maxCells = options.maxCells ?? DEFAULT_DIFF_MAX_CELLS;
  const x = diffTokens(a);
  const y = diffTokens(b);
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < x.length - prefix && suffix < y.length - prefix && x[x.length - 1 - suffix] === y[y.length - 1 - suffix]) suffix += 1;
  const midX = x.slice(prefix, x.length - suffix);
  const midY = y.slice(prefix, y.length - suffix);

  const parts: DiffPart[] = [];
  const push = (op: DiffOp, token: string) => {
    const last = parts[parts.length - 1];
    if (last && last.op === op) last.text += token;
    else parts.push({ op, text: token });
  };
  for (const token of x.slice(0, prefix)) push("equal", token);
  if ((midX.length + 1) * (midY.length + 1) > maxCells) {
    for (const token of midX) push("delete", token);
    for (const token of midY) push("insert", token);
  } else {
    for (const [op, token] of lcsScript(midX, midY)) push(op, token);
  }
  for (const token of x.slice(x.length - suffix)) push("equal", token);
  return parts;
}

/** Edit script from the LCS table; deletions before insertions at each change. */
function lcsScript(x: readonly string[], y: readonly string[]): Array<[DiffOp, string]> {
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  // lengths[i·width + j] = LCS length of x[i..] and y[j..]
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] = x[i] === y[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const script: Array<[DiffOp, string]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      script.push(["equal", x[i]!]);
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      script.push(["delete", x[i]!]);
      i += 1;
    } else {
      script.push(["insert", y[j]!]);
      j += 1;
    }
  }
  while (i < n) script.push(["delete", x[i++]!]);
  while (j < m) script.push(["insert", y[j++]!]);
  return script;
}
