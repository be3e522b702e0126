import { describeStoredLabelRule, majorityVerdict, type Label, type TiePolicy, type Verdict } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { runName, tryReadRunConfig, type StoredRun } from "@stepwiser/jobs";
import { parseStoredLabelRule } from "./queue-runs";

/** Statuses of a run whose stored results are final. */
const FINISHED = ["completed", "completed_with_failures"] as const;

export interface ContextRun {
  id: string;
  name: string;
  kind: string;
  status: string;
  finishedAt: Date | null;
}

/** One Monte-Carlo label of a chunk: a rule of the annotate run, its label and how sure it is. */
export interface ContextMcLabel {
  rule: string;
  paramsKey: string;
  /** The rule as researchers read it ("Abs-Q (own prefix)"). */
  ruleText: string;
  label: Label;
  /** Posterior probability that the rule on the true Q-values gives this label; null where the counts do not determine it. */
  confidence: number | null;
  /** The rule the queue audits. */
  audited: boolean;
}

export interface ContextJudgeVerdict {
  runId: string;
  verdict: Verdict;
  votes: { Positive: number; Negative: number; unparseable: number };
}

export interface ChunkModelContext {
  chunkId: string;
  mcLabels: ContextMcLabel[];
  /** Q-value of the prefix ending at this chunk, with the rollouts it was estimated from. */
  q: { value: number; rollouts: number; correct: number } | null;
  judges: ContextJudgeVerdict[];
}

/**
 * What the model side said about an item, for the adjudicator: the queue's
 * annotate run (every label rule it stored, the audited one marked, each with
 * its confidence, and the Q-values) and judge runs on the queue's dataset: the
 * latest finished judge run of each judge endpoint, plus the queue's own judge
 * run when it is not among them. Researchers only: this is the model evidence a
 * blind queue keeps from annotators.
 */
export async function adjudicationContext(
  db: Db,
  queue: { datasetId: string; annotateRunId: string | null; labelRule: string | null; judgeRunId: string | null },
  segmentationId: string,
  chunks: readonly { id: string; index: number }[],
): Promise<{ annotateRun: ContextRun | null; judgeRuns: Array<ContextRun & { endpoint: string | null; audited: boolean }>; chunks: ChunkModelContext[] }> {
  const chunkIds = chunks.map((c) => c.id);
  const runSelect = { id: true, name: true, kind: true, status: true, config: true, finishedAt: true, createdAt: true } as const;
  const [annotate, judgeCandidates, queueJudge] = await Promise.all([
    queue.annotateRunId ? db.run.findUnique({ where: { id: queue.annotateRunId }, select: runSelect }) : null,
    db.run.findMany({
      where: { datasetId: queue.datasetId, kind: "judge", status: { in: [...FINISHED] } },
      orderBy: [{ finishedAt: { sort: "desc", nulls: "last" } }, { createdAt: "desc" }, { id: "desc" }],
      select: runSelect,
      take: 200,
    }),
    queue.judgeRunId ? db.run.findUnique({ where: { id: queue.judgeRunId }, select: runSelect }) : null,
  ]);

  // The latest finished judge run per judge endpoint, newest first; the queue's own judge run is always shown.
  const byEndpoint = new Map<string, (typeof judgeCandidates)[number]>();
  for (const run of judgeCandidates) {
    const endpoint = endpointOf(run);
    if (!byEndpoint.has(endpoint)) byEndpoint.set(endpoint, run);
  }
  const judges = [...byEndpoint.values()];
  if (queueJudge && !judges.some((run) => run.id === queueJudge.id)) judges.unshift(queueJudge);

  const [labels, values, samples] = await Promise.all([
    annotate && chunkIds.length
      ? db.chunkLabel.findMany({ where: { runId: annotate.id, chunkId: { in: chunkIds } }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }], select: { chunkId: true, rule: true, paramsKey: true, label: true, confidence: true } })
      : [],
    annotate ? db.chunkValue.findMany({ where: { runId: annotate.id, segmentationId }, select: { prefixLength: true, qValue: true, rolloutCount: true, correctCount: true } }) : [],
    judges.length && chunkIds.length
      ? db.judgeSample.groupBy({ by: ["runId", "chunkId", "verdict"], where: { runId: { in: judges.map((run) => run.id) }, chunkId: { in: chunkIds } }, _count: { _all: true } })
      : [],
  ]);

  const audited = parseStoredLabelRule(queue.labelRule);
  const valueAt = new Map(values.map((v) => [v.prefixLength, v]));
  const tieOf = new Map(judges.map((run) => [run.id, tiePolicyOf(run)]));
  return {
    annotateRun: annotate ? contextRun(annotate) : null,
    judgeRuns: judges.map((run) => ({ ...contextRun(run), endpoint: run.kind === "judge" || run.kind === "benchmark" ? endpointOf(run) : null, audited: run.id === queue.judgeRunId })),
    chunks: chunks.map((chunk) => {
      const value = valueAt.get(chunk.index + 1);
      return {
        chunkId: chunk.id,
        mcLabels: labels
          .filter((l) => l.chunkId === chunk.id)
          .map((l) => ({
            rule: l.rule,
            paramsKey: l.paramsKey,
            ruleText: describeStoredLabelRule(l.rule, l.paramsKey),
            label: l.label,
            confidence: l.confidence,
            audited: audited !== null && audited.rule === l.rule && audited.paramsKey === l.paramsKey,
          }))
          .sort((a, b) => Number(b.audited) - Number(a.audited)),
        q: value ? { value: value.qValue, rollouts: value.rolloutCount, correct: value.correctCount } : null,
        judges: judges.flatMap((run) => {
          const votes = { Positive: 0, Negative: 0, unparseable: 0 };
          for (const s of samples) if (s.runId === run.id && s.chunkId === chunk.id) votes[s.verdict] += s._count._all;
          if (votes.Positive + votes.Negative + votes.unparseable === 0) return [];
          const all: Verdict[] = [...Array<Verdict>(votes.Positive).fill("Positive"), ...Array<Verdict>(votes.Negative).fill("Negative"), ...Array<Verdict>(votes.unparseable).fill("unparseable")];
          return [{ runId: run.id, verdict: majorityVerdict(all, tieOf.get(run.id)).verdict, votes }];
        }),
      };
    }),
  };
}

type RunRow = { id: string; name: string | null; kind: string; status: string; config: unknown; finishedAt: Date | null };

function contextRun(run: RunRow): ContextRun {
  return { id: run.id, name: safeName(run), kind: run.kind, status: run.status, finishedAt: run.finishedAt };
}

function safeName(run: RunRow): string {
  try {
    return runName(run as StoredRun & { name: string | null });
  } catch {
    return run.name ?? `${run.kind} ${run.id}`;
  }
}

/** The judge endpoint a judge or benchmark run's snapshot names ("?" when it does not read). */
function endpointOf(run: RunRow): string {
  const config = tryReadRunConfig(run as StoredRun) as { judgeEndpoint?: string } | null;
  return config?.judgeEndpoint ?? "?";
}

function tiePolicyOf(run: RunRow): TiePolicy {
  const config = tryReadRunConfig(run as StoredRun) as { tiePolicy?: TiePolicy } | null;
  return config?.tiePolicy ?? "Negative";
}
