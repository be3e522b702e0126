import { annotateKind } from "./kinds/annotate/kind";
import { benchmarkKind } from "./kinds/benchmark/kind";
import { bestOfNKind } from "./kinds/best-of-n/kind";
import { chunkResetKind } from "./kinds/chunk-reset/kind";
import { exportKind } from "./kinds/export/kind";
import { generateKind } from "./kinds/generate/kind";
import { importKind } from "./kinds/import/kind";
import { judgeKind } from "./kinds/judge/kind";
import { segmentKind } from "./kinds/segment/kind";
import type { AnyRunKind, AnyUnitRunKind, UnitRunKinds, WholeRunKind } from "./runs/run-kind";

/**
 * Every run kind, by `Run.kind`: one line per kind, each a module of its own
 * folder under kinds/. A new kind is its folder and a line here.
 */
export const RUN_KINDS = {
  import: importKind,
  generate: generateKind,
  segment: segmentKind,
  annotate: annotateKind,
  judge: judgeKind,
  benchmark: benchmarkKind,
  chunk_reset: chunkResetKind,
  best_of_n: bestOfNKind,
  export: exportKind,
} as const satisfies Record<string, AnyRunKind>;

export type RunKinds = typeof RUN_KINDS;

/** A run kind's name, as `Run.kind` stores it. */
export type RunKind = keyof RunKinds;

/** Every run kind's name, for the schemas that accept one. */
export const RUN_KIND_NAMES = Object.keys(RUN_KINDS) as [RunKind, ...RunKind[]];

/**
 * The data jobs: kinds that bring data in (an import, the import of an offline batch's
 * output among them) or write it out (an export) and have no results of their own.
 * The runs list leaves them out unless asked for them.
 */
export const DATA_RUN_KIND_NAMES = ["import", "export"] as const satisfies readonly RunKind[];

/** Whether `kind` is a data job's kind (`DATA_RUN_KIND_NAMES`). */
export function isDataRunKind(kind: string): boolean {
  return (DATA_RUN_KIND_NAMES as readonly string[]).includes(kind);
}

/** Whether `kind` names a kind of the registry (a stored run's `kind` is text). */
export function isRunKind(kind: string): kind is RunKind {
  return Object.hasOwn(RUN_KINDS, kind);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above, for the kinds executed whole
type AnyWholeRunKind = WholeRunKind<any, any>;

/** The kinds the engine executes unit by unit, by `Run.kind`. */
export const UNIT_RUN_KINDS: UnitRunKinds = unitKindsOf(RUN_KINDS);

/** The kinds executed whole by one job of their own queue. */
export const WHOLE_RUN_KINDS: readonly AnyWholeRunKind[] = Object.values(RUN_KINDS as Record<string, AnyRunKind>).filter((kind): kind is AnyWholeRunKind => kind.execution === "whole");

/** The unit kinds of a registry (a test's registry holds a toy kind besides the product's). */
export function unitKindsOf(kinds: Readonly<Record<string, AnyRunKind>>): UnitRunKinds {
  return new Map(Object.values(kinds).flatMap((kind): [string, AnyUnitRunKind][] => (kind.execution === "units" ? [[kind.kind, kind]] : [])));
}
