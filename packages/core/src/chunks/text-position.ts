/**
 * Offsets are UTF-16 code units, as everywhere else in the studio (they index
 * JavaScript strings and `LocatedChunk` offsets). Lines and columns are
 * 1-based so they read like an editor's status bar; only "\n" starts a line,
 * which also covers "\r\n".
 */
export interface TextPosition {
  offset: number;
  line: number;
  column: number;
}

export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { offset, line, column: offset - lineStart + 1 };
}

export function formatPosition({ line, column }: TextPosition): string {
  return `line ${line}, column ${column}`;
}

const EXCERPT_LENGTH = 30;

/**
 * A short, escaped look at the text from `offset` on, so that messages show
 * invisible differences (a tab versus spaces, "\r\n" versus "\n").
 */
export function excerptAt(text: string, offset: number, length = EXCERPT_LENGTH): string {
  if (offset >= text.length) return "(end of text)";
  const piece = text.slice(offset, offset + length);
  return JSON.stringify(piece) + (offset + length < text.length ? "…" : "");
}

/** The same set `String.prototype.trim` removes, so trimming and gap checks agree. */
export function isWhitespace(char: string): boolean {
  return /^\s$/.test(char);
}

export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

export function leadingWhitespaceLength(text: string): number {
  let length = 0;
  while (length < text.length && isWhitespace(text.charAt(length))) length++;
  return length;
}

export function trailingWhitespaceLength(text: string): number {
  let length = 0;
  while (length < text.length && isWhitespace(text.charAt(text.length - 1 - length))) length++;
  return length;
}
