import { InputError } from "@stepwiser/core";
import type { RunKind } from "@stepwiser/db";
import type { Db } from "@stepwiser/db";
import { z } from "zod";
import { exportSpecSchema } from "../exports/export-spec";
import { annotateStoredConfigSchema } from "../pipelines/annotate/config";
import { benchmarkStoredConfigSchema } from "../pipelines/benchmark/config";
import { bestOfNStoredConfigSchema } from "../pipelines/best-of-n/handler";
import { chunkResetStoredConfigSchema } from "../pipelines/chunk-reset/handler";
import { generateStoredConfigSchema } from "../pipelines/generate/config";
import { importRunConfigSchema } from "../pipelines/import/options";
import { judgeStoredConfigSchema } from "../pipelines/judge/handler";
import { segmentStoredConfigSchema } from "../pipelines/segment/config";
import { markRunFinished } from "./run-state";

/**
 * How each run kind's `Run.config` snapshot reads: the kind's own schema, so a
 * default (M = 16 rollouts, K = 1 judge sample, …) lives in one place and a
 * reader gets it filled in and typed.
 */
export const STORED_RUN_CONFIG_SCHEMAS = {
  import: importRunConfigSchema,
  generate: generateStoredConfigSchema,
  segment: segmentStoredConfigSchema,
  annotate: annotateStoredConfigSchema,
  judge: judgeStoredConfigSchema,
  benchmark: benchmarkStoredConfigSchema,
  chunk_reset: chunkResetStoredConfigSchema,
  best_of_n: bestOfNStoredConfigSchema,
  export: z.object({ export: exportSpecSchema }),
} as const satisfies Record<RunKind, z.ZodType>;

export type RunConfigOf<K extends RunKind> = z.output<(typeof STORED_RUN_CONFIG_SCHEMAS)[K]>;

/** A run with its config read: narrowing on `kind` types `config`. */
export type RunWithConfig = { [K in RunKind]: { kind: K; config: RunConfigOf<K> } }[RunKind];

/** What reading needs of a stored run. */
export interface StoredRun<K extends RunKind = RunKind> {
  id: string;
  kind: K;
  config: unknown;
}

/** A stored config its kind's schema does not read: a run written by hand or by a version whose fields were since removed. */
export class UnreadableRunConfigError extends InputError {}

/**
 * The one typed reading of a stored run's config: parsed with its kind's schema,
 * defaults filled in. Throws `UnreadableRunConfigError`, naming the run and the field,
 * when the snapshot does not read.
 */
export function readRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K> {
  const parsed = (STORED_RUN_CONFIG_SCHEMAS[run.kind] as z.ZodType).safeParse(run.config ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UnreadableRunConfigError(`run ${run.id}: its stored ${run.kind} config does not read: ${issue.message}`, {
      field: ["config", ...issue.path.map(String)].join("."),
    });
  }
  return parsed.data as RunConfigOf<K>;
}

/** `readRunConfig`, or null when the snapshot does not read (for lists that must still show the run). */
export function tryReadRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K> | null {
  try {
    return readRunConfig(run);
  } catch (error) {
    if (error instanceof UnreadableRunConfigError) return null;
    throw error;
  }
}

/** A run and its config, typed together by kind. */
export function readRun(run: StoredRun): RunWithConfig {
  return { kind: run.kind, config: readRunConfig(run) } as RunWithConfig;
}

/**
 * Reads the config of a run about to execute. A config that does not read fails the
 * run with `failure` and the reason, and gives null: the caller stops there.
 */
export async function readConfigOrFailRun<K extends RunKind>(db: Db, run: StoredRun<K>, failure: string): Promise<RunConfigOf<K> | null> {
  try {
    return readRunConfig(run);
  } catch (error) {
    if (!(error instanceof UnreadableRunConfigError)) throw error;
    await markRunFinished(db, run.id, "failed", `${failure}: ${error.reason}`);
    return null;
  }
}
