import path from "node:path";
import { locateTaggedChunks, SegmentationError } from "@stepwiser/core";
import { readInputText } from "../input/files";
import { UsageError } from "../usage-error";
import { chunkJson } from "./segment";
import { parseFlags } from "../input/flags";

/**
 * `stepwiser chunks check --original F --chunked G`: does the <chunk>-tagged text
 * reproduce the original exactly? Exit 0 when it does; 1 with the place where the
 * texts diverge when it does not (never repaired).
 */
export async function chunksCheckCommand(args: string[]): Promise<void> {
  const { values } = parseFlags("chunks check", { args, options: { original: { type: "string" }, chunked: { type: "string" } } });
  if (!values.original) throw new UsageError("--original is required (the solution text)");
  if (!values.chunked) throw new UsageError("--chunked is required (the same text wrapped in <chunk> tags)");
  const [original, chunked] = await Promise.all([readInputText(values.original), readInputText(values.chunked)]);
  try {
    const chunks = locateTaggedChunks(original, chunked);
    process.stdout.write(`${JSON.stringify({ valid: true, chunk_count: chunks.length, chunks: chunks.map(chunkJson) })}\n`);
  } catch (error) {
    if (!(error instanceof SegmentationError)) throw error;
    const { details } = error;
    const result = {
      valid: false,
      kind: error.kind,
      message: error.message,
      chunk_index: details.chunkIndex ?? null,
      chunked: details.chunked ?? null,
      original: details.original ?? null,
      excerpts: details.excerpts ?? null,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.stderr.write(`${path.basename(values.chunked)}: invalid segmentation: ${error.message}\n`);
    process.exitCode = 1;
  }
}
