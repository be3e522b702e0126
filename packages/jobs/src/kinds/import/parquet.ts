import { open } from "node:fs/promises";
import zlib from "node:zlib";
import {
  formatReader,
  InputError,
  outcomesOfValues,
  type FieldMapping,
  type ImportOutcome,
  type ImportReadOptions,
  type SourceValue,
} from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { parquetMetadataAsync, parquetReadObjects, parquetSchema, snappyUncompress, type AsyncBuffer, type CompressionCodec, type Compressors, type FileMetaData } from "hyparquet";
import { compressors as codecLibrary, decompressZstd } from "hyparquet-compressors";
import { readStoredFileRange } from "../../files/stored-files";

/*
 * Parquet import: a Parquet file's index (the footer) is at its end and its
 * rows are stored column by column in row groups, so it is read by random
 * access, one row group at a time. Each row becomes a plain JSON value and is
 * read by the same field mapping as a JSONL record; `line` is the 1-based row
 * number, so errors read "file.parquet:ROW, record ROW-1, field …".
 */

const MAGIC = "PAR1";

/** Slices the buffer as a fresh ArrayBuffer of exactly those bytes. */
const ownBuffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);

/** A stored upload as a random-access buffer: each slice fetches only the parts covering it. */
export function storedFileBuffer(db: Db, fileId: string, byteLength: number): AsyncBuffer {
  return {
    byteLength,
    async slice(start, end = byteLength) {
      return ownBuffer(await readStoredFileRange(db, fileId, start, Math.min(end, byteLength)));
    },
  };
}

/** A local file (the CLI's) as a random-access buffer over one open handle; close it when done. */
export async function openLocalFileBuffer(filePath: string): Promise<AsyncBuffer & { close(): Promise<void> }> {
  const handle = await open(filePath, "r");
  try {
    const { size } = await handle.stat();
    return {
      byteLength: size,
      async slice(start, end = size) {
        const length = Math.max(0, Math.min(end, size) - start);
        const bytes = new Uint8Array(length);
        let filled = 0;
        while (filled < length) {
          const { bytesRead } = await handle.read(bytes, filled, length - filled, start + filled);
          if (bytesRead === 0) throw new Error(`${filePath} ended at byte ${start + filled}, before byte ${start + length}`);
          filled += bytesRead;
        }
        return bytes.buffer;
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A value as hyparquet decodes it, turned into plain JSON for the field
 * mapping: INT64 values (BigInt) become numbers when they are safe integers and
 * their decimal text otherwise; dates and timestamps their ISO 8601 text;
 * structs objects, lists arrays; byte arrays that are not text (no UTF-8
 * annotation is needed: hyparquet decodes BYTE_ARRAY columns as UTF-8 strings)
 * arrays of byte values; null stays null.
 */
export function plainJsonOf(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "bigint":
      return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value.toString();
    case "string":
    case "number":
    case "boolean":
      return value;
    case "object": {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
      if (Array.isArray(value)) return value.map(plainJsonOf);
      if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<unknown>, plainJsonOf);
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) out[key] = plainJsonOf(entry);
      return out;
    }
    default:
      return null;
  }
}

/** The largest data page the import decompresses (a writer's default page is 1 MiB). */
export const PARQUET_MAX_PAGE_BYTES = 16 * 1024 * 1024;
/** The most a row group may decompress to, all its pages together (pyarrow's default row group is 1 Mi rows). */
export const PARQUET_MAX_ROW_GROUP_BYTES = 512 * 1024 * 1024;

/** A page (or a row group's pages) would decompress past a cap: a decompression bomb or a lying header. */
class DecompressionLimitError extends Error {
  override readonly name = "DecompressionLimitError";
}

const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes.toLocaleString("en")} bytes`);

/** Node's own ZSTD decoder (22.15 and later), bounded by `maxOutputLength` like gunzip and Brotli. */
const nodeZstd = (zlib as unknown as { zstdDecompressSync?: (input: Uint8Array, options?: { maxOutputLength?: number }) => Buffer }).zstdDecompressSync;

/**
 * Decompressors for one row group's read, bounded: a page may not declare more than PARQUET_MAX_PAGE_BYTES, its
 * codec may not produce more than the page declares, and the group's pages together may not pass `groupBudget`.
 * Every codec of hyparquet-compressors is there (ZSTD, LZ4 with and without Hadoop framing, Snappy, GZIP, Brotli),
 * on every Node.js version, each decoding into at most the page's declared size:
 * - GZIP and Brotli through node:zlib, which stops at `maxOutputLength` (hyparquet-compressors' Brotli grows its
 *   output past the declared size);
 * - ZSTD through node:zlib where this Node.js has it, else hyparquet-compressors' decoder (fzstd) into a buffer of
 *   the declared size;
 * - Snappy through hyparquet's decoder and LZ4/LZ4_RAW through hyparquet-compressors', both writing into a buffer
 *   of the declared size, made after the declared size is checked.
 */
function boundedCompressors(groupBudget: number, maxPageBytes = PARQUET_MAX_PAGE_BYTES): Compressors {
  let used = 0;
  const claim = (declared: number) => {
    if (declared > maxPageBytes) {
      throw new DecompressionLimitError(`a page declares ${declared.toLocaleString("en")} bytes uncompressed, more than the ${mib(maxPageBytes)} a page may hold`);
    }
    used += declared;
    if (used > groupBudget) throw new DecompressionLimitError(`its pages decompress to more than the ${mib(groupBudget)} a row group may hold`);
  };
  const tooLarge = (codec: string, declared: number) =>
    new DecompressionLimitError(`a ${codec} page decompresses to more than the ${declared.toLocaleString("en")} bytes its header declares`);
  const bounded = (codec: string, decompress: (input: Uint8Array, options: zlib.ZlibOptions & zlib.BrotliOptions) => Buffer) => (input: Uint8Array, declared: number) => {
    claim(declared);
    try {
      return new Uint8Array(decompress(input, { maxOutputLength: Math.max(1, declared) }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(codec, declared);
      throw error;
    }
  };
  /** A decoder that writes into a buffer of the declared size (it cannot grow past it); checked once more after. */
  const sized = (codec: string, decompress: (input: Uint8Array, declared: number) => Uint8Array) => (input: Uint8Array, declared: number) => {
    claim(declared);
    const output = decompress(input, declared);
    if (output.byteLength > declared) throw tooLarge(codec, declared);
    return output;
  };
  const compressors: Compressors = {};
  // hyparquet-compressors' decoders (LZ4 and LZ4_RAW stay theirs), each bounded; the ones below replace theirs.
  for (const [codec, decompress] of Object.entries(codecLibrary) as [CompressionCodec, NonNullable<Compressors[CompressionCodec]>][]) {
    compressors[codec] = sized(codec, decompress);
  }
  compressors.SNAPPY = sized("Snappy", (input, declared) => {
    const output = new Uint8Array(declared);
    snappyUncompress(input, output);
    return output;
  });
  compressors.GZIP = bounded("GZIP", (input, options) => zlib.gunzipSync(input, options));
  compressors.BROTLI = bounded("Brotli", (input, options) => zlib.brotliDecompressSync(input, options));
  compressors.ZSTD = nodeZstd
    ? bounded("ZSTD", (input, options) => nodeZstd(input, options))
    : sized("ZSTD", (input, declared) => decompressZstd(input, new Uint8Array(declared)));
  return compressors;
}

const READABLE_CODECS = new Set<CompressionCodec>(["UNCOMPRESSED", ...(Object.keys(boundedCompressors(0)) as CompressionCodec[])]);

const notParquet = (file: string, reason: string) => new InputError(`not a Parquet file: ${reason}`, { file });

async function bytesAt(buffer: AsyncBuffer, start: number, end: number): Promise<string> {
  return new TextDecoder("latin1").decode(new Uint8Array(await buffer.slice(start, end)));
}

/**
 * The file's footer, after checking the magic bytes at both ends. The last 8
 * bytes give the footer's length, so the footer is then fetched exactly: no
 * read reaches into the row groups before them.
 */
async function readFooter(buffer: AsyncBuffer, file: string): Promise<FileMetaData> {
  const size = buffer.byteLength;
  if (size < 12) throw notParquet(file, `it is only ${size} bytes long (a Parquet file starts and ends with "${MAGIC}")`);
  const head = await bytesAt(buffer, 0, 4);
  if (head !== MAGIC) throw notParquet(file, `it does not start with the bytes "${MAGIC}"`);
  const end = new Uint8Array(await buffer.slice(size - 8, size));
  const tail = new TextDecoder("latin1").decode(end.subarray(4));
  if (tail === "PARE") throw new InputError("the Parquet file's footer is encrypted, which the import does not read", { file });
  if (tail !== MAGIC) throw notParquet(file, `it does not end with the bytes "${MAGIC}" (a cut-off or unfinished file?)`);
  const footerLength = new DataView(end.buffer, end.byteOffset, 4).getUint32(0, true);
  if (footerLength + 12 > size) throw notParquet(file, `its footer claims ${footerLength} bytes, more than the file holds`);
  try {
    return await parquetMetadataAsync(buffer, { initialFetchSize: footerLength + 8 });
  } catch (error) {
    throw notParquet(file, `its footer could not be read (${(error as Error).message})`);
  }
}

/** Top-level columns the mapping reads, each with the first mapping key that names it. */
function mappedColumns(mapping: FieldMapping): Map<string, string> {
  const columns = new Map<string, string>();
  for (const [key, value] of Object.entries(mapping)) {
    if (key === "split" || key === "labelKind" || typeof value !== "string") continue;
    const column = value.split(".")[0]!;
    if (!columns.has(column)) columns.set(column, key);
  }
  return columns;
}

export interface ParquetRowsOptions {
  /** Named in every error. */
  file: string;
  /** Read only these top-level columns (default: all); each must exist, else the error names its mapping key. */
  columns?: Map<string, string>;
  /** Caps on decompression (default PARQUET_MAX_PAGE_BYTES and PARQUET_MAX_ROW_GROUP_BYTES). */
  limits?: { maxPageBytes: number; maxRowGroupBytes: number };
  /** Called after each row group is read, with the bytes it spans in the file (for progress). */
  onRowGroup?: (bytes: number) => void;
}

/**
 * The rows of a Parquet file as plain JSON values, in order, reading one row
 * group at a time: a row group is fetched, decoded and converted, its rows are
 * yielded and released before the next is fetched, so memory holds one row
 * group, never the whole file. A file that is not Parquet, or whose footer or
 * a row group cannot be decoded, throws an InputError naming the file (and the
 * rows of the group).
 */
export async function* parquetRows(buffer: AsyncBuffer, options: ParquetRowsOptions): AsyncGenerator<SourceValue> {
  const { file } = options;
  // Errors of the byte source itself (the database, the disk) pass through as they are; only decoding errors are the file's.
  let sourceError: { error: unknown } | null = null;
  const watched: AsyncBuffer = {
    byteLength: buffer.byteLength,
    async slice(start, end) {
      try {
        return await buffer.slice(start, end);
      } catch (error) {
        sourceError = { error };
        throw error;
      }
    },
  };
  const rethrowSource = () => {
    if (sourceError) throw sourceError.error;
  };

  let metadata: FileMetaData;
  try {
    metadata = await readFooter(watched, file);
  } catch (error) {
    rethrowSource();
    throw error;
  }

  let columns: string[] | undefined;
  if (options.columns) {
    const present = parquetSchema(metadata).children.map((child) => child.element.name);
    for (const [column, key] of options.columns) {
      if (!present.includes(column)) {
        throw new InputError(`column "${column}" (mapped to ${key}) is not in the file; its columns are ${present.map((c) => `"${c}"`).join(", ")}`, {
          file,
          field: "--map",
        });
      }
    }
    columns = [...options.columns.keys()];
  }

  // Only the columns read need a codec the reader has.
  const codecs = new Set(
    metadata.row_groups
      .flatMap((group) => group.columns.map((column) => column.meta_data))
      .filter((meta) => meta !== undefined && (!columns || columns.includes(meta.path_in_schema[0]!)))
      .map((meta) => meta!.codec),
  );
  const unreadable = [...codecs].filter((codec) => !READABLE_CODECS.has(codec));
  if (unreadable.length > 0) {
    throw new InputError(
      `the Parquet file is compressed with ${unreadable.join(", ")}, which the import does not read; write it with ${[...READABLE_CODECS].join(", ")} (pyarrow: compression="zstd" or "snappy")`,
      { file },
    );
  }

  const groupCount = metadata.row_groups.length;
  const { maxPageBytes, maxRowGroupBytes } = options.limits ?? { maxPageBytes: PARQUET_MAX_PAGE_BYTES, maxRowGroupBytes: PARQUET_MAX_ROW_GROUP_BYTES };
  let rowStart = 0;
  for (const [index, group] of metadata.row_groups.entries()) {
    const rowCount = Number(group.num_rows);
    const rowEnd = rowStart + rowCount;
    if (rowCount === 0) continue;
    const declared = group.columns
      .filter((column) => column.meta_data && (!columns || columns.includes(column.meta_data.path_in_schema[0]!)))
      .reduce((sum, column) => sum + Number(column.meta_data!.total_uncompressed_size), 0);
    if (declared > maxRowGroupBytes) {
      throw new InputError(
        `row group ${index + 1} of ${groupCount} (rows ${rowStart + 1}–${rowEnd}) declares ${declared.toLocaleString("en")} bytes uncompressed, more than the ${mib(maxRowGroupBytes)} the import reads at once; write the file with smaller row groups (pyarrow: row_group_size)`,
        { file, line: rowStart + 1 },
      );
    }
    let rows: unknown[];
    try {
      rows = await parquetReadObjects({ file: watched, metadata, rowStart, rowEnd, columns, compressors: boundedCompressors(maxRowGroupBytes, maxPageBytes) });
    } catch (error) {
      rethrowSource();
      if (error instanceof DecompressionLimitError) {
        throw new InputError(`row group ${index + 1} of ${groupCount} (rows ${rowStart + 1}–${rowEnd}) was refused: ${error.message}`, { file, line: rowStart + 1 });
      }
      throw new InputError(`row group ${index + 1} of ${groupCount} (rows ${rowStart + 1}–${rowEnd}) could not be decoded: ${(error as Error).message}`, {
        file,
        line: rowStart + 1,
      });
    }
    if (rows.length !== rowCount) {
      throw new InputError(`row group ${index + 1} of ${groupCount} (rows ${rowStart + 1}–${rowEnd}) holds ${rows.length} rows, not the ${rowCount} its footer says`, {
        file,
        line: rowStart + 1,
      });
    }
    options.onRowGroup?.(groupBytes(group));
    for (let i = 0; i < rows.length; i++) {
      const value = plainJsonOf(rows[i]);
      rows[i] = undefined;
      yield { line: rowStart + i + 1, record: rowStart + i, value };
    }
    rowStart = rowEnd;
  }
}

/** The bytes a row group spans: its columns' compressed sizes. */
function groupBytes(group: FileMetaData["row_groups"][number]): number {
  return group.columns.reduce((sum, column) => sum + Number(column.meta_data?.total_compressed_size ?? 0n), 0);
}

/**
 * Every row of a Parquet file as an import outcome, converted by the field
 * mapping exactly as JSONL records are (each row error located by its row and
 * field; a file that is not Parquet, a missing mapped column, or a row group
 * that cannot be decoded ends the sequence as a structural failure).
 */
export function parquetImportOutcomes(buffer: AsyncBuffer, options: ImportReadOptions, onRowGroup?: (bytes: number) => void): AsyncGenerator<ImportOutcome> {
  const { file } = options;
  let reader;
  try {
    reader = formatReader("parquet", options);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return (async function* () {
      yield { kind: "invalid", line: 1, error, structural: true } satisfies ImportOutcome;
    })();
  }
  return outcomesOfValues(reader, parquetRows(buffer, { file, columns: mappedColumns(options.mapping!), onRowGroup }), file, "row");
}

/** A local Parquet file's outcomes (the CLI's check and preview); the file is closed when the sequence ends or is left. */
export async function* localParquetOutcomes(filePath: string, options: ImportReadOptions): AsyncGenerator<ImportOutcome> {
  const buffer = await openLocalFileBuffer(filePath);
  try {
    yield* parquetImportOutcomes(buffer, options);
  } finally {
    await buffer.close();
  }
}
