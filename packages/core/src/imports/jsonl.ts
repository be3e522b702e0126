import { PARAGRAPH_SEPARATOR, type LocatedChunk } from "../chunks/paragraphs";
import { RULE_SEGMENTERS } from "../chunks/segmenters";
import { leadingWhitespaceLength, trailingWhitespaceLength } from "../chunks/text-position";
import { LABEL_EPSILON, type Label } from "../labels/label";
import { contentHashOf, shortHash } from "./content-hash";
import { valueAtPath, type FieldMapping, type LabelKind, type TextSplit } from "./field-mapping";
import type { FormatReader } from "./format-reader";
import type { ImportedRating, StepRating } from "./imported-solution";
import { jsonTypeOf, recordError, type RecordAt } from "./record-context";

/**
 * One chunk per non-blank line, trimmed, so chunks reconstruct the text by the
 * same rule as the baseline segmenters.
 */
export function segmentByLines(text: string): LocatedChunk[] {
  const chunks: LocatedChunk[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const lead = leadingWhitespaceLength(line);
    if (lead < line.length) {
      const startOffset = lineStart + lead;
      const endOffset = lineEnd - trailingWhitespaceLength(line);
      chunks.push({ index: chunks.length, text: text.slice(startOffset, endOffset), startOffset, endOffset });
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return chunks;
}

const TEXT_SEGMENTERS: Readonly<Record<TextSplit, (text: string) => LocatedChunk[]>> = {
  ...RULE_SEGMENTERS,
  lines: segmentByLines,
};

/**
 * Stored solutions are the steps joined by one separator. The separator is
 * chosen so that splitting the stored text again the same way gives the same
 * steps: steps from blank-line or step-marker splitting hold no blank line
 * before a marker, and line steps hold no newline.
 */
const TEXT_SEPARATORS: Readonly<Record<TextSplit, string>> = {
  "blank-line": PARAGRAPH_SEPARATOR,
  "step-markers": PARAGRAPH_SEPARATOR,
  lines: "\n",
};

interface StepLabels {
  hardLabels: (Label | null)[] | null;
  softLabels: (number | null)[] | null;
  ratings: ImportedRating[] | null;
}

const HARD_LABEL_WORDS: Readonly<Record<string, Label>> = {
  "+": "Positive",
  "-": "Negative",
  positive: "Positive",
  negative: "Negative",
};

const HARD_LABEL_FORMS = 'true/false, "+"/"-" or "Positive"/"Negative"';

/**
 * The path of item `index` of the array found at `path`, as errors name it:
 * the array's `*` part (the first, when it maps over a list) becomes the
 * index (`completions.*.text` → `completions.3.text`), else the index is
 * appended (`steps` → `steps.3`).
 */
function itemPath(path: string, index: number): string {
  const parts = path.split(".");
  const star = parts.indexOf("*");
  if (star === -1) return `${path}.${index}`;
  parts[star] = String(index);
  return parts.join(".");
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return jsonTypeOf(value);
}

export interface JsonlReadOptions {
  mapping: FieldMapping;
  subset?: string;
  generator?: string;
  /** Prefix of the external id of a record without a mapped id (default "jsonl"; Parquet rows: "parquet"). */
  externalIdPrefix?: string;
}

export function jsonlReader(options: JsonlReadOptions): FormatReader {
  const { mapping } = options;
  const defaultGenerator = options.generator ?? "unknown";

  return {
    layout: "json-lines",
    convert(record, at) {
      if (record === null || typeof record !== "object") {
        throw recordError(at, `expected a JSON object, got ${jsonTypeOf(record)}`);
      }
      const mapped = new MappedRecord(record, at);

      const problem = mapped.string("problem", mapping.problem);
      if (problem.trim() === "") throw recordError(at, "must not be empty (mapped to problem)", mapping.problem);

      let steps: string[];
      let separator: string;
      if (mapping.steps !== undefined) {
        steps = mapped.stepArray(mapping.steps);
        separator = PARAGRAPH_SEPARATOR;
      } else {
        const textPath = mapping.text!;
        const text = mapped.string("text", textPath);
        const split = mapping.split ?? "blank-line";
        steps = TEXT_SEGMENTERS[split](text).map((chunk) => chunk.text);
        if (steps.length === 0) throw recordError(at, "holds no steps: the text is blank (mapped to text)", textPath);
        separator = TEXT_SEPARATORS[split];
      }

      const generator =
        (mapping.generator !== undefined ? mapped.optionalString("generator", mapping.generator) : null) ?? defaultGenerator;
      const labels: StepLabels =
        mapping.labels !== undefined
          ? mapped.labels(mapping.labels, mapping.labelKind ?? "auto", steps.length)
          : { hardLabels: null, softLabels: null, ratings: null };
      const firstErrorIndex =
        mapping.firstError !== undefined ? mapped.firstError(mapping.firstError, steps.length) : firstErrorFromLabels(labels);
      const contentHash = contentHashOf(problem, steps, generator);
      const id = mapping.id !== undefined ? mapped.id(mapping.id) : undefined;

      return {
        ...(id !== undefined ? { sourceId: { value: id, field: mapping.id! } } : {}),
        solution: {
          externalId: id ?? `${options.externalIdPrefix ?? "jsonl"}-${shortHash(contentHash)}`,
          subset: options.subset ?? (mapping.subset !== undefined ? mapped.optionalString("subset", mapping.subset) : null),
          generator,
          problem,
          referenceAnswer: mapping.answer !== undefined ? mapped.answer(mapping.answer) : null,
          steps,
          separator,
          finalAnswer: null,
          finalAnswerCorrect: mapping.correct !== undefined ? mapped.optionalBoolean("correct", mapping.correct) : null,
          firstErrorIndex,
          ...labels,
          metadata: {},
          contentHash,
        },
      };
    },
  };
}

/**
 * The first Negative (or -1-rated) step; -1 when every step is labelled and
 * none is wrong. An unlabelled step before any wrong one leaves it unknown:
 * that step may be the first error.
 */
function firstErrorFromLabels({ hardLabels, ratings }: StepLabels): number | null {
  const wrong: (boolean | null)[] | null = hardLabels
    ? hardLabels.map((l) => (l === null ? null : l === "Negative"))
    : ratings
      ? ratings.map((r) => (r.rating === null ? null : r.rating === -1))
      : null;
  if (!wrong) return null;
  for (const [index, isWrong] of wrong.entries()) {
    if (isWrong === null) return null;
    if (isWrong) return index;
  }
  return -1;
}

/** Reads mapped fields of one record; every error names the record's path and the mapping key. */
class MappedRecord {
  constructor(
    private readonly record: object,
    private readonly at: RecordAt,
  ) {}

  private fail(path: string, key: keyof FieldMapping, reason: string): never {
    throw recordError(this.at, `${reason} (mapped to ${key})`, path);
  }

  private required(key: keyof FieldMapping, path: string): unknown {
    const found = valueAtPath(this.record, path);
    if (!found.found) this.fail(path, key, "missing");
    return found.value;
  }

  string(key: keyof FieldMapping, path: string): string {
    const value = this.required(key, path);
    if (typeof value !== "string") this.fail(path, key, `expected a string, got ${jsonTypeOf(value)}`);
    return value;
  }

  /** A mapped field the record must have, whose value may be null. */
  optionalString(key: keyof FieldMapping, path: string): string | null {
    const value = this.required(key, path);
    if (value === null) return null;
    if (typeof value !== "string" || value === "") this.fail(path, key, `expected a non-empty string or null, got ${describe(value)}`);
    return value;
  }

  optionalBoolean(key: keyof FieldMapping, path: string): boolean | null {
    const value = this.required(key, path);
    if (value === null || typeof value === "boolean") return value;
    return this.fail(path, key, `expected true, false or null, got ${describe(value)}`);
  }

  /** Ids are often numbers in the source; they are kept as their decimal text. */
  id(path: string): string {
    const value = this.required("id", path);
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number" && Number.isInteger(value)) return String(value);
    return this.fail(path, "id", `expected a non-empty string or an integer, got ${describe(value)}`);
  }

  /** Reference answers are often numbers (GSM8K); kept as text. */
  answer(path: string): string | null {
    const value = this.required("answer", path);
    if (value === null) return null;
    if (typeof value === "string") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    return this.fail(path, "answer", `expected a string, a number or null, got ${describe(value)}`);
  }

  stepArray(path: string): string[] {
    const value = this.required("steps", path);
    if (!Array.isArray(value)) this.fail(path, "steps", `expected an array of step strings, got ${jsonTypeOf(value)}`);
    if (value.length === 0) this.fail(path, "steps", "holds no steps");
    value.forEach((step, index) => {
      if (typeof step !== "string") this.fail(itemPath(path, index), "steps", `expected a string, got ${jsonTypeOf(step)}`);
    });
    return value as string[];
  }

  firstError(path: string, stepCount: number): number | null {
    const value = this.required("firstError", path);
    if (value === null) return null;
    if (typeof value !== "number" || !Number.isInteger(value) || value < -1 || value >= stepCount) {
      this.fail(path, "firstError", `expected -1 (no error) or a step index 0..${stepCount - 1}, got ${describe(value)}`);
    }
    return value;
  }

  labels(path: string, kind: LabelKind, stepCount: number): StepLabels {
    const value = this.required("labels", path);
    if (value === null) return { hardLabels: null, softLabels: null, ratings: null };
    if (!Array.isArray(value)) this.fail(path, "labels", `expected an array with one label per step, got ${jsonTypeOf(value)}`);
    if (value.length !== stepCount) {
      this.fail(path, "labels", `expected ${stepCount} labels (one per step), got ${value.length}`);
    }
    const resolved = kind === "auto" ? autoLabelKind(value) : kind;
    const entryPath = (index: number) => itemPath(path, index);
    switch (resolved) {
      case "hard": {
        const hardLabels = value.map((entry, index) => (entry === null ? null : this.hardLabel(entry, entryPath(index), kind === "hard")));
        return { hardLabels, softLabels: null, ratings: null };
      }
      case "soft": {
        const softLabels = value.map((entry, index) => (entry === null ? null : this.softLabel(entry, entryPath(index), kind === "auto")));
        // Abs-Q, the rule Math-Shepherd's hard estimate uses: Positive iff Q > 0.
        const hardLabels = softLabels.map((q) => (q === null ? null : q > LABEL_EPSILON ? "Positive" : "Negative"));
        return { hardLabels, softLabels, ratings: null };
      }
      case "rating": {
        const ratings = value.map((entry, index) => ({
          rating: entry === null ? null : this.rating(entry, entryPath(index)),
          flagged: false,
          labeler: null,
        }));
        return { hardLabels: null, softLabels: null, ratings };
      }
    }
  }

  private hardLabel(entry: unknown, path: string, numbersAllowed: boolean): Label {
    if (typeof entry === "boolean") return entry ? "Positive" : "Negative";
    if (typeof entry === "string") {
      const label = HARD_LABEL_WORDS[entry.trim().toLowerCase()];
      if (label) return label;
    }
    // 1/0 are common hard labels, but only when the mapping says the labels are hard: in auto mode a number is a soft label.
    if (numbersAllowed && (entry === 1 || entry === 0)) return entry === 1 ? "Positive" : "Negative";
    return this.fail(path, "labels", `expected a hard label (${HARD_LABEL_FORMS}${numbersAllowed ? ", 1/0" : ""}) or null, got ${describe(entry)}`);
  }

  private softLabel(entry: unknown, path: string, auto: boolean): number {
    if (typeof entry === "number" && entry >= 0 && entry <= 1) return entry;
    const hint = auto && entry === -1 ? "; for -1/0/1 ratings use labelKind=rating" : "";
    return this.fail(path, "labels", `expected a soft label (a number between 0 and 1) or null, got ${describe(entry)}${hint}`);
  }

  private rating(entry: unknown, path: string): StepRating {
    if (entry === -1 || entry === 0 || entry === 1) return entry;
    return this.fail(path, "labels", `must be -1, 0, 1 or null, got ${describe(entry)}`);
  }
}

/** labelKind "auto": the first non-null entry decides; booleans and words are hard labels, numbers soft ones. */
function autoLabelKind(entries: readonly unknown[]): "hard" | "soft" {
  const first = entries.find((entry) => entry !== null);
  return typeof first === "number" ? "soft" : "hard";
}
