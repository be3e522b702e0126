import { fitConfidencePriorFromRun } from "./confidence-prior";
import {
  AnnotationPlanAccumulator,
  annotationHours,
  approximateTokenCount,
  assumedPrefixSuccess,
  CHAT_TEMPLATE_TOKENS,
  CHUNK_TAG_TOKENS,
  DEFAULT_ADAPTIVE_SIMULATION,
  extractAnswer,
  InputError,
  labelRuleKey,
  policyPromptTemplateTokens,
  projectAnnotationStorage,
  ROLLOUT_TEXT_POLICIES,
  roundSignificant,
  type AdaptiveSimulationOptions,
  type AdaptiveSimulationReport,
  type AnnotationCost,
  type AnnotationPlanTotals,
  type RolloutTextPolicy,
  type Throughput,
} from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";
import { gradeSolutionFinalAnswer } from "../../grading/run-grading";
import { planSegmentationIds } from "../../kit/paging";
import { validateRunConfig } from "../../kit/config-shape";
import { tryReadStoredConfig } from "../../runs/stored-config";
import { annotateStoredConfigSchema } from "./config";
import { annotateConfigSchema, samplingEvidence, type AnnotateConfig } from "./config";

/**
 * `stepwiser plan annotate`: what an annotate run on this configuration would
 * cost, from the dataset's chunk statistics (aggregated in SQL, page by page of
 * the run's own plan) and per-prefix success probabilities (a finished fixed
 * run's Q-values, or an assumption), through the estimator of @stepwiser/core
 * (the adaptive strategy: simulated on a seeded sample of the solutions).
 * Reads only; sends no request.
 */

export interface AnnotatePlanOptions extends Throughput {
  /** File the configuration came from, named in errors. */
  source?: string;
  /** Solutions read per query. */
  pageSize?: number;
  /** Solutions whose texts calibrate tokens per character. */
  calibrationSolutions?: number;
  /** The adaptive strategy: solutions simulated at most and simulations per solution (default 300 and 4). */
  adaptiveSimulation?: Partial<Pick<AdaptiveSimulationOptions, "sampleSize" | "replicates">>;
  /**
   * Plan as of this moment: only annotate runs finished before it can lend their
   * Q-values. A finished run's estimate is planned as of its creation, so its
   * own Q-values (and later runs') never feed the estimate it is compared with.
   */
  asOf?: Date;
}

export interface AnnotatePlan {
  strategy: AnnotateConfig["strategy"];
  rollouts: number;
  earlyStopBatch: number;
  maxTokens: number;
  datasetId: string;
  segmentationMethod: string;
  dataset: AnnotationPlanTotals["dataset"] & {
    /** Solutions without a reference answer: their units fail before any request. */
    withoutReferenceAnswer: number;
  };
  estimate: AnnotationCost & { hours: number };
  /** The adaptive strategy only (null otherwise): its settings and how its rounds after the first were simulated. */
  adaptive: {
    adaptiveBatch: number;
    targetConfidence: number;
    maxRollouts: number;
    tokenBudget: number | null;
    simulation: AdaptiveSimulationReport;
  } | null;
  throughput: { tokensPerSecond: number; prefillTokensPerSecond: number | null };
  /**
   * The rows the run would add to the database under its rolloutText policy, and under each policy for
   * comparison (the measured model of docs/benchmarks/storage.md): rollouts, then chunk values, labels and
   * per-solution rows. Bytes and GB (10^9 bytes).
   */
  storage: {
    rolloutText: RolloutTextPolicy;
    rolloutBytes: number;
    otherBytes: number;
    totalBytes: number;
    totalGB: number;
    byPolicy: Record<RolloutTextPolicy, { totalBytes: number; totalGB: number }>;
  };
  qValues: {
    source: string;
    runId: string | null;
    /** Rollouts per prefix of the source run. */
    sourceRollouts: number | null;
    solutionsFromRun: number;
    solutionsAssumed: number;
    /** The dataset's share of correct final answers, used where q is assumed. */
    assumedPassRate: number;
  };
  assumptions: string[];
}

interface SolutionRow {
  id: string;
  solutionId: string;
  finalCorrect: boolean | null;
  firstError: number | null;
  hasReference: boolean;
  problemChars: number;
  chunkChars: number[];
}

const DEFAULT_PAGE = 500;
const DEFAULT_CALIBRATION = 200;
/** chars/4, the usual rule of thumb, when there is no text to measure. */
const FALLBACK_TOKENS_PER_CHAR = 0.25;

/** Validates the configuration as `run annotate` does: the file and the field in the error. */
export function parseAnnotatePlanConfig(raw: unknown, source?: string): AnnotateConfig {
  return validateRunConfig("annotate", annotateConfigSchema, raw, source);
}

/** The most recent finished fixed annotate run of the dataset on this segmentation method: its Q-values are measured q's. */
async function findQSourceRun(db: Db, config: AnnotateConfig, asOf?: Date): Promise<{ id: string; rollouts: number | null } | null> {
  const run = await db.run.findFirst({
    where: {
      kind: "annotate",
      datasetId: config.datasetId,
      status: { in: ["completed", "completed_with_failures"] },
      ...(asOf ? { finishedAt: { lt: asOf } } : {}),
      AND: [{ config: { path: ["strategy"], equals: "fixed" } }, { config: { path: ["segmentationMethod"], equals: config.segmentationMethod } }],
    },
    orderBy: [{ finishedAt: { sort: "desc", nulls: "last" } }, { createdAt: "desc" }, { id: "desc" }],
    select: { id: true, config: true },
  });
  if (!run) return null;
  return { id: run.id, rollouts: tryReadStoredConfig({ ...run, kind: "annotate" }, annotateStoredConfigSchema)?.rollouts ?? null };
}

/** Chunk lengths per solution of one page, in SQL: no chunk text leaves the database. */
function readPage(db: Db, ids: readonly string[]): Promise<SolutionRow[]> {
  return db.$queryRaw<SolutionRow[]>(Prisma.sql`
    SELECT s.id, t.id AS "solutionId", t."finalAnswerCorrect" AS "finalCorrect", t."sourceFirstErrorIndex" AS "firstError",
      (p."referenceAnswer" IS NOT NULL) AS "hasReference", char_length(p.text)::int AS "problemChars",
      COALESCE(array_agg(char_length(c.text)::int ORDER BY c.index) FILTER (WHERE c.id IS NOT NULL), '{}'::int[]) AS "chunkChars"
    FROM "Segmentation" s
    JOIN "Solution" t ON t.id = s."solutionId"
    JOIN "Problem" p ON p.id = t."problemId"
    LEFT JOIN "Chunk" c ON c."segmentationId" = s.id
    WHERE s.id = ANY(${[...ids]})
    GROUP BY s.id, t.id, p.id`);
}

/**
 * Tokens per character of chunk texts and of problem texts, measured with the
 * approximate tokenizer on the first solutions of the plan (a bounded sample:
 * the rest of the dataset is measured in characters only).
 */
async function calibrate(db: Db, ids: readonly string[]): Promise<{ chunk: number; problem: number; sampledSolutions: number; sampledChunks: number }> {
  const solutions = await db.segmentation.findMany({
    where: { id: { in: [...ids] } },
    select: { chunks: { select: { text: true } }, solution: { select: { problem: { select: { id: true, text: true } } } } },
  });
  const problems = new Map(solutions.map((s) => [s.solution.problem.id, s.solution.problem.text]));
  const chunks = solutions.flatMap((s) => s.chunks.map((c) => c.text));
  const ratio = (texts: Iterable<string>) => {
    let chars = 0;
    let tokens = 0;
    for (const text of texts) {
      chars += [...text].length;
      tokens += approximateTokenCount(text);
    }
    return chars === 0 ? FALLBACK_TOKENS_PER_CHAR : tokens / chars;
  };
  return { chunk: ratio(chunks), problem: ratio(problems.values()), sampledSolutions: solutions.length, sampledChunks: chunks.length };
}

/** The dataset's share of correct final answers (those recorded): the policy's pass rate. */
async function datasetPassRate(db: Db, datasetId: string): Promise<number | null> {
  const [row] = await db.$queryRaw<Array<{ correct: number; known: number }>>(Prisma.sql`
    SELECT COUNT(*) FILTER (WHERE "finalAnswerCorrect")::int AS correct, COUNT("finalAnswerCorrect")::int AS known
    FROM "Solution" WHERE "datasetId" = ${datasetId}`);
  return row && row.known > 0 ? row.correct / row.known : null;
}

/** Whether the solution's own final answer is right, decided as the annotate unit decides it. */
async function gradeUnknown(db: Db, rows: readonly SolutionRow[]): Promise<Map<string, boolean>> {
  const unknown = rows.filter((r) => r.finalCorrect === null && r.hasReference);
  if (unknown.length === 0) return new Map();
  const solutions = await db.solution.findMany({
    where: { id: { in: unknown.map((r) => r.solutionId) } },
    select: { id: true, text: true, problem: { select: { referenceAnswer: true } } },
  });
  const correct = await Promise.all(
    solutions.map(async (t) => extractAnswer(t.text) !== null && (await gradeSolutionFinalAnswer(t.problem.referenceAnswer!, t.text)).equivalent),
  );
  return new Map(solutions.map((t, i) => [t.id, correct[i]!] as const));
}

async function* pages(ids: AsyncIterable<string>, size: number): AsyncGenerator<string[]> {
  let page: string[] = [];
  for await (const id of ids) {
    page.push(id);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

const percent = (value: number) => `${roundSignificant(value * 100, 3)} %`;

/** The capacity plan of an annotate run on `rawConfig` (the file `run annotate --config` takes). */
export async function planAnnotateRun(db: Db, rawConfig: unknown, options: AnnotatePlanOptions): Promise<AnnotatePlan> {
  const config = parseAnnotatePlanConfig(rawConfig, options.source);
  const dataset = await db.dataset.findUnique({ where: { id: config.datasetId }, select: { id: true } });
  if (!dataset) throw new InputError(`dataset ${config.datasetId} does not exist`, { file: options.source, field: "datasetId" });

  const [sourceRun, recordedPassRate] = await Promise.all([findQSourceRun(db, config, options.asOf), datasetPassRate(db, config.datasetId)]);
  const passRate = recordedPassRate ?? 0.5;
  const adaptive = config.strategy === "adaptive";
  // A pilot run named for the confidence prior is fitted now, as the run would fit it when created.
  const pilot = adaptive && config.confidencePriorFromRun ? await fitConfidencePriorFromRun(db, config.confidencePriorFromRun, "confidencePriorFromRun") : null;
  const labelConfidence = pilot ? { ...config.labelConfidence, prior: "mixture" as const, mixture: { zero: pilot.zero, one: pilot.one, a: pilot.a, b: pilot.b } } : config.labelConfidence;
  const accumulator = new AnnotationPlanAccumulator(
    {
      strategy: config.strategy,
      rollouts: config.rollouts,
      earlyStopBatch: config.earlyStopBatch,
      maxTokens: config.maxTokens,
      evidence: samplingEvidence(config),
      adaptive: adaptive
        ? {
            batch: config.adaptiveBatch,
            targetConfidence: config.targetConfidence,
            maxRollouts: config.maxRollouts,
            rules: config.labelRules,
            confidence: labelConfidence,
            tokenBudget: config.tokenBudget,
          }
        : undefined,
    },
    // Seeded by the run's seed, so a plan of the same config on the same data is the same to the last token.
    { ...DEFAULT_ADAPTIVE_SIMULATION, ...options.adaptiveSimulation, seed: `plan-adaptive:${config.seed}` },
  );
  let ratios: Awaited<ReturnType<typeof calibrate>> | undefined;
  let withoutReference = 0;
  let fromRun = 0;
  let assumed = 0;

  for await (const ids of pages(planSegmentationIds(db, config), options.pageSize ?? DEFAULT_PAGE)) {
    ratios ??= await calibrate(db, ids.slice(0, options.calibrationSolutions ?? DEFAULT_CALIBRATION));
    const [rows, values] = await Promise.all([
      readPage(db, ids),
      sourceRun
        ? db.chunkValue.findMany({ where: { runId: sourceRun.id, segmentationId: { in: ids } }, select: { segmentationId: true, prefixLength: true, qValue: true } })
        : Promise.resolve([]),
    ]);
    const graded = await gradeUnknown(db, rows);
    const measured = new Map<string, Map<number, number>>();
    for (const v of values) {
      const bySolution = measured.get(v.segmentationId) ?? new Map<number, number>();
      bySolution.set(v.prefixLength, v.qValue);
      measured.set(v.segmentationId, bySolution);
    }
    // In plan order, so a plan is reproducible to the last rounding.
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) continue;
      const k = row.chunkChars.length;
      const finalCorrect = row.finalCorrect ?? graded.get(row.solutionId) ?? false;
      const assumedQ = assumedPrefixSuccess({ chunks: k, finalCorrect, firstErrorIndex: row.firstError, passRate });
      const stored = measured.get(id);
      const q = stored ? assumedQ.map((fallback, length) => stored.get(length) ?? fallback) : assumedQ;
      const annotatable = row.hasReference && k > 0;
      if (!row.hasReference) withoutReference += 1;
      if (annotatable) {
        if (stored) fromRun += 1;
        else assumed += 1;
      }
      accumulator.add(
        { chunkTokens: row.chunkChars.map((chars) => chars * ratios!.chunk), problemTokens: row.problemChars * ratios!.problem, finalCorrect, q },
        { cost: annotatable },
      );
    }
  }

  await accumulator.simulate();
  const totals = accumulator.totals();
  const hours = annotationHours(totals.exact, options);
  const chunkRatio = ratios?.chunk ?? FALLBACK_TOKENS_PER_CHAR;
  const problemRatio = ratios?.problem ?? FALLBACK_TOKENS_PER_CHAR;
  const source = sourceRun ? `annotate run ${sourceRun.id}` : "assumed";
  const meanRolloutTokens = totals.exact.rollouts > 0 ? totals.exact.generatedTokens / totals.exact.rollouts : 0;
  const storageOf = (rolloutText: RolloutTextPolicy) =>
    projectAnnotationStorage({ solutions: totals.dataset.solutions, chunks: totals.dataset.chunks, rollouts: totals.exact.rollouts, meanRolloutTokens, labelRules: config.labelRules.length, rolloutText });
  const storage = storageOf(config.rolloutText);
  const gigabytes = (bytes: number) => roundSignificant(bytes / 1e9, 3);

  const assumptions = [
    `tokens: the approximate tokenizer of @stepwiser/core (a letter run 1 token, digits 1 per 3, any other symbol 1; what the simulated cluster counts, within a few %), applied as ${roundSignificant(chunkRatio, 3)} tokens per character of chunk text and ${roundSignificant(problemRatio, 3)} per character of problem text, measured on the ${ratios?.sampledChunks ?? 0} chunks of the first ${ratios?.sampledSolutions ?? 0} solutions of the plan; a real model's BPE tokenizer differs (typically about 4 characters per token of English)`,
    `continuation from prefix L: as long as the rest of the solution (chunks L+1..k with their <chunk> tags, ${CHUNK_TAG_TOKENS} tokens each), capped at maxTokens = ${config.maxTokens}`,
    `prompt of a request: the self-segmenting policy prompt (${policyPromptTemplateTokens()} tokens without the problem) + the problem + the prefix's chunks in tags + ${CHAT_TEMPLATE_TOKENS} tokens of chat template; counted once per request (its n samples share it) and without prefix-cache savings`,
    config.strategy === "fixed"
      ? `requests: one per prefix 0..k-1 with n = M = ${config.rollouts}; rollouts: k·M per solution, whatever the Q-values`
      : config.strategy === "adaptive"
        ? `requests: one per prefix per round with n = adaptiveBatch = ${config.adaptiveBatch} (fewer when a prefix reaches maxRollouts = ${config.maxRollouts}); the first round draws every prefix 0..k-1, every later round the prefixes that a label below targetConfidence = ${config.targetConfidence} rests on under any of the ${config.labelRules.length} rules (${config.labelRules.map(labelRuleKey).join(", ")}), label confidence as the run computes it (${labelConfidence.prior} prior${pilot ? ` fitted to run ${pilot.runId}'s ${pilot.prefixes} prefixes` : ""}, Abs-Q ε = ${labelConfidence.absQEpsilon}); M = rollouts is not used`
        : `requests: one per batch of earlyStopBatch = ${config.earlyStopBatch} samples (n = batch) until a prefix's first success or M = ${config.rollouts} samples; rollouts count every sample of a batch, also those after its first success; ${
          config.strategy === "early-stop"
            ? samplingEvidence(config) === "own-prefix"
              ? "every prefix 1..k-1 is drawn (own-prefix evidence), also on solutions whose final answer is correct"
              : "prefixes from the last backwards until one succeeds (later-prefixes evidence); a solution whose final answer is correct needs none"
            : "binary search for the first prefix without a success, then the prefix after it; if that one succeeds, every prefix (outcomes not monotone); a solution whose final answer is correct needs none"
        }`,
    sourceRun
      ? `q (success probability of one rollout from a prefix) = that prefix's Q-value in ${source}${sourceRun.rollouts ? ` (M = ${sourceRun.rollouts})` : ""}, rollouts independent; solutions or prefixes that run did not annotate use the assumption below`
      : `no finished fixed annotate run of this dataset on segmentation "${config.segmentationMethod}": q is assumed${config.strategy === "fixed" ? " (a fixed run's cost does not depend on it)" : ""}`,
    `assumed q: with a known first error (sourceFirstErrorIndex), the dataset's pass rate (${recordedPassRate === null ? "taken as 50 %: no solution's correctness is recorded" : percent(passRate)}) for the prefixes before it and 0 after it (no recovery); without one, 1 for every prefix of a solution whose final answer is correct (each succeeds in its first batch: a lower bound) and, for a wrong one, 0 for every prefix after the bare problem (every probe draws all M: an upper bound for early-stop and first-error)`,
    `final answers: Solution.finalAnswerCorrect, else graded from the solution text as the run does`,
    `hours: generated tokens / tokens-per-second${options.prefillTokensPerSecond ? " + prompt tokens / prefill-tokens-per-second" : " (prefill time not counted: no --prefill-tokens-per-second)"}, the cluster fully busy; no retries, failures or stragglers`,
  ];
  const simulation = totals.adaptive;
  if (simulation) {
    const sampled = simulation.sampledSolutions === simulation.solutions ? `each of the ${simulation.solutions} annotatable solutions` : `each of ${simulation.sampledSolutions} of the ${simulation.solutions} annotatable solutions, a uniform sample (reservoir sampling in plan order, seed "${simulation.seed}:sample")`;
    assumptions.push(
      `adaptive, first round: one batch from every prefix of every annotatable solution, counted exactly (${Math.round(totals.exact.requests - simulation.beyondFirstRound.requests * simulation.budgetShare).toLocaleString("en")} requests)`,
      `adaptive, later rounds: simulated, not computed: core's annotateAdaptive (the run's own strategy code) was run ${simulation.replicates} times on ${sampled}, every rollout from prefix L a success with probability q_L drawn independently (seed "${simulation.seed}:outcomes"); the mean cost beyond the first round was taken per chunk of the simulated solutions (${simulation.sampledChunks.toLocaleString("en")} chunks) and multiplied by the ${simulation.chunks.toLocaleString("en")} chunks of all annotatable solutions (× ${roundSignificant(simulation.scale, 4)}${simulation.scale === 1 ? ": every solution was simulated" : ""}); the simulated prefixes drew ${roundSignificant(simulation.batchesPerPrefix, 3)} batches on average. ${
        simulation.scale === 1 ? "Left to chance: the simulated outcomes" : "Left to chance: which solutions were sampled and the simulated outcomes"
      } (a few % on a few hundred solutions); the same config and data give the same plan`,
    );
    if (config.tokenBudget !== undefined) {
      assumptions.push(
        simulation.budgetShare < 1
          ? `tokenBudget = ${config.tokenBudget.toLocaleString("en")} generated tokens: reached, so the later rounds are cut to ${percent(simulation.budgetShare)} of their simulated cost, as if every solution's later rounds shrank alike (the first round is always drawn${simulation.budgetShare === 0 ? " and alone exceeds the budget" : ""}); the run itself stops giving solutions further rounds once its recorded tokens reach the budget, and rounds already in flight may pass it`
          : `tokenBudget = ${config.tokenBudget.toLocaleString("en")} generated tokens: not reached by the estimate`,
      );
    }
  }
  assumptions.push(
    `database size: bytes per row as measured on PostgreSQL (docs/benchmarks/storage.md): ${config.rolloutText === "full" ? `each rollout row with its text of ${Math.round(meanRolloutTokens)} generated tokens on average (compressed once a row passes about 2 kB)` : "each rollout row without its text (rolloutText answer-only)"}, a chunk value per prefix 0..k and a label per chunk and rule (${config.labelRules.length}) of every solution of the plan, and its per-solution rows; indexes included, WAL, backups and bloat after deletes not`,
  );
  if (withoutReference > 0) assumptions.push(`${withoutReference} solutions have no reference answer: their units fail before any request and cost nothing`);

  return {
    strategy: config.strategy,
    rollouts: config.rollouts,
    earlyStopBatch: config.earlyStopBatch,
    maxTokens: config.maxTokens,
    datasetId: config.datasetId,
    segmentationMethod: config.segmentationMethod,
    dataset: { ...totals.dataset, withoutReferenceAnswer: withoutReference },
    estimate: { ...totals.estimate, hours: roundSignificant(hours, 3) },
    adaptive: simulation
      ? { adaptiveBatch: config.adaptiveBatch, targetConfidence: config.targetConfidence, maxRollouts: config.maxRollouts, tokenBudget: config.tokenBudget ?? null, simulation }
      : null,
    throughput: { tokensPerSecond: options.tokensPerSecond, prefillTokensPerSecond: options.prefillTokensPerSecond ?? null },
    storage: {
      rolloutText: config.rolloutText,
      rolloutBytes: Math.round(storage.rolloutBytes),
      otherBytes: Math.round(storage.otherBytes),
      totalBytes: Math.round(storage.totalBytes),
      totalGB: gigabytes(storage.totalBytes),
      byPolicy: Object.fromEntries(
        ROLLOUT_TEXT_POLICIES.map((policy) => {
          const total = storageOf(policy).totalBytes;
          return [policy, { totalBytes: Math.round(total), totalGB: gigabytes(total) }];
        }),
      ) as Record<RolloutTextPolicy, { totalBytes: number; totalGB: number }>,
    },
    qValues: { source, runId: sourceRun?.id ?? null, sourceRollouts: sourceRun?.rollouts ?? null, solutionsFromRun: fromRun, solutionsAssumed: assumed, assumedPassRate: roundSignificant(passRate, 4) },
    assumptions,
  };
}
