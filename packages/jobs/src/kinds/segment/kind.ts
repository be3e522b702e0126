import { buildChunkSegmenterPrompt, derivedSeed, locateTaggedChunks, RULE_SEGMENTERS, SegmentationError, type LocatedChunk } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import type { z } from "zod";
import { snapshotEndpoint } from "../../inference/endpoint-clients";
import { usedEndpoint } from "../../kit/kind-facts";
import { pagedIds } from "../../kit/paging";
import { SegmentationStatsAccumulator } from "../../kit/segmentation-stats";
import type { RunContext, UnitRunKind } from "../../runs/run-kind";
import { segmentConfigSchema, segmentStoredConfigSchema, type SegmentConfig } from "./config";
import { segmentFormHints } from "./form-hints";
import { segmentSummarySchema } from "./summary";

const SUMMARY_PAGE = 200;

/**
 * Key in `Solution.metadata` under which a rejected segmentation is noted,
 * per method: `{ runId, kind, error, finishReason?, model? }`. The last failed
 * attempt per method is kept; chunks are never stored for it.
 */
export const SEGMENTATION_FAILURES_KEY = "segmentationFailures";

export interface SegmentationFailureNote {
  runId: string;
  kind: string;
  error: string;
  finishReason?: string;
  model?: string;
  /** llm-segmenter: the attempts made (all rejected), and each one's rejection kind in order. */
  attempts?: number;
  attemptErrors?: string[];
}

/** Seed of the segmenter's first request for a solution: stable across copies of the dataset. */
export function segmenterSeed(runSeed: number, externalId: string): number {
  return derivedSeed(runSeed, "segment", externalId);
}

/** Seed of attempt `attempt` (1-based): the first is `segmenterSeed`, each later one its own draw from the run seed. */
export function segmenterAttemptSeed(runSeed: number, externalId: string, attempt: number): number {
  return attempt === 1 ? segmenterSeed(runSeed, externalId) : derivedSeed(runSeed, "segment", externalId, attempt);
}

/** Solutions the summary lists by name among those that never reconstructed (the count covers all). */
const LISTED_FAILURES = 100;

function solutionScope(config: SegmentConfig): Prisma.SolutionWhereInput {
  return {
    datasetId: config.datasetId,
    ...(config.solutionIds ? { id: { in: config.solutionIds } } : {}),
    ...(config.sourceMethod ? { segmentations: { some: { method: config.sourceMethod } } } : {}),
  };
}

function planSolutions({ db, config }: RunContext<SegmentConfig>): AsyncGenerator<string> {
  return pagedIds((page) => db.solution.findMany({ where: solutionScope(config), orderBy: { id: "asc" }, select: { id: true }, ...page }), { limit: config.limit });
}

/**
 * Stores the segmentation and its chunks together. When another run's
 * segmentation of the same method got there first, it is kept and nothing is
 * written.
 */
async function writeSegmentation(db: Db, runId: string, solutionId: string, method: string, params: Prisma.InputJsonObject, chunks: readonly LocatedChunk[]): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.segmentation.createMany({ data: [{ solutionId, method, params, runId }], skipDuplicates: true });
      const segmentation = await tx.segmentation.findUniqueOrThrow({ where: { solutionId_method: { solutionId, method } }, select: { id: true, runId: true } });
      if (segmentation.runId !== runId) return;
      await tx.chunk.createMany({
        data: chunks.map((c) => ({ segmentationId: segmentation.id, index: c.index, text: c.text, startOffset: c.startOffset, endOffset: c.endOffset })),
        skipDuplicates: true,
      });
    },
    { timeout: 60_000 },
  );
}

/**
 * One atomic jsonb update, so two runs noting failures of different methods
 * on the same solution cannot overwrite each other's note.
 */
async function noteFailure(db: Db, solutionId: string, method: string, note: SegmentationFailureNote): Promise<void> {
  await db.$executeRaw`
    UPDATE "Solution"
    SET "metadata" = jsonb_set(
      CASE WHEN jsonb_typeof("metadata" -> ${SEGMENTATION_FAILURES_KEY}::text) = 'object' THEN "metadata" ELSE "metadata" || jsonb_build_object(${SEGMENTATION_FAILURES_KEY}::text, '{}'::jsonb) END,
      ARRAY[${SEGMENTATION_FAILURES_KEY}::text, ${method}::text],
      ${JSON.stringify(note)}::jsonb
    )
    WHERE "id" = ${solutionId}`;
}

function failureNoteOf(metadata: Prisma.JsonValue, method: string): SegmentationFailureNote | null {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const failures = metadata[SEGMENTATION_FAILURES_KEY];
  if (failures === null || typeof failures !== "object" || Array.isArray(failures)) return null;
  const note = failures[method];
  return note !== null && typeof note === "object" && !Array.isArray(note) ? (note as unknown as SegmentationFailureNote) : null;
}

/** The temperature of attempt `attempt` (1-based). */
export function attemptTemperature(config: Pick<SegmentConfig, "temperature" | "retryTemperature">, attempt: number): number {
  return attempt === 1 ? config.temperature : config.retryTemperature;
}

/** The segmenter's tagged answer for one solution at one attempt; one request, n = 1. */
async function askSegmenter(ctx: RunContext<SegmentConfig>, solution: { id: string; externalId: string; text: string }, attempt: number) {
  const { config } = ctx;
  const segmenter = config.segmenter!;
  const { client } = ctx.endpoints.get(segmenter);
  const seed = segmenterAttemptSeed(config.seed, solution.externalId, attempt);
  const temperature = attemptTemperature(config, attempt);
  const result = await client.generate({
    model: segmenter.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: buildChunkSegmenterPrompt({ solution: solution.text }).text }] },
    n: 1,
    seed,
    temperature,
    maxTokens: config.maxTokens,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const sample = result.samples[0];
  if (!sample) throw new Error(`${segmenter.model} returned no sample`);
  return { seed, temperature, text: sample.text, finishReason: sample.finishReason };
}

/** The attempt a stored segmentation was accepted at (1 for those stored before attempts were recorded), or null when it records none (rules). */
export function acceptedAttempt(params: Prisma.JsonValue): number | null {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return null;
  if (typeof params.attempt === "number") return params.attempt;
  return typeof params.model === "string" ? 1 : null;
}

/**
 * segment: cuts the solutions of a dataset with a rule (blank lines, step
 * markers) or asks a segmenter model to wrap them in chunk tags, keeping only
 * answers that reconstruct the solution exactly. Unit = one solution id.
 */
export const segmentKind: UnitRunKind<SegmentConfig, z.output<typeof segmentSummarySchema>> = {
  kind: "segment",
  execution: "units",
  submitSchema: segmentConfigSchema,
  storedSchema: segmentStoredConfigSchema,
  summarySchema: segmentSummarySchema,
  formHints: segmentFormHints,
  endpoints: (config) => usedEndpoint("segmenter", config.segmenter),
  facts: (config) => [config.method, ...(config.segmenter ? [config.segmenter.model] : [])],
  async snapshot(db, config) {
    const dataset = await db.dataset.findUnique({ where: { id: config.datasetId }, select: { id: true } });
    if (!dataset) throw new Error(`no dataset with id "${config.datasetId}"`);
    return config.segmenterEndpoint ? { ...config, segmenter: await snapshotEndpoint(db, config.segmenterEndpoint, "segmenterEndpoint") } : config;
  },
  datasetId: (config) => config.datasetId,
  plan: planSolutions,
  concurrency: (config) => config.concurrency,

  async runUnit(ctx, solutionId) {
    const { db, config, runId } = ctx;
    const { method } = config;
    // Whoever wrote it (this run before a crash, another run, an import), an
    // existing segmentation of this method is kept: the summary counts it as skipped.
    const existing = await db.segmentation.findUnique({ where: { solutionId_method: { solutionId, method } }, select: { id: true } });
    if (existing) return;
    const solution = await db.solution.findUniqueOrThrow({ where: { id: solutionId }, select: { id: true, externalId: true, text: true, metadata: true } });

    if (method !== "llm-segmenter") {
      const chunks = RULE_SEGMENTERS[method](solution.text);
      if (chunks.length === 0) {
        await noteFailure(db, solutionId, method, { runId, kind: "no-chunks", error: "the solution text is blank" });
        return;
      }
      await writeSegmentation(db, runId, solutionId, method, {}, chunks);
      return;
    }

    // A rejection noted by this run is final for it: the same requests would be answered the same way.
    if (failureNoteOf(solution.metadata, method)?.runId === runId) return;
    const segmenter = config.segmenter!;
    // Attempt after attempt, each with its own seed, until one reconstructs; none is ever repaired.
    // A unit retried after a crash starts again at attempt 1 and, the seeds being the same, asks the same questions.
    const attemptErrors: string[] = [];
    for (let attempt = 1; attempt <= config.attempts; attempt++) {
      const answer = await askSegmenter(ctx, solution, attempt);
      let chunks: LocatedChunk[];
      try {
        chunks = locateTaggedChunks(solution.text, answer.text);
      } catch (error) {
        if (!(error instanceof SegmentationError)) throw error;
        attemptErrors.push(error.kind);
        if (attempt === config.attempts) {
          await noteFailure(db, solutionId, method, {
            runId,
            kind: error.kind,
            error: error.message.slice(0, 2000),
            finishReason: answer.finishReason,
            model: segmenter.model,
            attempts: attempt,
            attemptErrors,
          });
        }
        continue;
      }
      const params = {
        endpoint: segmenter.name,
        model: segmenter.model,
        promptTemplateId: config.promptTemplateId,
        temperature: answer.temperature,
        maxTokens: config.maxTokens,
        seed: answer.seed,
        attempt,
        attempts: config.attempts,
        rejectedAttempts: attemptErrors,
      };
      await writeSegmentation(db, runId, solutionId, method, params, chunks);
      return;
    }
  },

  async summarize(ctx) {
    const { db, config, runId } = ctx;
    const { method } = config;
    const byMethod = new Map<string, SegmentationStatsAccumulator>([[method, new SegmentationStatsAccumulator()]]);
    const counts = { solutions: 0, created: 0, skippedExisting: 0, invalid: 0 };
    const llm = method === "llm-segmenter";
    /** Solutions stored by this run, by the attempt that reconstructed. */
    const acceptedAt = new Map<number, number>();
    let failedAttempts = 0;
    const neverReconstructed: Array<{ solutionId: string; externalId: string; attempts: number; kind: string; error: string }> = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await db.runUnit.findMany({
        where: { runId, status: "done" },
        orderBy: { id: "asc" },
        take: SUMMARY_PAGE,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
        select: { id: true, key: true },
      });
      const solutions = await db.solution.findMany({
        where: { id: { in: page.map((u) => u.key) } },
        orderBy: { id: "asc" },
        select: {
          id: true,
          externalId: true,
          metadata: true,
          segmentations: { orderBy: { method: "asc" }, select: { method: true, runId: true, params: true, chunks: { orderBy: { index: "asc" }, select: { text: true } } } },
        },
      });
      for (const solution of solutions) {
        counts.solutions++;
        const own = solution.segmentations.find((s) => s.method === method);
        const failure = own ? null : failureNoteOf(solution.metadata, method);
        if (own?.runId === runId) {
          counts.created++;
          const attempt = acceptedAttempt(own.params);
          if (llm && attempt !== null) acceptedAt.set(attempt, (acceptedAt.get(attempt) ?? 0) + 1);
        } else if (own) counts.skippedExisting++;
        else if (failure?.runId === runId) {
          counts.invalid++;
          failedAttempts += failure.attempts ?? 1;
          if (neverReconstructed.length < LISTED_FAILURES) {
            neverReconstructed.push({ solutionId: solution.id, externalId: solution.externalId, attempts: failure.attempts ?? 1, kind: failure.kind, error: failure.error.slice(0, 300) });
          }
        }
        // Every method of the same solutions, so the rows compare like with like.
        for (const s of solution.segmentations) {
          let stats = byMethod.get(s.method);
          if (!stats) byMethod.set(s.method, (stats = new SegmentationStatsAccumulator()));
          stats.add(s.chunks.map((c) => c.text));
        }
      }
      if (page.length < SUMMARY_PAGE) break;
      cursor = page[page.length - 1]!.id;
    }
    const failedUnits = await db.runUnit.count({ where: { runId, status: "failed" } });
    return {
      method,
      ...counts,
      failedUnits,
      /** Share of the solutions the segmenter was asked for that some attempt reconstructed (null for rules or when none were asked). */
      validShare: llm && counts.created + counts.invalid > 0 ? counts.created / (counts.created + counts.invalid) : null,
      ...(llm
        ? {
            attempts: {
              limit: config.attempts,
              /** Solutions this run stored, by the attempt whose answer reconstructed (1 = the first). */
              acceptedAt: [...acceptedAt.entries()].sort(([a], [b]) => a - b).map(([attempt, solutions]) => ({ attempt, solutions })),
              /** Requests made: every attempt of the stored solutions and all attempts of those that never reconstructed. */
              requests: [...acceptedAt.entries()].reduce((n, [attempt, solutions]) => n + attempt * solutions, 0) + failedAttempts,
            },
            neverReconstructed,
          }
        : {}),
      byMethod: [method, ...[...byMethod.keys()].filter((m) => m !== method).sort()].map((name) => ({ method: name, ...byMethod.get(name)!.result() })),
    };
  },
};
