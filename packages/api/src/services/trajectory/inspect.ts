import { NotFoundError } from "@stepwiser/core";
import { describeRun, tryReadRunConfig } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { trajectoryDetailSelect } from "./get";

/**
 * Everything the inspector shows beside a solution's chunks: Q-values of every
 * annotate run (the browser recomputes labels from them as sliders move), and
 * every judge sample with its rationale, grouped by run so judges can be
 * compared in columns. One round trip; explicit selects, no over-fetching.
 */
export async function inspectTrajectory({ db, input }: ServiceArgs<{ id: string }>) {
  const trajectory = await db.trajectory.findUnique({
    where: { id: input.id },
    select: { ...trajectoryDetailSelect, metadata: true },
  });
  if (!trajectory) throw new NotFoundError(`trajectory ${input.id} does not exist`);
  const segmentationIds = trajectory.segmentations.map((s) => s.id);
  const chunkIds = trajectory.segmentations.flatMap((s) => s.chunks.map((c) => c.id));

  const [values, samples] = await Promise.all([
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
  ]);
  const runIds = [...new Set([...values.map((v) => v.runId), ...samples.map((s) => s.runId)])];
  const runs = await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, kind: true, createdAt: true, config: true } });
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
    };
  };

  const annotations = [...new Set(values.map((v) => `${v.runId}|${v.segmentationId}`))].map((key) => {
    const [runId, segmentationId] = key.split("|") as [string, string];
    return { ...describe(runId), segmentationId, values: values.filter((v) => v.runId === runId && v.segmentationId === segmentationId).map(({ runId: _r, segmentationId: _s, ...v }) => v) };
  });
  const judgements = [...new Set(samples.map((s) => s.runId))].map((runId) => ({
    ...describe(runId),
    samples: samples.filter((s) => s.runId === runId).map(({ runId: _r, ...s }) => s),
  }));
  return { ...trajectory, annotations, judgements };
}
