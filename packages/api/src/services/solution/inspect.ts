import { DEFAULT_LABEL_CONFIDENCE_OPTIONS, NotFoundError } from "@stepwiser/core";
import { describeRun, tryReadRunConfig, type RunConfigOf, type RunKind } from "@stepwiser/jobs";
import type { ServiceArgs } from "../args";
import { solutionDetailSelect } from "./get";

/**
 * Everything the inspector shows beside a solution's chunks: Q-values and
 * rollout counts of every annotate run (the browser recomputes labels and their
 * confidence from them as sliders move, with the run's confidence options), the
 * labels each run stored with their confidence, and every judge sample with its
 * rationale, grouped by run so judges can be compared in columns. One round
 * trip; explicit selects, no over-fetching.
 */
export async function inspectSolution({ db, input }: ServiceArgs<{ id: string }>) {
  const solution = await db.solution.findUnique({
    where: { id: input.id },
    select: { ...solutionDetailSelect, metadata: true },
  });
  if (!solution) throw new NotFoundError(`solution ${input.id} does not exist`);
  const segmentationIds = solution.segmentations.map((s) => s.id);
  const chunkIds = solution.segmentations.flatMap((s) => s.chunks.map((c) => c.id));

  const [values, samples, labels, predictions] = await Promise.all([
    db.chunkValue.findMany({
      where: { segmentationId: { in: segmentationIds } },
      orderBy: [{ runId: "asc" }, { prefixLength: "asc" }],
      select: { runId: true, segmentationId: true, prefixLength: true, qValue: true, rolloutCount: true, correctCount: true },
    }),
    db.judgeSample.findMany({
      where: { chunkId: { in: chunkIds } },
      orderBy: [{ runId: "asc" }, { chunkId: "asc" }, { sampleIndex: "asc" }],
      select: { runId: true, chunkId: true, sampleIndex: true, verdict: true, rationale: true, promptTemplateId: true, truncated: true },
    }),
    db.chunkLabel.findMany({
      where: { chunkId: { in: chunkIds }, run: { kind: "annotate" } },
      orderBy: [{ runId: "asc" }, { rule: "asc" }, { paramsKey: "asc" }],
      select: { runId: true, chunkId: true, rule: true, paramsKey: true, label: true, confidence: true },
    }),
    // Judges that answer per solution (the ProcessBench critic, ThinkPRM, outcome models): their samples live with the prediction.
    db.solutionPrediction.findMany({
      where: { solutionId: solution.id },
      orderBy: { runId: "asc" },
      select: { runId: true, predictedFirstError: true, score: true, output: true, samples: true },
    }),
  ]);
  const segmentationOfChunk = new Map(solution.segmentations.flatMap((s) => s.chunks.map((c) => [c.id, s.id] as const)));
  const runIds = [...new Set([...values.map((v) => v.runId), ...samples.map((s) => s.runId), ...predictions.map((p) => p.runId)])];
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
      /** The judge protocol and the prompt template the run asked with, as its stored config names them. */
      protocol: config && "protocol" in config ? config.protocol : null,
      promptTemplateId: judgePromptOfConfig(config),
    };
  };

  const annotateRuns = [...new Set(values.map((v) => `${v.runId}|${v.segmentationId}`))].map((key) => {
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
  const solutionJudgements = predictions.map(({ runId, samples: stored, ...prediction }) => ({
    ...describe(runId),
    ...prediction,
    samples: readSolutionSamples(stored),
  }));
  return { ...solution, annotateRuns, judgements, solutionJudgements };
}

/** The template a judge run's prompt came from: the StepWiser judge prompt or the critic template, as stored. */
function judgePromptOfConfig(config: RunConfigOf<RunKind> | null): string | null {
  if (config === null) return null;
  if ("protocol" in config && config.protocol === "processbench-critic") return "criticPromptTemplateId" in config ? (config.criticPromptTemplateId ?? null) : null;
  return "judgePromptTemplateId" in config ? (config.judgePromptTemplateId ?? null) : null;
}

/** One sample of a solution-level judgement, as the inspector shows it: its text and what was read from it. */
export interface SolutionSampleView {
  index: number;
  text: string;
  /** The critic's parsed index, ThinkPRM's chain reading (first error), an outcome model's score; null when unreadable. */
  reading: number | null;
  /** The critic's answer string (what its vote counts). */
  answer: string | null;
  truncated: boolean;
}

/** The stored per-sample evidence (shapes differ by protocol), read defensively: a sample without text is left out. */
function readSolutionSamples(stored: unknown): SolutionSampleView[] {
  if (!Array.isArray(stored)) return [];
  const out: SolutionSampleView[] = [];
  stored.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null) return;
    const e = entry as Record<string, unknown>;
    const text = typeof e.output === "string" ? e.output : typeof e.text === "string" ? e.text : null;
    if (text === null) return;
    const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
    const reading = "vote" in e ? number(e.vote) : "predictedFirstError" in e ? number(e.predictedFirstError) : number(e.score);
    out.push({ index, text, reading, answer: typeof e.answer === "string" ? e.answer : null, truncated: e.truncated === true });
  });
  return out;
}
