/**
 * Locates the elements of a top-level JSON array in the source text, so a bad
 * record can be reported by its line number. Assumes the text already parsed.
 */
export function topLevelElementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  let expectingValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === " " || c === "\n" || c === "\r" || c === "\t") continue;
    if (depth === 1 && expectingValue && c !== "]") {
      offsets.push(i);
      expectingValue = false;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      depth++;
      if (depth === 1) expectingValue = true;
    } else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 1) expectingValue = true;
  }
  return offsets;
}

export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Turns V8's "at position N" in a JSON.parse error into a line and column. */
export function jsonErrorLocation(text: string, error: unknown): { line?: number; column?: number; reason: string } {
  const reason = error instanceof Error ? error.message : String(error);
  const match = /position (\d+)/.exec(reason);
  if (!match) return { reason };
  const offset = Number(match[1]);
  const line = lineOfOffset(text, offset);
  const column = offset - text.lastIndexOf("\n", offset - 1);
  return { line, column, reason };
}
