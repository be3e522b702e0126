import type { ImportedSolution } from "./imported-solution";
import { piecesOf } from "./byte-streams";
import { readImportRecords } from "./read-records";

/**
 * The solutions of a whole ProcessBench file already in memory (demo data, the
 * inline API, `processbench score`), read by the same streaming reader an
 * import uses: the first bad record rejects the file with an InputError that
 * names its file, line, record and field. `subset` overrides the ids' prefixes.
 */
export async function readProcessBenchFile(content: Uint8Array | string, file: string, options: { subset?: string } = {}): Promise<ImportedSolution[]> {
  const solutions: ImportedSolution[] = [];
  for await (const record of readImportRecords("processbench", piecesOf(content), { file, ...options })) solutions.push(record.solution);
  return solutions;
}
