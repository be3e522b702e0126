import { InputError } from "../errors/input-error";
import { parseJsonAt, readJsonArrayElements, readLinesReportingUndecodable, type SourceLine } from "./byte-streams";
import type { FieldMapping } from "./field-mapping";
import type { FormatReader } from "./format-reader";
import type { ImportedSolution, ImportFormat } from "./imported-solution";
import { jsonlReader } from "./jsonl";
import { mathShepherdReader } from "./math-shepherd";
import { processBenchReader } from "./processbench";
import { prm800kReader } from "./prm800k";
import { recordError } from "./record-context";

export interface ImportReadOptions {
  /** Named in every error. */
  file: string;
  /** Overrides the subset of every record (ProcessBench: default from the id; Math-Shepherd: from `task`). */
  subset?: string;
  /** Generator for formats that do not name one (PRM800K "prm800k", Math-Shepherd "math-shepherd", jsonl "unknown"). */
  generator?: string;
  /** jsonl only, and required there. */
  mapping?: FieldMapping;
}

export interface ImportedRecord {
  /** Line the record starts on (1-based). */
  line: number;
  /** 0-based index of the record in the file. */
  record: number;
  solution: ImportedSolution;
}

export function formatReader(format: ImportFormat, options: ImportReadOptions): FormatReader {
  switch (format) {
    case "processbench":
      return processBenchReader(options);
    case "prm800k":
      return prm800kReader(options);
    case "math-shepherd":
      return mathShepherdReader(options);
    case "jsonl":
      if (!options.mapping) {
        throw new InputError("the jsonl format needs a field mapping (for example problem=question,steps=steps)", {
          file: options.file,
          field: "--map",
        });
      }
      return jsonlReader({ ...options, mapping: options.mapping });
  }
}

type RecordOutcome =
  | { line: number; record: number; solution: ImportedSolution; error?: undefined }
  | { line: number; record?: number; error: InputError };

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
async function* recordOutcomes(
  format: ImportFormat,
  pieces: AsyncIterable<Uint8Array>,
  options: ImportReadOptions,
): AsyncGenerator<RecordOutcome> {
  const { file } = options;
  let reader: FormatReader;
  try {
    reader = formatReader(format, options);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    yield { line: 1, error };
    return;
  }
  const firstLineOfId = new Map<string, number>();
  const source = parsedRecords(reader, pieces, file);
  try {
    for (;;) {
      let next: IteratorResult<ParsedOrFailed>;
      try {
        next = await source.next();
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        const { line = 1, record } = error.location;
        yield { line, ...(record !== undefined ? { record } : {}), error };
        return;
      }
      if (next.done) return;
      const parsed = next.value;
      if ("error" in parsed) {
        yield parsed;
        continue;
      }
      yield convertRecord(reader, parsed, file, firstLineOfId);
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
): RecordOutcome {
  const at = { file, line: parsed.line, record: parsed.record };
  try {
    const { solution, sourceId } = reader.convert(parsed.value, at);
    if (sourceId) {
      const firstLine = firstLineOfId.get(sourceId.value);
      if (firstLine !== undefined) {
        throw recordError(at, `duplicate id ${JSON.stringify(sourceId.value)}: first used by the record on line ${firstLine}`, sourceId.field);
      }
      firstLineOfId.set(sourceId.value, parsed.line);
    }
    return { line: parsed.line, record: parsed.record, solution };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { line: parsed.line, record: parsed.record, error };
  }
}

/**
 * Reads an import file record by record, holding one record in memory at a
 * time. The first bad record stops the import with an InputError naming the
 * file, line, record and field: an import is all or nothing, so the person
 * fixes the file (the preview lists every bad row up front).
 */
export async function* readImportRecords(
  format: ImportFormat,
  pieces: AsyncIterable<Uint8Array>,
  options: ImportReadOptions,
): AsyncGenerator<ImportedRecord> {
  for await (const outcome of recordOutcomes(format, pieces, options)) {
    if (outcome.error) throw outcome.error;
    yield outcome;
  }
}

export interface PreviewRow {
  line: number;
  solution?: ImportedSolution;
  /** The located message (file:line, record, field: reason). */
  error?: string;
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
  const rows: PreviewRow[] = [];
  if (maxRecords <= 0) return { rows };
  for await (const outcome of recordOutcomes(format, pieces, options)) {
    rows.push(outcome.error ? { line: outcome.line, error: outcome.error.message } : { line: outcome.line, solution: outcome.solution });
    if (rows.length >= maxRecords) break;
  }
  return { rows };
}
