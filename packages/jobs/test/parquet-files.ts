import { Field, Table, tableToIPC, vectorFromArray, type DataType } from "apache-arrow";
import { Compression, Table as WasmTable, writeParquet, WriterPropertiesBuilder } from "parquet-wasm";

/** A column of a Parquet file written by a test: its Arrow type and one value per row. */
export type ParquetColumn = [DataType, unknown[]];

/** A nullable field, as pyarrow infers them; list items are named "element", as the Parquet spec and pyarrow name them. */
export const nullable = (name: string, type: DataType) => new Field(name, type, true);

/**
 * Writes the columns as a Parquet file with another implementation than the
 * reader's (parquet-wasm, Rust's parquet crate), `rowsPerGroup` rows per row group.
 */
export function writeParquetFile(columns: Record<string, ParquetColumn>, rowsPerGroup: number, compression: Compression = Compression.SNAPPY): Uint8Array {
  const vectors = Object.fromEntries(Object.entries(columns).map(([name, [type, values]]) => [name, vectorFromArray(values, type)]));
  const table = new Table(vectors);
  const properties = new WriterPropertiesBuilder().setCompression(compression).setMaxRowGroupSize(rowsPerGroup).build();
  return writeParquet(WasmTable.fromIPCStream(tableToIPC(table, "stream")), properties);
}
