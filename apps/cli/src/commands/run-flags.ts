import { InputError, isPaperPresetId, PAPER_PRESET_IDS, paperPresetLabelRules, runDescriptionSchema, splitTags, withAverageCoverage } from "@stepwiser/core";
import type { ProgressMeter } from "../progress";
import { UsageError } from "../usage-error";
import { LAUNCHABLE_RUN_KINDS, OFFLINE_RUN_KINDS, RUN_KINDS, RUN_STATUSES } from "../vocabulary";

/*
 * What `run` reads from its command line and prints, shared by the local
 * commands and remote mode (which must not load the database client).
 */

export const RUN_ACTIONS = ["list", "launch", "cancel", "resume", "relabel", "status", "predictions", "edit"] as const;

/** `run chunk-reset` and `run chunk_reset` alike: the kind as stored, when the word names a launchable kind. */
export function launchKindOf(word: string): string | undefined {
  const kind = word.replaceAll("-", "_");
  return (LAUNCHABLE_RUN_KINDS as readonly string[]).includes(kind) ? kind : undefined;
}

/** The flags naming and annotating a run, at launch and in `run edit`. */
export const ANNOTATION_FLAGS = { name: { type: "string" }, tag: { type: "string", multiple: true }, notes: { type: "string" } } as const;

export const LAUNCH_OPTIONS = {
  config: { type: "string" },
  detach: { type: "boolean", default: false },
  offline: { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
  preset: { type: "string" },
  ...ANNOTATION_FLAGS,
} as const;

export interface LaunchFlagValues {
  config?: string;
  detach?: boolean;
  offline?: boolean;
  "dry-run"?: boolean;
  preset?: string;
  name?: string;
  tag?: string[];
  notes?: string;
}

/** `--tag a --tag "b, c"` → ["a", "b", "c"]; undefined when no --tag was given. */
export function tagsFrom(values: { tag?: string[] }): string[] | undefined {
  return values.tag?.flatMap(splitTags);
}

/** --name, --notes and --tag read with the run's own rules; an error names the flag. */
export function readDescriptionFlags(values: { name?: string; notes?: string; tag?: string[] }) {
  const parsed = runDescriptionSchema.safeParse({ name: values.name, notes: values.notes, tags: tagsFrom(values) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = issue.path[0] === "tags" ? "--tag" : `--${String(issue.path[0])}`;
    throw new UsageError(`${flag}: ${issue.message}`);
  }
  return parsed.data;
}

/** The launch flags that exclude or need each other, checked before the config is read; returns the config file. */
export function checkLaunchFlags(kind: string, values: LaunchFlagValues): string {
  if (!values.config) throw new UsageError(`run ${kind} needs --config file.json`);
  if (values.offline && values.detach) throw new UsageError("--offline and --detach exclude each other: an offline run is never queued");
  if (values["dry-run"] && (values.offline || values.detach)) throw new UsageError(`--dry-run stores nothing, so it excludes --${values.offline ? "offline" : "detach"}`);
  if (values.offline && !(OFFLINE_RUN_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--offline: batch execution supports annotate and judge runs, not ${kind}`);
  return values.config;
}

/**
 * `--preset paper-1.5b|paper-7b`: the paper's label settings for an annotate run, written as
 * the config's labelRules. A config that gives its own labelRules, an unknown preset and a
 * kind without label rules are refused.
 */
export function withPreset(kind: string, config: unknown, preset: string | undefined, file: string): unknown {
  if (preset === undefined) return config;
  if (!isPaperPresetId(preset)) throw new UsageError(`--preset: unknown preset "${preset}" (known: ${PAPER_PRESET_IDS.join(", ")})`);
  if (kind !== "annotate") throw new UsageError(`--preset sets an annotate run's label rules (γ, α); a ${kind} run has none`);
  if (typeof config !== "object" || config === null || Array.isArray(config)) return config; // the config's own check reports it
  if ("labelRules" in config) throw new InputError(`--preset ${preset} sets labelRules, and the config gives its own; drop one of them`, { file, field: "labelRules" });
  return { ...config, labelRules: paperPresetLabelRules(preset) };
}

/** What a followed run's progress and final line are made of: the run's state as the service and the API give it. */
export interface FollowedRun {
  kind: string;
  status: string;
  unitsDone: number;
  unitsFailed: number;
  unitsTotal: number;
  requests: number;
  promptTokens: number | bigint;
  completionTokens: number | bigint;
  cachedTokens: number | bigint;
  error: string | null;
  summary: unknown;
}

/** The progress line of a followed run, and the key whose change writes a new line when stderr is not a terminal. */
export function runProgressLine(runId: string, run: FollowedRun, meter: ProgressMeter, ended: boolean): { line: string; key: string } {
  const counts = `${run.unitsFailed} failed · ${run.requests} requests · ${run.completionTokens} tokens generated`;
  return { line: `run ${runId}: ${run.status} ${meter.format(run.unitsDone, run.unitsTotal, ended)} · ${counts}`, key: `${run.status} ${run.unitsDone}/${run.unitsTotal} ${counts}` };
}

/** The one JSON line `run` prints when a followed run has ended. */
export function finalRunJson(runId: string, run: FollowedRun): string {
  const tokens = (value: number | bigint) => (typeof value === "bigint" ? Number(value) : value);
  return JSON.stringify({
    runId,
    kind: run.kind,
    status: run.status,
    unitsDone: run.unitsDone,
    unitsFailed: run.unitsFailed,
    unitsTotal: run.unitsTotal,
    requests: run.requests,
    promptTokens: tokens(run.promptTokens),
    completionTokens: tokens(run.completionTokens),
    cachedTokens: tokens(run.cachedTokens),
    error: run.error,
    summary: run.kind === "benchmark" ? withAverageCoverage(run.summary) : run.summary,
  });
}

export const RUN_LIST_OPTIONS = {
  kind: { type: "string" },
  status: { type: "string" },
  limit: { type: "string" },
  offset: { type: "string" },
  "include-data-jobs": { type: "boolean", default: false },
} as const;

/** What `run list` asks for: runs newest first, optionally of one kind and status, one page of them. */
export interface RunListQuery {
  kind?: string;
  status?: string;
  limit: number;
  offset: number;
  /** Also imports and exports (without it they are listed only when --kind names one), as the Runs page lists. */
  includeDataJobs: boolean;
}

/** A whole-number flag within bounds, or a usage error naming it. */
function wholeFlag(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${flag} must be a whole number from ${min} to ${max.toLocaleString("en")}, got "${raw}"`);
  return Number(raw);
}

/** `run list [--kind K] [--status S] [--limit N] [--offset N]`'s flags, checked. */
export function runListQueryOf(values: { kind?: string; status?: string; limit?: string; offset?: string; "include-data-jobs"?: boolean }): RunListQuery {
  const kind = values.kind?.replaceAll("-", "_");
  if (kind !== undefined && !(RUN_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${RUN_KINDS.join(", ")}, got "${values.kind}"`);
  if (values.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(values.status)) {
    throw new UsageError(`--status must be one of ${RUN_STATUSES.join(", ")}, got "${values.status}"`);
  }
  return { kind, status: values.status, limit: wholeFlag("limit", values.limit, 50, 1, 200), offset: wholeFlag("offset", values.offset, 0, 0, 1_000_000), includeDataJobs: values["include-data-jobs"] ?? false };
}
