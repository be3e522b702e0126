import type { Db, Prisma } from "@stepwiser/db";
import type { z } from "zod";
import { snapshotEndpoint } from "../../inference/endpoint-clients";
import { modelOf, usedEndpoint } from "../../kit/kind-facts";
import { pagedIds, refuseEmptyProblemSelection } from "../../kit/paging";
import { SegmentationStatsAccumulator } from "../../kit/segmentation-stats";
import type { RunContext, UnitRunKind } from "../../runs/run-kind";
import { generateConfigSchema, generateStoredConfigSchema, type GenerateConfig } from "./config";
import { generateFormHints } from "./form-hints";
import { ensureOutputDataset, generateOutputDatasetId } from "./output-dataset";
import { sampleSolutions, type GeneratedSolution } from "./solutions";
import { generateSummarySchema } from "./summary";

/** The segmentation method generate writes: the policy's own chunk tags. */
export const SELF_SEGMENTED_METHOD = "self-segmented";

const STATS_PAGE = 200;

export type FilterReason = "all-correct" | "all-wrong";

/** Solution external id of sample i of a problem: unique per output dataset, so a redone unit collides instead of duplicating. */
export function generatedExternalId(problemId: string, sampleIndex: number): string {
  return `${problemId}-s${sampleIndex}`;
}

/** The paper's prompt filter: a problem whose N answers all agree teaches no step labels. */
export function promptFilterVerdict(correct: number, samples: number): { mixed: boolean; reason: FilterReason | null } {
  if (correct === samples) return { mixed: false, reason: "all-correct" };
  if (correct === 0) return { mixed: false, reason: "all-wrong" };
  return { mixed: true, reason: null };
}

function problemScope(config: GenerateConfig): Prisma.ProblemWhereInput {
  return { datasetId: config.datasetId, ...(config.problemIds ? { id: { in: config.problemIds } } : {}) };
}

/** A problem without a reference answer cannot be graded, so it cannot be filtered or counted in accuracy. */
const WITH_REFERENCE: Prisma.ProblemWhereInput = { NOT: [{ referenceAnswer: null }, { referenceAnswer: "" }] };

async function* planProblems(ctx: RunContext<GenerateConfig>): AsyncGenerator<string> {
  const { db, config } = ctx;
  // Planning happens before any unit and is redone until it completes, so the
  // output dataset exists by the time a unit writes into it.
  await ensureOutputDataset(db, ctx.runId, config);
  yield* pagedIds(
    (page) => db.problem.findMany({ where: { ...problemScope(config), ...WITH_REFERENCE }, orderBy: { id: "asc" }, select: { id: true }, ...page }),
    { limit: config.limit },
  );
}

function asObject(value: Prisma.JsonValue): Prisma.JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : { source: value };
}

function solutionMetadata(problemId: string, solution: GeneratedSolution, config: GenerateConfig, filter: { filteredOut: boolean; reason: FilterReason | null }): Prisma.InputJsonObject {
  return {
    sourceProblemId: problemId,
    sampleIndex: solution.sampleIndex,
    seed: solution.seed,
    finishReason: solution.finishReason,
    promptTemplateId: config.promptTemplateId,
    filteredOut: filter.filteredOut,
    ...(filter.filteredOut && filter.reason ? { filterReason: filter.reason } : {}),
    ...(solution.segmentationError ? { segmentationError: solution.segmentationError } : {}),
  };
}

async function writeSolutions(
  db: Db,
  runId: string,
  config: GenerateConfig,
  source: { id: string; text: string; textHash: string; referenceAnswer: string; metadata: Prisma.JsonValue },
  solutions: readonly GeneratedSolution[],
): Promise<void> {
  const datasetId = generateOutputDatasetId(runId);
  const correct = solutions.filter((s) => s.correct).length;
  const verdict = promptFilterVerdict(correct, solutions.length);
  const filter = { filteredOut: config.filterMixed && !verdict.mixed, reason: verdict.reason };
  const generator = config.policy!.model;
  // One transaction per problem: a crash leaves all N solutions or none, and
  // skipDuplicates makes a concurrent redo of the same unit wait and then write nothing.
  await db.$transaction(
    async (tx) => {
      await tx.problem.createMany({
        data: [
          {
            datasetId,
            textHash: source.textHash,
            text: source.text,
            referenceAnswer: source.referenceAnswer,
            metadata: {
              ...asObject(source.metadata),
              sourceProblemId: source.id,
              sourceDatasetId: config.datasetId,
              samples: solutions.length,
              correctSamples: correct,
              filteredOut: filter.filteredOut,
              ...(filter.filteredOut && filter.reason ? { filterReason: filter.reason } : {}),
            } as Prisma.InputJsonObject,
          },
        ],
        skipDuplicates: true,
      });
      const problem = await tx.problem.findUniqueOrThrow({ where: { datasetId_textHash: { datasetId, textHash: source.textHash } }, select: { id: true } });
      await tx.solution.createMany({
        data: solutions.map((s) => ({
          datasetId,
          problemId: problem.id,
          externalId: generatedExternalId(source.id, s.sampleIndex),
          generator,
          text: s.text,
          finalAnswer: s.finalAnswer,
          finalAnswerCorrect: s.correct,
          runId,
          metadata: solutionMetadata(source.id, s, config, filter),
        })),
        skipDuplicates: true,
      });
      const stored = await tx.solution.findMany({
        where: { datasetId, externalId: { in: solutions.map((s) => generatedExternalId(source.id, s.sampleIndex)) } },
        select: { id: true, externalId: true },
      });
      const solutionIdOf = new Map(stored.map((t) => [t.externalId, t.id]));
      const segmented = solutions.filter((s) => s.chunks !== null);
      if (segmented.length === 0) return;
      await tx.segmentation.createMany({
        data: segmented.map((s) => ({
          solutionId: solutionIdOf.get(generatedExternalId(source.id, s.sampleIndex))!,
          method: SELF_SEGMENTED_METHOD,
          params: { promptTemplateId: config.promptTemplateId },
          runId,
        })),
        skipDuplicates: true,
      });
      const segmentations = await tx.segmentation.findMany({
        where: { method: SELF_SEGMENTED_METHOD, solutionId: { in: [...solutionIdOf.values()] } },
        select: { id: true, solutionId: true },
      });
      const segmentationOf = new Map(segmentations.map((s) => [s.solutionId, s.id]));
      await tx.chunk.createMany({
        data: segmented.flatMap((s) => {
          const segmentationId = segmentationOf.get(solutionIdOf.get(generatedExternalId(source.id, s.sampleIndex))!)!;
          return s.chunks!.map((c) => ({ segmentationId, index: c.index, text: c.text, startOffset: c.startOffset, endOffset: c.endOffset }));
        }),
        skipDuplicates: true,
      });
    },
    { timeout: 60_000 },
  );
}

async function selfSegmentedStats(db: Db, datasetId: string) {
  const stats = new SegmentationStatsAccumulator();
  let cursor: string | undefined;
  for (;;) {
    const page = await db.segmentation.findMany({
      where: { method: SELF_SEGMENTED_METHOD, solution: { datasetId } },
      orderBy: { id: "asc" },
      take: STATS_PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: { id: true, chunks: { orderBy: { index: "asc" }, select: { text: true } } },
    });
    for (const s of page) stats.add(s.chunks.map((c) => c.text));
    if (page.length < STATS_PAGE) return stats.result();
    cursor = page[page.length - 1]!.id;
  }
}

/**
 * generate: N self-segmented solutions per problem of a dataset, graded
 * against its reference answers, written into a new dataset (see
 * `generateOutputDatasetId`). Unit = one input problem id.
 */
export const generateKind: UnitRunKind<GenerateConfig, z.output<typeof generateSummarySchema>> = {
  kind: "generate",
  execution: "units",
  submitSchema: generateConfigSchema,
  storedSchema: generateStoredConfigSchema,
  summarySchema: generateSummarySchema,
  formHints: generateFormHints,
  endpoints: (config) => usedEndpoint("policy", config.policy),
  facts: (config) => [modelOf(config.policy, config.policyEndpoint, "policy"), `N=${config.samplesPerProblem}`],
  async snapshot(db, config) {
    const dataset = await db.dataset.findUnique({ where: { id: config.datasetId }, select: { id: true } });
    if (!dataset) throw new Error(`no dataset with id "${config.datasetId}"`);
    if (config.problemIds) {
      const found = await db.problem.findMany({ where: { datasetId: config.datasetId, id: { in: config.problemIds } }, select: { id: true } });
      const known = new Set(found.map((p) => p.id));
      const missing = config.problemIds.filter((id) => !known.has(id));
      if (missing.length) throw new Error(`dataset ${config.datasetId} has no problem ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ""}`);
    }
    return { ...config, policy: await snapshotEndpoint(db, config.policyEndpoint, "policyEndpoint") };
  },
  datasetId: (config) => config.datasetId,
  plan: planProblems,
  refuseEmptyPlan: (db, config) => refuseEmptyProblemSelection(db, { datasetId: config.datasetId, withReference: true, nonEmptyReference: true, problemIds: config.problemIds }),
  concurrency: (config) => config.concurrency,

  async runUnit(ctx, problemId) {
    const { db, config, runId } = ctx;
    const datasetId = generateOutputDatasetId(runId);
    const externalIds = Array.from({ length: config.samplesPerProblem }, (_, i) => generatedExternalId(problemId, i));
    // Written in one transaction, so any stored solution means all are: nothing to sample again.
    if ((await db.solution.count({ where: { datasetId, externalId: { in: externalIds } } })) > 0) return;
    const problem = await db.problem.findUniqueOrThrow({ where: { id: problemId }, select: { id: true, text: true, textHash: true, referenceAnswer: true, metadata: true } });
    if (!problem.referenceAnswer) throw new Error(`problem ${problemId} has no reference answer to grade solutions against`);
    const source = { ...problem, referenceAnswer: problem.referenceAnswer };
    const solutions = await sampleSolutions(ctx, source);
    await writeSolutions(db, runId, config, source, solutions);
  },

  // A cancelled run leaves a partial dataset: listed as ready with what it holds (failed if nothing), and importing again once resumed.
  async stopped(db, runId) {
    const datasetId = generateOutputDatasetId(runId);
    const solutions = await db.solution.count({ where: { datasetId } });
    await db.dataset.updateMany({ where: { id: datasetId, status: "importing" }, data: { status: solutions > 0 ? "ready" : "failed" } });
  },
  async resumed(db, runId) {
    await db.dataset.updateMany({ where: { id: generateOutputDatasetId(runId) }, data: { status: "importing" } });
  },

  async summarize(ctx) {
    const { db, config, runId } = ctx;
    const datasetId = generateOutputDatasetId(runId);
    const [all, correctByProblem, invalidSegmentations, truncated, problemsWithoutReference, unitsDone, unitsTotal] = await Promise.all([
      db.solution.groupBy({ by: ["problemId"], where: { datasetId }, _count: { _all: true } }),
      db.solution.groupBy({ by: ["problemId"], where: { datasetId, finalAnswerCorrect: true }, _count: { _all: true } }),
      db.solution.count({ where: { datasetId, segmentations: { none: { method: SELF_SEGMENTED_METHOD } } } }),
      db.solution.count({ where: { datasetId, metadata: { path: ["finishReason"], equals: "length" } } }),
      db.problem.count({ where: { ...problemScope(config), OR: [{ referenceAnswer: null }, { referenceAnswer: "" }] } }),
      db.runUnit.count({ where: { runId, status: "done" } }),
      db.runUnit.count({ where: { runId } }),
    ]);
    const correctOf = new Map(correctByProblem.map((g) => [g.problemId, g._count._all]));
    let solutions = 0;
    let correct = 0;
    let passRateSum = 0;
    const verdicts = { mixed: 0, allCorrect: 0, allWrong: 0 };
    for (const group of all) {
      const n = group._count._all;
      const k = correctOf.get(group.problemId) ?? 0;
      solutions += n;
      correct += k;
      passRateSum += k / n;
      const verdict = promptFilterVerdict(k, n);
      if (verdict.mixed) verdicts.mixed++;
      else if (verdict.reason === "all-correct") verdicts.allCorrect++;
      else verdicts.allWrong++;
    }
    const problems = all.length;
    const dataset = await db.dataset.update({
      where: { id: datasetId },
      // A run whose every unit failed wrote nothing worth listing as ready.
      data: { status: unitsTotal > 0 && unitsDone === 0 ? "failed" : "ready" },
      select: { name: true },
    });
    return {
      outputDatasetId: datasetId,
      outputDatasetName: dataset.name,
      problems,
      solutions,
      correct,
      /** pass@1: per-problem share of correct samples, averaged over problems. */
      accuracy: problems ? passRateSum / problems : null,
      filter: {
        enabled: config.filterMixed,
        mixed: verdicts.mixed,
        allCorrect: verdicts.allCorrect,
        allWrong: verdicts.allWrong,
        kept: config.filterMixed ? verdicts.mixed : problems,
        /** Share of problems the prompt filter keeps (whether or not it was applied). */
        keptShare: problems ? verdicts.mixed / problems : null,
      },
      invalidSegmentations,
      truncatedSamples: truncated,
      problemsWithoutReference,
      selfSegmented: await selfSegmentedStats(db, datasetId),
    };
  },
};
