import { PARAGRAPH_SEPARATOR } from "../chunks/paragraphs";
import { processBenchRecordSchema, subsetFromId } from "../processbench/record";
import { contentHashOf } from "./content-hash";
import type { FormatReader } from "./format-reader";
import { parseRecord } from "./record-context";

export interface ProcessBenchReadOptions {
  subset?: string;
}

/**
 * ProcessBench (a JSON array of `{id, generator, problem, steps, final_answer_correct, label}`):
 * one step per paragraph, joined by a blank line exactly as `chunksFromParagraphs`
 * stores them. The only ProcessBench parser: whole files in memory are read by
 * it too (`readProcessBenchFile`).
 */
export function processBenchReader(options: ProcessBenchReadOptions): FormatReader {
  return {
    layout: "json-array",
    convert(value, at) {
      const record = parseRecord(processBenchRecordSchema, value, at);
      return {
        sourceId: { value: record.id, field: "id" },
        solution: {
          externalId: record.id,
          subset: options.subset ?? subsetFromId(record.id),
          generator: record.generator,
          problem: record.problem,
          referenceAnswer: null,
          steps: record.steps,
          separator: PARAGRAPH_SEPARATOR,
          finalAnswer: null,
          finalAnswerCorrect: record.final_answer_correct,
          firstErrorIndex: record.label,
          ratings: null,
          hardLabels: null,
          softLabels: null,
          metadata: {},
          contentHash: contentHashOf(record.problem, record.steps, record.generator),
        },
      };
    },
  };
}
