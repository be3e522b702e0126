import { DEFAULT_LABEL_CONFIDENCE_OPTIONS, NotFoundError } from "@stepwiser/core";
import { describeRun, tryReadRunConfig } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { trajectoryDetailSelect } from "./get";

/**
 * Everything the inspector shows beside a solution's chunks: Q-values and
 * rollout counts of every annotate run (the browser recomputes labels and their
 * confidence from them as sliders move, with the run's confidence options), the
 * labels each run stored with their confidence, and every judge sample with its
 * rationale, grouped by run so judges can be compared in columns. One round
 * trip; explicit selects, no over-fetching.
 */
export async function inspectTrajectory({ db, input }: ServiceArgs<{ id: string }>) {
  const trajectory = await db.trajectory.findUnique({
    where: { id: input.id },
    select: { ...trajectoryDetailSelect, metadata: true },
  });
  if (!trajectory) throw new NotFoundError(`trajectory ${input.id} does not exist`);
  const segmentationIds = trajectory.segmentations.map((s) => s.id);
  const chunkIds = trajectory.segmentations.flatMap((s) => s.chunks.map((c) => c.id));

  const [values, samples, labels] = await Promise.all([
    db.chunkValue.findMany({
      where: { segmentationId: { in: segmentationIds } },
      orderBy: [{ runId: "asc" }, { prefixLength: "asc" }],
      select: { runId: true, segmentationId: true, prefixLength: true, qValue: true, rolloutCount: true, correctCount: true },
    }),
    db.judgeSample.findMany({
      where: { chunkId: { in: chunkIds } },
      orderBy: [{ runId: "asc" }, { chunkId: "asc" }, { sampleIndex: "asc" }],
      select: { runId: true, chunkId: true, sampleIndex: true, verdict: true, rationale: true, promptTemplateId: true },
    }),
    db.chunkLabel.findMany({
      where: { chunkId: { in: chunkIds }, run: { kind: "annotate" } },
      orderBy: [{ runId: "asc" }, { rule: "asc" }, { paramsKey: "asc" }],
      select: { runId: true, chunkId: true, rule: true, paramsKey: true, label: true, confidence: true },
    }),
  ]);
  const segmentationOfChunk = new Map(trajectory.segmentations.flatMap((s) => s.chunks.map((c) => [c.id, s.id] as const)));
  const runIds = [...new Set([...values.map((v) => v.runId), ...samples.map((s) => s.runId)])];
  const runs = await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, kind: true, name: true, createdAt: true, config: true } });
  const describe = (id: string) => {
    const run = runs.find((r) => r.id === id)!;
    const config = tryReadRunConfig(run);
    return {
      runId: id,
      kind: run.kind,
      createdAt: run.createdAt,
      label: describeRun(run),
      strategy: config && "strategy" in config ? config.strategy : null,
      rollouts: config && "rollouts" in config ? config.rollouts : null,
      judgeModel: config && "judge" in config ? (config.judge?.model ?? null) : null,
      policyModel: config && "policy" in config ? (config.policy?.model ?? null) : null,
      /** How the run computes label confidence (prior, Abs-Q's ε): the browser's live confidences use the same. */
      labelConfidence: config && "labelConfidence" in config ? config.labelConfidence : DEFAULT_LABEL_CONFIDENCE_OPTIONS,
    };
  };

  const annotations = [...new Set(values.map((v) => `${v.runId}|${v.segmentationId}`))].map((key) => {
    const [runId, segmentationId] = key.split("|") as [string, string];
    return {
      ...describe(runId),
      segmentationId,
      values: values.filter((v) => v.runId === runId && v.segmentationId === segmentationId).map(({ runId: _r, segmentationId: _s, ...v }) => v),
      /** The labels the run stored on this segmentation's chunks, per rule, each with its confidence (null where the counts do not determine it). */
      labels: labels.filter((l) => l.runId === runId && segmentationOfChunk.get(l.chunkId) === segmentationId).map(({ runId: _r, ...l }) => l),
    };
  });
  const judgements = [...new Set(samples.map((s) => s.runId))].map((runId) => ({
    ...describe(runId),
    samples: samples.filter((s) => s.runId === runId).map(({ runId: _r, ...s }) => s),
  }));
  return { ...trajectory, annotations, judgements };
}
