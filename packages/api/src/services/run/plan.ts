import { InputError, NotFoundError, roundSignificant, tokenCostUsd } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { planAnnotateRun, planJudgeRun, UNIT_RUN_KINDS, type JudgePlanConfig } from "@stepwiser/jobs";
import type { ReadServiceArgs } from "../args";
import type { LaunchableRunKind } from "./launch";

export interface RunPlanRequest {
  kind: LaunchableRunKind;
  config: Record<string, unknown>;
  /** Generated tokens per second to turn tokens into hours; without it, the endpoint's measured rate (see `measuredThroughput`). */
  tokensPerSecond?: number;
}

/** The endpoint the estimate prices and times: its name, role and prices per 1M tokens (null when not set). */
export interface PlanEndpoint {
  name: string;
  role: string;
  promptPricePerMTokens: number | null;
  completionPricePerMTokens: number | null;
}

export type RunPlanEstimate =
  | { available: false; kind: LaunchableRunKind; reason: string }
  | {
      available: true;
      kind: LaunchableRunKind;
      /** annotate-planner: `stepwiser plan annotate`'s model; judge-simple: the stated per-chunk or per-solution model. */
      model: "annotate-planner" | "judge-simple";
      endpoint: PlanEndpoint | null;
      solutions: number;
      chunks: number;
      requests: number;
      /** Sampled continuations (annotate); null where the model counts none. */
      rollouts: number | null;
      promptTokens: number;
      generatedTokens: number;
      /** Whether generatedTokens (and storage) are an upper bound rather than an estimate. */
      upperBound: boolean;
      /**
       * The endpoint's measured rate (null when it has finished no run alone) and the rate the hours are at:
       * the typed figure when one was given, else the measured one.
       */
      throughput: { measured: MeasuredThroughput | null; tokensPerSecond: number | null; source: "typed" | "measured" | null };
      hours: number | null;
      storage: { totalBytes: number; totalGB: number };
      /** USD at the endpoint's prices; null with `costNote` when it has none. */
      costUsd: number | null;
      costNote: string | null;
      assumptions: string[];
    };

/** Generated tokens per second of run wall time over an endpoint's latest finished runs. */
export interface MeasuredThroughput {
  tokensPerSecond: number;
  /** The runs it is measured over (at most MEASURED_RUNS), newest first. */
  runIds: string[];
}

/** How many of an endpoint's latest finished runs its throughput is measured over. */
export const MEASURED_RUNS = 5;

/**
 * What the endpoint generated per second of wall time over its latest completed runs that used it and
 * no other endpoint (annotate runs name their policy, judge and benchmark runs their judge): their
 * completion tokens over their summed start-to-finish seconds. Wall time counts the studio's own
 * overhead and other runs sharing the endpoint, so it understates what the servers can do alone.
 */
export async function measuredThroughput(db: Db, endpointName: string): Promise<MeasuredThroughput | null> {
  const rows = await db.$queryRaw<Array<{ id: string; tokens: number; seconds: number }>>`
    SELECT id, "completionTokens"::float8 AS tokens, extract(epoch FROM "finishedAt" - "startedAt")::float8 AS seconds
      FROM "Run"
     WHERE status = 'completed' AND "startedAt" IS NOT NULL AND "finishedAt" > "startedAt" AND "completionTokens" > 0
       AND ((kind = 'annotate' AND config->>'policyEndpoint' = ${endpointName})
         OR (kind IN ('judge', 'benchmark') AND config->>'judgeEndpoint' = ${endpointName}))
     ORDER BY "finishedAt" DESC, id DESC
     LIMIT ${MEASURED_RUNS}`;
  const seconds = rows.reduce((sum, r) => sum + r.seconds, 0);
  if (rows.length === 0 || seconds <= 0) return null;
  return { tokensPerSecond: roundSignificant(rows.reduce((sum, r) => sum + r.tokens, 0) / seconds, 3), runIds: rows.map((r) => r.id) };
}

/** The field of each kind's configuration that names the endpoint its tokens are spent on. */
const PRICED_ENDPOINT: Partial<Record<LaunchableRunKind, string>> = { annotate: "policyEndpoint", judge: "judgeEndpoint", benchmark: "judgeEndpoint" };

async function findEndpoint(db: Db, kind: LaunchableRunKind, config: Record<string, unknown>): Promise<PlanEndpoint | null> {
  const field = PRICED_ENDPOINT[kind];
  const name = field ? config[field] : undefined;
  if (typeof name !== "string" || name === "") return null;
  const endpoint = await db.endpoint.findUnique({ where: { name }, select: { name: true, role: true, promptPricePerMTokens: true, completionPricePerMTokens: true } });
  return endpoint;
}

function priced(endpoint: PlanEndpoint | null, promptTokens: number, generatedTokens: number): { costUsd: number | null; costNote: string | null } {
  if (!endpoint) return { costUsd: null, costNote: "no endpoint chosen" };
  const usd = tokenCostUsd({ promptTokens, cachedTokens: 0, completionTokens: generatedTokens }, endpoint);
  if (usd === null) return { costUsd: null, costNote: `endpoint "${endpoint.name}" has no prompt and completion prices` };
  return { costUsd: usd, costNote: null };
}

const hoursAt = (generatedTokens: number, tokensPerSecond: number | undefined) => (tokensPerSecond ? roundSignificant(generatedTokens / tokensPerSecond / 3600, 3) : null);
const gigabytes = (bytes: number) => roundSignificant(bytes / 1e9, 3);

/**
 * What a run of this configuration would need before it is launched: an annotate run through the
 * planner `stepwiser plan annotate` prints (`planAnnotateRun`), a judge or benchmark run through the
 * simpler per-chunk / per-solution model (`planJudgeRun`); other kinds have no estimate. A
 * configuration that cannot be planned yet (a field missing or invalid) gives the reason, not an error.
 */
export async function planRun({ db, input }: ReadServiceArgs<RunPlanRequest>): Promise<RunPlanEstimate> {
  const { kind } = input;
  if (kind !== "annotate" && kind !== "judge" && kind !== "benchmark") return { available: false, kind, reason: "no estimate for this kind" };
  const parsed = UNIT_RUN_KINDS.get(kind)!.submitSchema.safeParse(input.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".");
    return { available: false, kind, reason: `the configuration does not read yet${field ? ` (field "${field}": ${issue.message})` : `: ${issue.message}`}` };
  }
  const endpoint = await findEndpoint(db, kind, input.config);
  const measured = endpoint ? await measuredThroughput(db, endpoint.name) : null;
  const rate = input.tokensPerSecond ?? measured?.tokensPerSecond;
  const throughput = { measured, tokensPerSecond: rate ?? null, source: input.tokensPerSecond ? ("typed" as const) : measured ? ("measured" as const) : null };
  try {
    if (kind === "annotate") {
      // The hours the planner prints are dropped unless a rate was given; the counts do not depend on it.
      const plan = await planAnnotateRun(db, input.config, { tokensPerSecond: rate ?? 1 });
      const { requests, rollouts, promptTokens, generatedTokens } = plan.estimate;
      return {
        available: true,
        kind,
        model: "annotate-planner",
        endpoint,
        solutions: plan.dataset.solutions,
        chunks: plan.dataset.chunks,
        requests,
        rollouts,
        promptTokens,
        generatedTokens,
        upperBound: false,
        throughput,
        hours: rate ? plan.estimate.hours : null,
        storage: { totalBytes: plan.storage.totalBytes, totalGB: plan.storage.totalGB },
        ...priced(endpoint, promptTokens, generatedTokens),
        assumptions: plan.assumptions,
      };
    }
    const config = parsed.data as JudgePlanConfig;
    const plan = await planJudgeRun(db, config);
    const { estimate } = plan;
    return {
      available: true,
      kind,
      model: "judge-simple",
      endpoint,
      solutions: estimate.solutions,
      chunks: estimate.chunks,
      requests: estimate.requests,
      rollouts: null,
      promptTokens: estimate.promptTokens,
      generatedTokens: estimate.generatedTokens,
      upperBound: true,
      throughput,
      hours: hoursAt(estimate.generatedTokens, rate),
      storage: { totalBytes: estimate.storageBytes, totalGB: gigabytes(estimate.storageBytes) },
      ...priced(endpoint, estimate.promptTokens, estimate.generatedTokens),
      assumptions: [...plan.assumptions, "hours: generated tokens / tokens per second, the endpoint fully busy; prefill time not counted"],
    };
  } catch (error) {
    if (error instanceof InputError || error instanceof NotFoundError) return { available: false, kind, reason: error.message };
    throw error;
  }
}
