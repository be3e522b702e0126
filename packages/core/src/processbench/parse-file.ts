import { InputError } from "../errors/input-error";
import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from "../text/json-depth";
import { jsonErrorLocation, lineOfOffset, topLevelElementOffsets } from "./json-scan";
import { processBenchRecordSchema, type ProcessBenchRecord } from "./record";

export interface ParsedProcessBenchFile {
  records: ProcessBenchRecord[];
}

/**
 * Parses and validates a whole ProcessBench JSON file. Any bad record rejects
 * the file: the error names the file, line, record index and field.
 */
export function parseProcessBenchFile(text: string, file: string): ParsedProcessBenchFile {
  let data: unknown;
  assertJsonDepth(text, DEFAULT_MAX_JSON_DEPTH, { file });
  try {
    data = JSON.parse(text);
  } catch (error) {
    const { line, reason } = jsonErrorLocation(text, error);
    throw new InputError(`not valid JSON (${reason})`, { file, line });
  }
  if (!Array.isArray(data)) {
    throw new InputError("expected a JSON array of ProcessBench records", { file, line: 1 });
  }
  if (data.length === 0) throw new InputError("the file holds no records", { file, line: 1 });

  let offsets: number[] | undefined;
  const seenIds = new Map<string, number>();
  const records: ProcessBenchRecord[] = [];
  for (let index = 0; index < data.length; index++) {
    const lineOf = () => {
      offsets ??= topLevelElementOffsets(text);
      const offset = offsets[index];
      return offset === undefined ? undefined : lineOfOffset(text, offset);
    };
    const result = processBenchRecordSchema.safeParse(data[index]);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const field = issue.path.map(String).join(".") || undefined;
      throw new InputError(issue.message, { file, line: lineOf(), record: index, field });
    }
    const previous = seenIds.get(result.data.id);
    if (previous !== undefined) {
      throw new InputError(`duplicate id "${result.data.id}" (first used by record ${previous})`, {
        file,
        line: lineOf(),
        record: index,
        field: "id",
      });
    }
    seenIds.set(result.data.id, index);
    records.push(result.data);
  }
  return { records };
}
