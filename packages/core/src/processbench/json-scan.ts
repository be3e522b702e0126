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

/**
 * Offset of the first JSON syntax error, found by a small recursive-descent
 * validator: V8's JSON.parse messages carry a position only for some errors.
 * Returns -1 when the text is valid JSON.
 */
export function jsonSyntaxErrorOffset(text: string): number {
  let i = 0;
  const fail = (at: number): never => {
    throw at;
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) fail(i - 1);
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) return void i++;
      if (c < 0x20) fail(i);
      if (c === 92) {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i);
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail(i);
      } else i++;
    }
    fail(i);
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === "-" || match[0] === "") fail(i);
    i += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) fail(i);
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(i);
        string();
        ws();
        if (text[i] !== ":") fail(i);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail(i);
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail(i);
      }
    } else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else fail(i);
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(i);
    return -1;
  } catch (at) {
    if (typeof at === "number") return at;
    throw at;
  }
}

/** Line and column of a JSON syntax error, with the parser's own reason. */
export function jsonErrorLocation(text: string, error: unknown): { line?: number; column?: number; reason: string } {
  const reason = error instanceof Error ? error.message : String(error);
  const positioned = /position (\d+)/.exec(reason);
  const offset = positioned ? Number(positioned[1]) : jsonSyntaxErrorOffset(text);
  if (offset < 0) return { reason };
  const line = lineOfOffset(text, offset);
  const column = offset - text.lastIndexOf("\n", offset - 1);
  // Newer V8 versions end the message with their own "(line L column C)"; the column is given here on every version.
  const message = reason.split("\n")[0]!.replace(/ \(line \d+ column \d+\)$/, "");
  return { line, column, reason: `${message} (column ${column})` };
}
