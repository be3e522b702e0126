import { z } from "zod";
import { segmentationSftExportSchema, selectionExportSchema } from "./sft/options";
import { trainingSetExportSchema } from "./training-set/options";

/** What an export run writes; each kind names the run it reads. */
export const exportSpecSchema = z.discriminatedUnion("kind", [
  trainingSetExportSchema.extend({ kind: z.literal("training-set") }),
  /** SFT rows for the self-segmenting policy from a segment run (paper §3.1). */
  segmentationSftExportSchema.extend({ kind: z.literal("segmentation-sft") }),
  /** Stepwise data selection from a judge run: each problem's best-judged correct response (paper §4.4, Table 8). */
  selectionExportSchema.extend({ kind: z.literal("selection") }),
  z.object({ kind: z.literal("labels"), runId: z.string().min(1) }),
  z.object({ kind: z.literal("predictions"), runId: z.string().min(1) }),
  /** The OpenAI batch file of an offline annotate or judge run's requests, for `vllm run-batch`. */
  z.object({ kind: z.literal("batch-requests"), runId: z.string().min(1) }),
]);
export type ExportSpec = z.output<typeof exportSpecSchema>;

/** An export run's stored config: what it writes. */
export const exportConfigSchema = z.object({ export: exportSpecSchema });
export type ExportSpecInput = z.input<typeof exportSpecSchema>;

/** The run an export reads. */
export function sourceRunId(spec: ExportSpec): string {
  return spec.kind === "training-set" ? spec.annotateRunId : spec.runId;
}
