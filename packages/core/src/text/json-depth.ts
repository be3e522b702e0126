import { InputError, type InputLocation } from "../errors/input-error";

/** Deepest nesting of arrays and objects a JSON body or record may have (a request's input is a few levels deep). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Where JSON text first nests deeper than `maxDepth` arrays/objects, or null when it never does. A linear scan that
 * skips strings (and their escapes), so a parser never has to build or recurse into a too-deep value. It does not
 * check that the text is JSON: the parser that runs afterwards does.
 */
export function jsonDepthExcess(text: string, maxDepth: number): { depth: number; offset: number } | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > maxDepth) return { depth, offset: i };
    } else if (c === 0x7d || c === 0x5d) depth = Math.max(0, depth - 1);
  }
  return null;
}

/** Throws an InputError, located at `where` (plus the line and column inside `text`), when `text` nests deeper than `maxDepth`. */
export function assertJsonDepth(text: string, maxDepth: number, where: InputLocation = {}): void {
  const excess = jsonDepthExcess(text, maxDepth);
  if (!excess) return;
  const before = text.slice(0, excess.offset);
  const lineInText = before.split("\n").length;
  const column = excess.offset - before.lastIndexOf("\n");
  const line = where.line !== undefined ? where.line + lineInText - 1 : lineInText > 1 || where.file ? lineInText : undefined;
  throw new InputError(`the JSON nests more than ${maxDepth} arrays/objects deep (at column ${column}); flatten it`, { ...where, ...(line !== undefined ? { line } : {}) });
}
