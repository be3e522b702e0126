import { InputError } from "../errors/input-error";
import { parseJsonAt, readJsonArrayElements, readLinesReportingUndecodable, type SourceLine } from "./byte-streams";
import type { FieldMapping } from "./field-mapping";
import type { FormatReader } from "./format-reader";
import type { ImportedSolution, ImportFormat } from "./imported-solution";
import { jsonlReader } from "./jsonl";
import { mathShepherdReader } from "./math-shepherd";
import { processBenchReader } from "./processbench";
import { prm800kReader } from "./prm800k";
import { prmbenchReader } from "./prmbench";
import { recordError } from "./record-context";

export interface ImportReadOptions {
  /** Named in every error. */
  file: string;
  /** Overrides the subset of every record (ProcessBench: default from the id; Math-Shepherd: from `task`). */
  subset?: string;
  /** Generator for formats that do not name one (PRM800K "prm800k", Math-Shepherd "math-shepherd", jsonl "unknown"). */
  generator?: string;
  /** jsonl and parquet only, and required there. */
  mapping?: FieldMapping;
}

export interface ImportedRecord {
  /** Line the record starts on (1-based). */
  line: number;
  /** 0-based index of the record in the file. */
  record: number;
  solution: ImportedSolution;
  /** Accepted departures from the format's documented layout (see ConvertedRecord.quirks). */
  quirks: string[];
}

/**
 * What became of one record of an import file:
 * - `solution`: read (with the quirks the reader accepted);
 * - `ignored`: well formed but holding nothing to import, as the dataset allows;
 * - `invalid`: unreadable; `structural` when the file's layout itself broke
 *   (an unclosed array, an overlong line, an empty file): reading cannot go on
 *   after it, and an import fails under either policy.
 */
export type ImportOutcome =
  | { kind: "solution"; line: number; record: number; solution: ImportedSolution; quirks: string[]; extra?: true }
  | { kind: "ignored"; line: number; record: number; reason: string; field?: string }
  | { kind: "invalid"; line: number; record?: number; error: InputError; structural: boolean };

/** A parsed record from a source that is not a byte stream of JSON (a Parquet row group's rows). */
export interface SourceValue {
  /** 1-based position of the record in its file: its line, or its row (see SourcePosition). */
  line: number;
  record: number;
  value: unknown;
}

export function formatReader(format: ImportFormat, options: ImportReadOptions): FormatReader {
  switch (format) {
    case "processbench":
      return processBenchReader(options);
    case "prm800k":
      return prm800kReader(options);
    case "math-shepherd":
      return mathShepherdReader(options);
    case "prmbench":
      return prmbenchReader(options);
    case "jsonl":
    case "parquet":
      // A Parquet row, once its values are plain JSON, is read exactly as a JSONL record.
      if (!options.mapping) {
        throw new InputError(`the ${format} format needs a field mapping (for example problem=question,steps=steps)`, {
          file: options.file,
          field: "--map",
        });
      }
      return jsonlReader({ ...options, mapping: options.mapping, externalIdPrefix: format });
  }
}

type ParsedOrFailed = { line: number; record: number; value: unknown } | { line: number; record: number; error: InputError };

function parseSource(source: SourceLine, file: string, record: number): ParsedOrFailed {
  try {
    return { line: source.line, record, value: parseJsonAt(source, file, record) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { line: source.line, record, error };
  }
}

/**
 * Parsed records in file order. A record that is not valid JSON (or, in JSONL,
 * not valid UTF-8) is yielded as a failure and reading goes on; what breaks the
 * layout itself (an unclosed array, an empty file) is thrown.
 */
async function* parsedRecords(reader: FormatReader, pieces: AsyncIterable<Uint8Array>, file: string): AsyncGenerator<ParsedOrFailed> {
  let record = 0;
  if (reader.layout === "json-array") {
    for await (const element of readJsonArrayElements(pieces, file)) {
      yield parseSource(element, file, element.index);
      record = element.index + 1;
    }
  } else {
    for await (const source of readLinesReportingUndecodable(pieces, file)) {
      yield "error" in source
        ? { line: source.line, record, error: new InputError(source.error.reason, { ...source.error.location, record }) }
        : parseSource(source, file, record);
      record += 1;
    }
  }
  if (record === 0) throw new InputError("the file holds no records", { file, line: 1 });
}

/**
 * Every record of the file as a solution or an error, in order. Errors that
 * concern one record leave the rest readable; a structural error (a broken
 * array, an overlong line, an empty file) ends the sequence.
 */
export async function* readImportOutcomes(
  format: ImportFormat,
  pieces: AsyncIterable<Uint8Array>,
  options: ImportReadOptions,
): AsyncGenerator<ImportOutcome> {
  const { file } = options;
  if (format === "parquet") {
    // Parquet needs random access (its index is at the end): packages/jobs reads it by row group into outcomesOfValues.
    yield { kind: "invalid", line: 1, error: new InputError("a Parquet file is read by row group, not as a stream of text", { file }), structural: true };
    return;
  }
  let reader: FormatReader;
  try {
    reader = formatReader(format, options);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    yield { kind: "invalid", line: 1, error, structural: true };
    return;
  }
  yield* convertedOutcomes(reader, parsedRecords(reader, pieces, file), file);
}

/** What a record's 1-based position in its file is called in messages. */
export type SourcePosition = "line" | "row";

/**
 * The outcomes of records parsed elsewhere (e.g. rows of a Parquet file),
 * converted by a format's reader exactly as records read from JSON are.
 * An InputError thrown by the source ends the sequence as a structural failure.
 * `position` names what `SourceValue.line` counts in messages.
 */

export async function* outcomesOfValues(
  reader: FormatReader,
  values: AsyncIterable<SourceValue>,
  file: string,
  position: SourcePosition = "line",
): AsyncGenerator<ImportOutcome> {
  async function* asParsed(): AsyncGenerator<ParsedOrFailed> {
    let count = 0;
    for await (const value of values) {
      count += 1;
      yield value;
    }
    if (count === 0) throw new InputError("the file holds no records", { file, line: 1 });
  }
  yield* convertedOutcomes(reader, asParsed(), file, position);
}

async function* convertedOutcomes(
  reader: FormatReader,
  source: AsyncGenerator<ParsedOrFailed>,
  file: string,
  position: SourcePosition = "line",
): AsyncGenerator<ImportOutcome> {
  const firstLineOfId = new Map<string, number>();
  try {
    for (;;) {
      let next: IteratorResult<ParsedOrFailed>;
      try {
        next = await source.next();
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        const { line = 1, record } = error.location;
        yield { kind: "invalid", line, ...(record !== undefined ? { record } : {}), error, structural: true };
        return;
      }
      if (next.done) return;
      const parsed = next.value;
      if ("error" in parsed) {
        yield { kind: "invalid", line: parsed.line, record: parsed.record, error: parsed.error, structural: false };
        continue;
      }
      yield* convertRecord(reader, parsed, file, firstLineOfId, position);
    }
  } finally {
    // A consumer that stops early (preview, first error) releases the file's stream.
    await source.return(undefined);
  }
}

function convertRecord(
  reader: FormatReader,
  parsed: { line: number; record: number; value: unknown },
  file: string,
  firstLineOfId: Map<string, number>,
  position: SourcePosition,
): ImportOutcome[] {
  const at = { file, line: parsed.line, record: parsed.record };
  try {
    const converted = reader.convert(parsed.value, at);
    if ("ignored" in converted) return [{ kind: "ignored", line: parsed.line, record: parsed.record, ...converted.ignored }];
    const { solution, sourceId } = converted;
    if (sourceId) {
      const firstLine = firstLineOfId.get(sourceId.value);
      if (firstLine !== undefined) {
        throw recordError(at, `duplicate id ${JSON.stringify(sourceId.value)}: first used by the record on ${position} ${firstLine}`, sourceId.field);
      }
      firstLineOfId.set(sourceId.value, parsed.line);
    }
    // A record's further solutions come first (as the evaluator orders PRMBench's all-correct item); the record itself is counted once, with its own.
    const extra = (converted.extraSolutions ?? []).map((e): ImportOutcome => ({ kind: "solution", line: parsed.line, record: parsed.record, solution: e.solution, quirks: e.quirks, extra: true }));
    return [...extra, { kind: "solution", line: parsed.line, record: parsed.record, solution, quirks: converted.quirks ?? [] }];
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return [{ kind: "invalid", line: parsed.line, record: parsed.record, error, structural: false }];
  }
}

/**
 * Reads an import file record by record, holding one record in memory at a
 * time, under the `fail` policy: the first bad record stops the import with an
 * InputError naming the file, line, record and field (the preview lists every
 * bad row up front). Ignored records (allowed by the dataset, nothing to
 * import) are passed over.
 */
export async function* readImportRecords(
  format: ImportFormat,
  pieces: AsyncIterable<Uint8Array>,
  options: ImportReadOptions,
): AsyncGenerator<ImportedRecord> {
  for await (const outcome of readImportOutcomes(format, pieces, options)) {
    if (outcome.kind === "invalid") throw outcome.error;
    if (outcome.kind === "solution") yield { line: outcome.line, record: outcome.record, solution: outcome.solution, quirks: outcome.quirks };
  }
}

export interface PreviewRow {
  line: number;
  solution?: ImportedSolution;
  /** The located message (file:line, record, field: reason). */
  error?: string;
  /** Why a record the dataset allows holds nothing to import. */
  ignored?: string;
  /** Accepted departures from the format's documented layout. */
  quirks?: string[];
}

/**
 * The first `maxRecords` records as rows, each a solution or its error, so
 * one upload shows every problem in its head at once. Stops reading the file
 * as soon as it has the rows (the rest of the pieces are never pulled).
 */
export async function previewImport(
  format: ImportFormat,
  pieces: AsyncIterable<Uint8Array>,
  options: ImportReadOptions,
  maxRecords = 20,
): Promise<{ rows: PreviewRow[] }> {
  return previewOutcomes(readImportOutcomes(format, pieces, options), maxRecords);
}

/**
 * The first `maxRecords` outcomes of any source (a byte stream's, a Parquet
 * file's rows) as preview rows; stops pulling outcomes once it has them.
 */
export async function previewOutcomes(outcomes: AsyncIterable<ImportOutcome>, maxRecords = 20): Promise<{ rows: PreviewRow[] }> {
  const rows: PreviewRow[] = [];
  if (maxRecords <= 0) return { rows };
  for await (const outcome of outcomes) {
    rows.push(
      outcome.kind === "invalid"
        ? { line: outcome.line, error: outcome.error.message }
        : outcome.kind === "ignored"
          ? { line: outcome.line, ignored: outcome.reason }
          : { line: outcome.line, solution: outcome.solution, ...(outcome.quirks.length > 0 ? { quirks: outcome.quirks } : {}) },
    );
    if (rows.length >= maxRecords) break;
  }
  return { rows };
}
