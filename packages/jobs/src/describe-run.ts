import type { StoredRun } from "./read-run";
import { tryReadStoredConfig } from "./runs/stored-config";
import { isRunKind, RUN_KINDS } from "./registry";
import type { AnyRunKind } from "./runs/run-kind";

/** The minute a run was created, as every run label shows it. */
export function runMinute(createdAt: Date): string {
  return `${createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}


/**
 * The name a run gets when its launcher gives none: `<kind> · <what sets it apart>`,
 * e.g. `judge · sim-judge-strong · K=3` or `annotate · Qwen2.5-7B · M=16 · fixed`. The facts
 * come from the typed reading of its config, so they show the defaults the run ran with.
 * A run whose config does not read is still named, by its id.
 */
export function defaultRunName(run: { kind: StoredRun["kind"]; config: unknown; id?: string }): string {
  const kind: AnyRunKind | undefined = isRunKind(run.kind) ? RUN_KINDS[run.kind] : undefined;
  const config: unknown = kind ? tryReadStoredConfig({ id: run.id ?? "new", kind: run.kind, config: run.config }, kind.storedSchema) : null;
  // What tells runs of one kind apart, read from the config with its kind's defaults.
  const parts = !kind || config === null ? [...(run.id ? [run.id] : []), "config unreadable"] : kind.facts(config);
  return [run.kind.replaceAll("_", "-"), ...parts].join(" · ");
}

/** A run's name: the stored one, or for a run stored before runs had names, the generated one. */
export function runName(run: StoredRun & { name: string | null }): string {
  return run.name ?? defaultRunName(run);
}

/**
 * The one line naming a run in every picker, legend and table header: its name and
 * the minute it was created (names need not be unique), e.g.
 * `judge · sim-judge-strong · K=3 · 2026-01-01 00:00 UTC`.
 */
export function describeRun(run: StoredRun & { name: string | null; createdAt: Date }): string {
  return [runName(run), runMinute(run.createdAt)].join(" · ");
}
