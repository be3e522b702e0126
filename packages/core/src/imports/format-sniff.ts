import { InputError } from "../errors/input-error";
import type { ImportFormat } from "./imported-solution";
import { lenientUtf8Decoder } from "./text-codec";

/*
 * Which format a file is in, from its first bytes and its first record: read
 * before the named importer parses it, so a file given to the wrong importer is
 * refused with the format it looks like instead of the importer's first parse
 * error ("record 0: not valid JSON" for a JSON array given to a JSON Lines reader).
 */

/** Bytes of a file's head that detection reads; a first record longer than this is not looked at. */
export const SNIFF_HEAD_BYTES = 1024 * 1024;

/** How a file's records are laid out, as far as its head shows. */
export type SniffedLayout = "json-array" | "json-lines" | "json-object" | "parquet" | "unknown";

/** The named formats one record can be recognised as (the mapped ones take any record). */
export type RecognisedFormat = "processbench" | "prm800k" | "math-shepherd" | "prmbench";

export interface FileSniff {
  layout: SniffedLayout;
  /** The first record, when the head holds it whole and it is a JSON object. */
  firstRecord?: Record<string, unknown>;
  /** The named format the first record looks like. */
  looksLike?: RecognisedFormat;
}

const LABELS: Record<ImportFormat, string> = {
  processbench: "ProcessBench",
  prm800k: "PRM800K",
  "math-shepherd": "Math-Shepherd",
  prmbench: "PRMBench",
  jsonl: "JSON Lines",
  parquet: "Parquet",
};

/** How each format lays out its records. */
const LAYOUTS: Record<ImportFormat, "json-array" | "json-lines" | "parquet"> = {
  processbench: "json-array",
  prm800k: "json-lines",
  "math-shepherd": "json-lines",
  prmbench: "json-lines",
  jsonl: "json-lines",
  parquet: "parquet",
};

const LAYOUT_NAMES: Record<SniffedLayout, string> = {
  "json-array": "a JSON array",
  "json-lines": "JSON Lines",
  "json-object": "a single JSON object",
  parquet: "a Parquet file",
  unknown: "not JSON",
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The fields each format's records are recognised by (what the importers read), and how a message describes them. */
const SIGNATURES: Array<{ format: RecognisedFormat; matches: (r: Record<string, unknown>) => boolean; describe: (r: Record<string, unknown>) => string }> = [
  {
    format: "processbench",
    matches: (r) => typeof r.problem === "string" && Array.isArray(r.steps) && ("final_answer_correct" in r || ("generator" in r && typeof r.label === "number")),
    describe: (r) => `records have ${["id", "generator", "problem", "steps", "final_answer_correct", "label"].filter((key) => key in r).join(", ")}`,
  },
  {
    format: "prm800k",
    matches: (r) => (isObject(r.label) && Array.isArray(r.label.steps)) || (isObject(r.question) && typeof r.question.problem === "string" && "label" in r),
    describe: () => "records have question.problem and label.steps",
  },
  {
    format: "math-shepherd",
    matches: (r) => typeof r.input === "string" && typeof r.label === "string" && r.input.includes("ки"),
    describe: () => 'records have input and label, steps ending in "ки"',
  },
  {
    format: "prmbench",
    matches: (r) => "modified_process" in r || "original_process" in r || ("classification" in r && "modified_question" in r),
    describe: (r) => `records have ${["original_question", "modified_question", "original_process", "modified_process", "error_steps", "classification"].filter((key) => key in r).join(", ")}`,
  },
];

/** The named format a record looks like, if any. */
export function recordLooksLike(record: Record<string, unknown>): RecognisedFormat | undefined {
  return SIGNATURES.find((signature) => signature.matches(record))?.format;
}

function describeRecord(format: RecognisedFormat, record: Record<string, unknown>): string {
  return SIGNATURES.find((signature) => signature.format === format)!.describe(record);
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/** Index just past the JSON object starting at `start` (a "{"), or -1 when the text ends inside it. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth += 1;
    else if (c === "}" || c === "]") {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && WHITESPACE.has(text[i]!)) i += 1;
  return i;
}

/**
 * The layout of a file and its first record, from its head (the first bytes, or
 * the whole file). Pure: the caller reads the bytes.
 */
export function sniffImportFile(head: Uint8Array): FileSniff {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31) return { layout: "parquet" };
  const text = lenientUtf8Decoder().decode(head);
  const start = skipWhitespace(text, 0);
  const first = text[start];
  const withRecord = (layout: SniffedLayout, record: Record<string, unknown> | undefined): FileSniff => {
    if (!record) return { layout };
    const looksLike = recordLooksLike(record);
    return { layout, firstRecord: record, ...(looksLike ? { looksLike } : {}) };
  };
  if (first === "[") {
    const element = skipWhitespace(text, start + 1);
    if (text[element] !== "{") return { layout: "json-array" };
    const end = objectEnd(text, element);
    return withRecord("json-array", end < 0 ? undefined : parseObject(text.slice(element, end)));
  }
  if (first === "{") {
    const lineEnd = text.indexOf("\n", start);
    const line = parseObject(text.slice(start, lineEnd < 0 ? text.length : lineEnd));
    if (line) return withRecord("json-lines", line);
    const end = objectEnd(text, start);
    return withRecord("json-object", end < 0 ? undefined : parseObject(text.slice(start, end)));
  }
  return { layout: "unknown" };
}

/** `stepwiser import FORMAT FILE`, with the mapping a mapped format needs. */
function tryCommand(format: ImportFormat, path: string): string {
  const quoted = /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
  return `stepwiser import ${format} ${quoted}${format === "jsonl" || format === "parquet" ? " --map problem=…,steps=…" : ""}`;
}

/**
 * Why the file whose head is `head` is not in `format`, when its head shows it is
 * in another one: its layout is another format's (a JSON array given to a JSON
 * Lines importer, a Parquet file given to a JSON one), or its first record is
 * another named format's and not this one's. The message names what the file is
 * and the command that would read it. Undefined when nothing shows a mismatch:
 * the importer then reports whatever is wrong, record by record.
 *
 * `file` locates the error; `path` is the file as given, for the suggested command.
 */
export function importFormatMismatch(format: ImportFormat, head: Uint8Array, file: string, path = file): InputError | undefined {
  const sniff = sniffImportFile(head);
  const expected = LAYOUTS[format];
  const refuse = (reason: string) => new InputError(reason, { file });
  const looksLike = sniff.looksLike && sniff.firstRecord ? { format: sniff.looksLike, describe: describeRecord(sniff.looksLike, sniff.firstRecord) } : undefined;
  // Another format the file's layout and first record fit, as "it looks like …; try: …".
  const suggestion = (): string => {
    if (!looksLike || looksLike.format === format) return "";
    const readable = LAYOUTS[looksLike.format] === sniff.layout || (sniff.layout === "json-object" && LAYOUTS[looksLike.format] === "json-lines");
    return `; it looks like a ${LABELS[looksLike.format]} file (${looksLike.describe})${readable ? `; try: ${tryCommand(looksLike.format, path)}` : ""}`;
  };

  if (sniff.layout === "parquet") {
    if (format === "parquet") return undefined;
    return refuse(`this file is a Parquet file, not ${expected === "json-array" ? "a JSON array" : "JSON Lines"}; try: ${tryCommand("parquet", path)}`);
  }
  if (expected === "parquet") {
    if (sniff.layout === "unknown") return undefined; // the Parquet reader says what it found
    const jsonl = sniff.layout === "json-lines" && !looksLike ? `; try: ${tryCommand("jsonl", path)}` : "";
    return refuse(`not a Parquet file: it does not start with the bytes "PAR1"; it is ${LAYOUT_NAMES[sniff.layout]}${suggestion()}${jsonl}`);
  }
  if (expected === "json-lines" && sniff.layout === "json-array") {
    return refuse(`this file is a JSON array, not JSON Lines (one JSON object per line)${suggestion()}`);
  }
  if (expected === "json-array" && (sniff.layout === "json-lines" || sniff.layout === "json-object")) {
    // A lone ProcessBench record, or lines of them, is left to the importer ("expected a JSON array").
    if (!looksLike || looksLike.format === format) return undefined;
    return refuse(`this file is ${LAYOUT_NAMES[sniff.layout]}, not a JSON array${suggestion()}`);
  }
  const ownSignature = SIGNATURES.find((signature) => signature.format === format);
  if (ownSignature && sniff.firstRecord && !ownSignature.matches(sniff.firstRecord) && looksLike && looksLike.format !== format && sniff.layout === expected) {
    // The record fits another named format and not this one: the importer would refuse it field by field.
    return refuse(`its first record is not a ${LABELS[format]} record${suggestion()}`);
  }
  return undefined;
}
