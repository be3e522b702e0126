import type { z } from "zod";
import { isRunKind, RUN_KIND_NAMES, RUN_KINDS, type RunKind, type RunKinds } from "./registry";
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

/** What reading needs of a stored run (`kind` is text in the database; a known kind narrows it). */
export interface StoredRun<K extends string = string> {
  id: string;
  kind: K;
  config: unknown;
}

/** The schemas of a stored run's kind; an unknown kind (a row written by hand or by a release with more kinds) does not read. */
function kindOf(run: { id: string; kind: string }) {
  if (!isRunKind(run.kind)) throw new UnreadableRunConfigError(`run ${run.id}: "${run.kind}" is not a run kind of this release (known: ${RUN_KIND_NAMES.join(", ")})`, { field: "kind" });
  return RUN_KINDS[run.kind];
}

/**
 * The one typed reading of a stored run's config: parsed with its kind's stored schema,
 * defaults filled in. Throws `UnreadableRunConfigError`, naming the run and the field,
 * when the snapshot (or its kind) does not read.
 */
export function readRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K>;
export function readRunConfig(run: StoredRun): RunConfigOf<RunKind>;
export function readRunConfig(run: StoredRun): RunConfigOf<RunKind> {
  return readStoredConfig(run, kindOf(run).storedSchema as z.ZodType<RunConfigOf<RunKind>>);
}

/** `readRunConfig`, or null when the snapshot does not read (for lists that must still show the run). */
export function tryReadRunConfig<K extends RunKind>(run: StoredRun<K>): RunConfigOf<K> | null;
export function tryReadRunConfig(run: StoredRun): RunConfigOf<RunKind> | null;
export function tryReadRunConfig(run: StoredRun): RunConfigOf<RunKind> | null {
  if (!isRunKind(run.kind)) return null;
  return tryReadStoredConfig(run, RUN_KINDS[run.kind].storedSchema as z.ZodType<RunConfigOf<RunKind>>);
}

/** A stored run's summary, read by its kind's summary schema (null when there is none, it reads otherwise, or the kind is unknown). */
export function readRunSummary<K extends RunKind>(run: { kind: K; summary: unknown }): RunSummaryOf<K> | null;
export function readRunSummary(run: { kind: string; summary: unknown }): RunSummaryOf<RunKind> | null;
export function readRunSummary(run: { kind: string; summary: unknown }): RunSummaryOf<RunKind> | null {
  if (!isRunKind(run.kind)) return null;
  return readSummary(RUN_KINDS[run.kind].summarySchema as z.ZodType<RunSummaryOf<RunKind>>, run.summary);
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
