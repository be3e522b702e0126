import { InputError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import type { z } from "zod";
import { markRunFinished } from "./run-state";

/** A stored config its kind's schema does not read: a run written by hand or by a version whose fields were since removed. */
export class UnreadableRunConfigError extends InputError {}

/**
 * A stored run's config read by its kind's stored schema, defaults filled in.
 * Throws `UnreadableRunConfigError`, naming the run and the field, when it does not read.
 */
export function readStoredConfig<T>(run: { id: string; kind: string; config: unknown }, storedSchema: z.ZodType<T>): T {
  const parsed = storedSchema.safeParse(run.config ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UnreadableRunConfigError(`run ${run.id}: its stored ${run.kind} config does not read: ${issue.message}`, {
      field: ["config", ...issue.path.map(String)].join("."),
    });
  }
  return parsed.data;
}

/** `readStoredConfig`, or null when the snapshot does not read (for lists that must still show the run). */
export function tryReadStoredConfig<T>(run: { id: string; kind: string; config: unknown }, storedSchema: z.ZodType<T>): T | null {
  try {
    return readStoredConfig(run, storedSchema);
  } catch (error) {
    if (error instanceof UnreadableRunConfigError) return null;
    throw error;
  }
}

/**
 * Reads the config of a run about to execute. A config that does not read fails the
 * run with `failure` and the reason, and gives null: the caller stops there.
 */
export async function readConfigOrFailRun<T>(db: Db, run: { id: string; kind: string; config: unknown }, storedSchema: z.ZodType<T>, failure: string): Promise<T | null> {
  try {
    return readStoredConfig(run, storedSchema);
  } catch (error) {
    if (!(error instanceof UnreadableRunConfigError)) throw error;
    await markRunFinished(db, run.id, "failed", `${failure}: ${error.reason}`);
    return null;
  }
}

/** A stored summary read by its kind's summary schema, or null when there is none or it has another shape. */
export function readSummary<T>(summarySchema: z.ZodType<T>, summary: unknown): T | null {
  if (summary === null || summary === undefined) return null;
  const parsed = summarySchema.safeParse(summary);
  return parsed.success ? parsed.data : null;
}
