import path from "node:path";
import { RULE_SEGMENTERS, segmentationStats, type LocatedChunk } from "@stepwiser/core";
import { readInputText } from "../input/files";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

const METHODS = Object.keys(RULE_SEGMENTERS) as (keyof typeof RULE_SEGMENTERS)[];

/** The JSON shape of a located chunk on the command line (snake_case like every CLI field). */
export function chunkJson(chunk: LocatedChunk) {
  return { index: chunk.index, text: chunk.text, start_offset: chunk.startOffset, end_offset: chunk.endOffset };
}

/** `stepwiser segment --method blank-line|step-markers --file F` */
export async function segmentCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("segment", { args, options: { method: { type: "string" }, file: { type: "string" } } });
  const method = values.method;
  if (!method || !(METHODS as string[]).includes(method)) {
    throw new UsageError(`--method must be one of ${METHODS.join(", ")}${method ? `, got "${method}"` : ""}`);
  }
  if (!values.file) throw new UsageError("--file is required (a solution text; - for stdin)");
  const text = await readInputText(values.file);
  const chunks = RULE_SEGMENTERS[method as keyof typeof RULE_SEGMENTERS](text);
  const stats = segmentationStats([chunks]);
  process.stdout.write(
    `${JSON.stringify({
      file: values.file === "-" ? "-" : path.basename(values.file),
      method,
      chunk_count: chunks.length,
      one_line_chunk_share: stats.oneLineChunkShare,
      chunks: chunks.map(chunkJson),
    })}\n`,
  );
}
