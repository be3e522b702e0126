import { SOLUTION_AGGREGATIONS, type SolutionAggregation } from "@stepwiser/core";
import type { ExportSpecInput } from "@stepwiser/jobs";
import { numberFlag } from "../input/numbers";
import { LABEL_RULE_FLAGS, parseRule } from "../input/label-rule";
import { UsageError } from "../usage-error";
import { SFT_FORMATS, SOLUTION_FORMATS, TRAINING_SET_FORMATS, type SftFormat, type TrainingSetFormat } from "../vocabulary";

export const EXPORT_KINDS = ["training-set", "segmentation-sft", "selection", "labels", "predictions"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
/** The kinds that write several files: --out is a directory. */
export const DIRECTORY_KINDS: readonly string[] = ["training-set", "segmentation-sft", "selection"];

export const EXPORT_OPTIONS = {
  run: { type: "string" },
  out: { type: "string" },
  ...LABEL_RULE_FLAGS,
  format: { type: "string" },
  "max-per-problem": { type: "string" },
  "include-incorrect": { type: "boolean", default: false },
  aggregate: { type: "string" },
  baseline: { type: "string" },
  seed: { type: "string" },
  "held-out": { type: "string" },
  "min-chars": { type: "string" },
  "max-chars": { type: "string" },
  "min-confidence": { type: "string" },
  "data-source": { type: "string" },
  "balance-solutions": { type: "boolean", default: false },
  "max-response-tokens": { type: "string" },
  detach: { type: "boolean", default: false },
} as const;

export interface ExportFlagValues {
  run?: string;
  out?: string;
  rule?: string;
  gamma?: string;
  alpha?: string;
  n?: string;
  evidence?: string;
  format?: string;
  "max-per-problem"?: string;
  "include-incorrect"?: boolean;
  aggregate?: string;
  baseline?: string;
  seed?: string;
  "held-out"?: string;
  "min-chars"?: string;
  "max-chars"?: string;
  "min-confidence"?: string;
  "data-source"?: string;
  "balance-solutions"?: boolean;
  "max-response-tokens"?: string;
  detach?: boolean;
}

/** The export kind named first on `export`'s command line, or a usage error listing them. */
export function exportKindOf(kind: string | undefined): ExportKind {
  if (!kind || !(EXPORT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`export needs one of ${EXPORT_KINDS.join(", ")}${kind ? ` (got "${kind}")` : ""}`);
  return kind as ExportKind;
}

/** The flags of `export <kind>` as the export's spec; a bad or missing flag is a usage error naming it. */
export function exportSpecOf(kind: ExportKind, values: ExportFlagValues): ExportSpecInput {
  if (!values.run) throw new UsageError("--run is required: the run whose labels or predictions are exported");
  const toDirectory = DIRECTORY_KINDS.includes(kind);
  if (!values.out && !values.detach) throw new UsageError(`--out is required: ${toDirectory ? "a directory for the files" : "a file (or - for stdout)"}`);
  if (toDirectory && values.out === "-") throw new UsageError(`--out must be a directory: ${kind} writes several files`);
  const optional = (flag: string, raw: string | undefined) => (raw === undefined ? undefined : numberFlag(flag, raw));
  if (kind === "segmentation-sft" || kind === "selection") {
    const format = values.format ?? "chat-jsonl";
    if (!(SFT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be ${SFT_FORMATS.slice(0, -1).join(", ")} or ${SFT_FORMATS.at(-1)}, got "${format}"`);
    const common = { runId: values.run, format: format as SftFormat, seed: optional("seed", values.seed), heldOutFraction: optional("held-out", values["held-out"]) };
    if (kind === "segmentation-sft") {
      for (const flag of ["aggregate", "baseline"] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to export selection only`);
      return { kind: "segmentation-sft", ...common, maxPerProblem: optional("max-per-problem", values["max-per-problem"]), includeIncorrect: values["include-incorrect"] ?? false };
    }
    if (values["max-per-problem"] !== undefined || values["include-incorrect"]) throw new UsageError("--max-per-problem and --include-incorrect apply to export segmentation-sft only");
    if (values.aggregate === undefined) throw new UsageError(`--aggregate is required: ${SOLUTION_AGGREGATIONS.join(", ")} (how a response's chunk scores become its score)`);
    if (!(SOLUTION_AGGREGATIONS as readonly string[]).includes(values.aggregate)) throw new UsageError(`--aggregate must be ${SOLUTION_AGGREGATIONS.join(", ")}, got "${values.aggregate}"`);
    if (values.baseline !== undefined && values.baseline !== "outcome") throw new UsageError(`--baseline must be outcome (a seeded random correct response), got "${values.baseline}"`);
    return { kind: "selection", ...common, aggregate: values.aggregate as SolutionAggregation, ...(values.baseline ? { baseline: "outcome" as const } : {}) };
  }
  if (kind === "training-set") {
    const format = values.format ?? "verl";
    if (!(TRAINING_SET_FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`--format must be ${TRAINING_SET_FORMATS.slice(0, -1).join(", ")} or ${TRAINING_SET_FORMATS.at(-1)}, got "${format}"`);
    }
    if (values["balance-solutions"] && !SOLUTION_FORMATS.includes(format as TrainingSetFormat)) {
      throw new UsageError(`--balance-solutions applies to --format trl-prm or openrlhf-prm only (got --format ${format})`);
    }
    const minConfidence = optional("min-confidence", values["min-confidence"]);
    if (minConfidence !== undefined && !(minConfidence >= 0 && minConfidence <= 1)) {
      throw new UsageError(`--min-confidence must be between 0 and 1 (a label's confidence is a probability), got ${values["min-confidence"]}`);
    }
    return {
      kind,
      annotateRunId: values.run,
      labelRule: parseRule(values),
      format: format as TrainingSetFormat,
      seed: optional("seed", values.seed),
      heldOutFraction: optional("held-out", values["held-out"]),
      minPromptChars: optional("min-chars", values["min-chars"]),
      maxPromptChars: optional("max-chars", values["max-chars"]),
      minConfidence,
      dataSource: values["data-source"],
      balanceSolutions: values["balance-solutions"] ?? false,
      maxResponseTokens: optional("max-response-tokens", values["max-response-tokens"]),
    };
  }
  return { kind, runId: values.run };
}
