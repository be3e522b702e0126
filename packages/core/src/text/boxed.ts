export interface BoxedContent {
  /** The text between the braces, untrimmed. */
  content: string;
  command: string;
  /** Offset of the backslash that opens the command. */
  start: number;
  /** Offset just past the closing brace. */
  end: number;
}

/**
 * Every `\boxed{…}` (or another one-argument command) whose braces balance, in
 * order of appearance. An unbalanced box is skipped rather than guessed at.
 */
export function findBoxed(text: string, commands: readonly string[] = ["boxed"]): BoxedContent[] {
  const found: BoxedContent[] = [];
  const pattern = new RegExp(`\\\\(${commands.map(escapeRegExp).join("|")})\\s*\\{`, "g");
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const open = match.index + match[0].length - 1;
    const close = matchingBrace(text, open);
    if (close === -1) continue;
    found.push({ content: text.slice(open + 1, close), command: match[1]!, start: match.index, end: close + 1 });
    pattern.lastIndex = close + 1;
  }
  return found;
}

/** The last balanced `\boxed{…}` in the text, or null. */
export function lastBoxed(text: string, commands: readonly string[] = ["boxed"]): BoxedContent | null {
  const all = findBoxed(text, commands);
  return all.length ? all[all.length - 1]! : null;
}

/** Index of the brace closing the one at `open`, honouring `\{` and `\}` escapes; -1 if none. */
export function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i += 1; // an escaped character never opens or closes a group
      continue;
    }
    if (ch === "{") depth += 1;
    else if (ch === "}") {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
