import type { RunKind } from "@stepwiser/db";
import type { z } from "zod";
import { RUN_KINDS, type RunKinds } from "./registry";
import { readStoredConfig, readSummary, tryReadStoredConfig, UnreadableRunConfigError } from "./runs/stored-config";

export { UnreadableRunConfigError };

/** How each run kind's `Run.config` snapshot reads: the kind's stored schema, so a default lives in one place. */
export type RunConfigOf<K extends RunKind> = z.output<RunKinds[K]["storedSchema"]>;

/** How each run kind's `Run.summary` reads. */
export type RunSummaryOf<K extends RunKind> = z.output<RunKinds[K]["summarySchema"]>;

/** A run with its config read: narrowing on `kind` types `config`. */
export type RunWithConfig = { [K in RunKind]: { kind: K; config: RunConfigOf<K> } }[RunKind];

/** A stored run read whole: narrowing on `kind` types `config` and `summary` (null when there is none or it reads otherwise). */
export type ReadRun = { [K in RunKind]: { kind: K; config: RunConfigOf<K>; summary: RunSummaryOf<K> | null } }[RunKind];

/** What reading needs of a stored run. */
export interface StoredRun<K extends RunKind = RunKind> {
  id: string;
  kind: K;
  config: unknown;
}

/**
 * The one typed reading of a stored run's config: parsed with its kind's stored schema,
 * defaults filled in. Throws `UnreadableRunConfigError`, naming the run and the field,
 * when the snapshot does not read.
 */
export function readRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K> {
  return readStoredConfig(run, RUN_KINDS[run.kind].storedSchema as z.ZodType<RunConfigOf<K>>);
}

/** `readRunConfig`, or null when the snapshot does not read (for lists that must still show the run). */
export function tryReadRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K> | null {
  return tryReadStoredConfig(run, RUN_KINDS[run.kind].storedSchema as z.ZodType<RunConfigOf<K>>);
}


/** A stored run's summary, read by its kind's summary schema (null when there is none or it reads otherwise). */
export function readRunSummary<K extends RunKind>(run: { kind: K; summary: unknown }): RunSummaryOf<K> | null {
  return readSummary(RUN_KINDS[run.kind].summarySchema as z.ZodType<RunSummaryOf<K>>, run.summary);
}

/**
 * The one typed reading of a stored run: its kind, its config by the kind's stored
 * schema (throws `UnreadableRunConfigError` when it does not read) and its summary
 * by the kind's summary schema.
 */
export function readRun(run: StoredRun & { summary?: unknown }): ReadRun {
  return { kind: run.kind, config: readRunConfig(run), summary: readRunSummary({ kind: run.kind, summary: run.summary }) } as ReadRun;
}


/** `readRun`, or null when its config does not read (for pages that must still show the run). */
export function tryReadRun(run: StoredRun & { summary?: unknown }): ReadRun | null {
  try {
    return readRun(run);
  } catch (error) {
    if (error instanceof UnreadableRunConfigError) return null;
    throw error;
  }
}
