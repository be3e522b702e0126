import { InputError } from "../errors/input-error";
import { jsonErrorLocation } from "../processbench/json-scan";
import { strictUtf8Decoder, utf8Bytes } from "./text-codec";
import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from "../text/json-depth";

/**
 * Streaming readers for import files: they take the file as a sequence of byte
 * pieces (from disk, an upload, or database parts) and yield one record's text
 * at a time with the line it starts on, so a multi-GB file is never held whole
 * and every error can name its line.
 */

/** A single record larger than this is refused rather than buffered (a corrupt or hostile file). */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export interface SourceLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

export interface SourceElement extends SourceLine {
  /** 0-based position of the element in the top-level array. */
  index: number;
}

const NEWLINE = 0x0a;

function decodeStrict(bytes: Uint8Array, file: string, line: number, record?: number): string {
  try {
    return strictUtf8Decoder().decode(bytes);
  } catch {
    throw new InputError("not valid UTF-8 text", { file, line, ...(record !== undefined ? { record } : {}) });
  }
}

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A line whose bytes are not valid UTF-8: reported in place so a reader can go on with the next line. */
export interface UndecodableLine {
  line: number;
  error: InputError;
}

/**
 * Non-blank lines of a text file (JSONL), with their line numbers. A trailing
 * "\r" is dropped (files written on Windows); a UTF-8 byte-order mark at the
 * start is skipped; invalid UTF-8 is an error on its line.
 */
export async function* readLines(pieces: AsyncIterable<Uint8Array>, file: string): AsyncGenerator<SourceLine> {
  for await (const item of readLinesReportingUndecodable(pieces, file)) {
    if ("error" in item) throw item.error;
    yield item;
  }
}

/**
 * `readLines`, except that a line with invalid UTF-8 is yielded as an error
 * and reading goes on: one bad line of a JSONL file does not hide the rest
 * (import previews list every bad line). A line over `MAX_RECORD_BYTES` still
 * throws, since the reader would have to buffer it to find its end.
 */
export async function* readLinesReportingUndecodable(
  pieces: AsyncIterable<Uint8Array>,
  file: string,
): AsyncGenerator<SourceLine | UndecodableLine> {
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let line = 1;
  const emit = (bytes: Uint8Array): SourceLine | UndecodableLine | null => {
    let text: string;
    try {
      text = decodeStrict(bytes, file, line);
    } catch (error) {
      if (error instanceof InputError) return { line, error };
      throw error;
    }
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return text.trim() === "" ? null : { line, text };
  };
  for await (const piece of pieces) {
    let start = 0;
    for (;;) {
      const end = piece.indexOf(NEWLINE, start);
      if (end === -1) break;
      const tail = piece.subarray(start, end);
      const bytes = pendingLength === 0 ? tail : concat([...pending, tail], pendingLength + tail.length);
      pending = [];
      pendingLength = 0;
      const out = emit(bytes);
      if (out) yield out;
      line += 1;
      start = end + 1;
    }
    if (start < piece.length) {
      const rest = piece.subarray(start);
      // Copy: the producer may reuse its buffer for the next piece.
      pending.push(rest.slice());
      pendingLength += rest.length;
      if (pendingLength > MAX_RECORD_BYTES) {
        throw new InputError(`line is longer than ${MAX_RECORD_BYTES} bytes`, { file, line });
      }
    }
  }
  if (pendingLength > 0) {
    const out = emit(concat(pending, pendingLength));
    if (out) yield out;
  }
}

const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf] as const;

/**
 * The pieces without a leading UTF-8 byte-order mark, even when the mark is
 * split across pieces (a stream may deliver a single byte at a time).
 */
async function* withoutByteOrderMark(pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const head: number[] = [];
  let decided = false;
  for await (const piece of pieces) {
    if (decided) {
      yield piece;
      continue;
    }
    let i = 0;
    while (i < piece.length && head.length < BYTE_ORDER_MARK.length && piece[i] === BYTE_ORDER_MARK[head.length]) {
      head.push(piece[i]!);
      i += 1;
    }
    if (head.length === BYTE_ORDER_MARK.length) {
      decided = true;
      if (i < piece.length) yield piece.subarray(i);
    } else if (i < piece.length) {
      // Not a mark after all: give back the bytes held so far.
      decided = true;
      if (head.length > 0) yield Uint8Array.from(head);
      yield piece.subarray(i);
    }
  }
  if (!decided && head.length > 0 && head.length < BYTE_ORDER_MARK.length) yield Uint8Array.from(head);
}

/** Parses one line or element as JSON; a syntax error names the line it is on, as does nesting deeper than DEFAULT_MAX_JSON_DEPTH. */
export function parseJsonAt(source: SourceLine, file: string, record?: number): unknown {
  assertJsonDepth(source.text, DEFAULT_MAX_JSON_DEPTH, { file, line: source.line, record });
  try {
    return JSON.parse(source.text);
  } catch (error) {
    const { line, reason } = jsonErrorLocation(source.text, error);
    throw new InputError(`not valid JSON (${reason})`, { file, line: source.line + (line ?? 1) - 1, record });
  }
}

const enum Scan {
  BeforeArray,
  BetweenElements,
  InElement,
  AfterArray,
}

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Elements of a file holding one top-level JSON array (ProcessBench), each as
 * its own text with the line it starts on. Only the element being read is kept
 * in memory. Structure errors (not an array, a truncated file, text after the
 * array) are reported with their line; the elements' own syntax is left to
 * `parseJsonAt`.
 */
export async function* readJsonArrayElements(pieces: AsyncIterable<Uint8Array>, file: string): AsyncGenerator<SourceElement> {
  let state = Scan.BeforeArray;
  let line = 1;
  let index = 0;
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let startLine = 0;
  let pieceStart = 0;
  let parts: Uint8Array[] = [];
  let partsLength = 0;
  let expectingElement = true;

  const finish = (piece: Uint8Array, end: number): SourceElement => {
    const tail = piece.subarray(pieceStart, end);
    const bytes = concat([...parts, tail], partsLength + tail.length);
    parts = [];
    partsLength = 0;
    const element = { index, line: startLine, text: decodeStrict(bytes, file, startLine, index) };
    index += 1;
    return element;
  };

  for await (const piece of withoutByteOrderMark(pieces)) {
    let i = 0;
    pieceStart = i;
    for (; i < piece.length; i++) {
      const b = piece[i]!;
      if (state === Scan.InElement) {
        if (b === NEWLINE) line += 1;
        if (inString) {
          if (escaped) escaped = false;
          else if (b === 0x5c) escaped = true;
          else if (b === 0x22) inString = false;
          continue;
        }
        if (b === 0x22) inString = true;
        else if (b === 0x7b || b === 0x5b) depth += 1;
        else if (b === 0x7d || b === 0x5d) {
          if (depth === 0) {
            // The array's own "]" after a scalar element.
            yield finish(piece, i);
            state = Scan.AfterArray;
            continue;
          }
          depth -= 1;
          if (depth === 0) {
            yield finish(piece, i + 1);
            state = Scan.BetweenElements;
            expectingElement = false;
          }
        } else if (depth === 0 && (b === 0x2c || isSpace(b))) {
          yield finish(piece, i);
          state = Scan.BetweenElements;
          expectingElement = b === 0x2c;
        }
        continue;
      }
      if (b === NEWLINE) line += 1;
      if (isSpace(b)) continue;
      if (state === Scan.BeforeArray) {
        if (b !== 0x5b) throw new InputError("expected a JSON array of records (the file should start with \"[\")", { file, line });
        state = Scan.BetweenElements;
        expectingElement = true;
      } else if (state === Scan.BetweenElements) {
        if (b === 0x5d) {
          if (expectingElement && index > 0) throw new InputError("not valid JSON (a comma before \"]\")", { file, line, record: index });
          state = Scan.AfterArray;
        } else if (b === 0x2c) {
          if (expectingElement) throw new InputError("not valid JSON (an empty element between commas)", { file, line, record: index });
          expectingElement = true;
        } else {
          if (!expectingElement) throw new InputError("not valid JSON (a comma is missing between records)", { file, line, record: index });
          state = Scan.InElement;
          startLine = line;
          pieceStart = i;
          parts = [];
          partsLength = 0;
          depth = 0;
          inString = false;
          escaped = false;
          i -= 1; // scan the element's first byte in the element state
        }
      } else {
        throw new InputError("unexpected text after the end of the array", { file, line });
      }
    }
    if (state === Scan.InElement) {
      const rest = piece.subarray(pieceStart);
      parts.push(rest.slice());
      partsLength += rest.length;
      pieceStart = 0;
      if (partsLength > MAX_RECORD_BYTES) throw new InputError(`record is larger than ${MAX_RECORD_BYTES} bytes`, { file, line: startLine, record: index });
    }
  }
  if (state === Scan.BeforeArray) throw new InputError("the file is empty", { file, line: 1 });
  if (state === Scan.InElement) throw new InputError("the file ends inside a record (truncated?)", { file, line: startLine, record: index });
  if (state === Scan.BetweenElements) throw new InputError("the file ends before the array is closed with \"]\" (truncated?)", { file, line });
}

/** Splits a byte array (or string) into pieces, as a stream would deliver it: for tests and small in-memory files. */
export async function* piecesOf(content: Uint8Array | string, pieceSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  const bytes = typeof content === "string" ? utf8Bytes(content) : content;
  for (let at = 0; at < bytes.length; at += pieceSize) yield bytes.subarray(at, at + pieceSize);
}
