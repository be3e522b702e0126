import { buildChunkSegmenterPrompt, derivedSeed, locateTaggedChunks, RULE_SEGMENTERS, SegmentationError, type LocatedChunk } from "@stepwiser/core";
import type { Db, Prisma } from "@stepwiser/db";
import { snapshotEndpoint } from "../../inference/endpoint-clients";
import { pagedIds } from "../../runs/paging";
import type { RunContext, RunKindHandler } from "../../runs/run-kind";
import { segmentConfigSchema, type SegmentConfig } from "./config";
import { SegmentationStatsAccumulator } from "./stats";

const SUMMARY_PAGE = 200;

/**
 * Key in `Trajectory.metadata` under which a rejected segmentation is noted,
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
}

/** Seed of the segmenter's request for a trajectory: stable across copies of the dataset. */
export function segmenterSeed(runSeed: number, externalId: string): number {
  return derivedSeed(runSeed, "segment", externalId);
}

function trajectoryScope(config: SegmentConfig): Prisma.TrajectoryWhereInput {
  return {
    datasetId: config.datasetId,
    ...(config.trajectoryIds ? { id: { in: config.trajectoryIds } } : {}),
    ...(config.sourceMethod ? { segmentations: { some: { method: config.sourceMethod } } } : {}),
  };
}

function planTrajectories({ db, config }: RunContext<SegmentConfig>): AsyncGenerator<string> {
  return pagedIds((page) => db.trajectory.findMany({ where: trajectoryScope(config), orderBy: { id: "asc" }, select: { id: true }, ...page }), { limit: config.limit });
}

/**
 * Stores the segmentation and its chunks together. When another run's
 * segmentation of the same method got there first, it is kept and nothing is
 * written.
 */
async function writeSegmentation(db: Db, runId: string, trajectoryId: string, method: string, params: Prisma.InputJsonObject, chunks: readonly LocatedChunk[]): Promise<void> {
  await db.$transaction(
    async (tx) => {
      await tx.segmentation.createMany({ data: [{ trajectoryId, method, params, runId }], skipDuplicates: true });
      const segmentation = await tx.segmentation.findUniqueOrThrow({ where: { trajectoryId_method: { trajectoryId, method } }, select: { id: true, runId: true } });
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
 * on the same trajectory cannot overwrite each other's note.
 */
async function noteFailure(db: Db, trajectoryId: string, method: string, note: SegmentationFailureNote): Promise<void> {
  await db.$executeRaw`
    UPDATE "Trajectory"
    SET "metadata" = jsonb_set(
      CASE WHEN jsonb_typeof("metadata" -> ${SEGMENTATION_FAILURES_KEY}::text) = 'object' THEN "metadata" ELSE "metadata" || jsonb_build_object(${SEGMENTATION_FAILURES_KEY}::text, '{}'::jsonb) END,
      ARRAY[${SEGMENTATION_FAILURES_KEY}::text, ${method}::text],
      ${JSON.stringify(note)}::jsonb
    )
    WHERE "id" = ${trajectoryId}`;
}

function failureNoteOf(metadata: Prisma.JsonValue, method: string): SegmentationFailureNote | null {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const failures = metadata[SEGMENTATION_FAILURES_KEY];
  if (failures === null || typeof failures !== "object" || Array.isArray(failures)) return null;
  const note = failures[method];
  return note !== null && typeof note === "object" && !Array.isArray(note) ? (note as unknown as SegmentationFailureNote) : null;
}

/** The segmenter's tagged answer for one solution; one request, n = 1. */
async function askSegmenter(ctx: RunContext<SegmentConfig>, trajectory: { id: string; externalId: string; text: string }) {
  const { config } = ctx;
  const segmenter = config.segmenter!;
  const { client } = ctx.endpoints.get(segmenter);
  const seed = segmenterSeed(config.seed, trajectory.externalId);
  const result = await client.generate({
    model: segmenter.model,
    prompt: { kind: "chat", messages: [{ role: "user", content: buildChunkSegmenterPrompt({ solution: trajectory.text }).text }] },
    n: 1,
    seed,
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    signal: ctx.signal,
  });
  ctx.recordUsage(result.usage);
  const sample = result.samples[0];
  if (!sample) throw new Error(`${segmenter.model} returned no sample`);
  return { seed, text: sample.text, finishReason: sample.finishReason };
}

/**
 * segment: cuts the trajectories of a dataset with a rule (blank lines, step
 * markers) or asks a segmenter model to wrap them in chunk tags, keeping only
 * answers that reconstruct the solution exactly. Unit = one trajectory id.
 */
export const segmentHandler: RunKindHandler<SegmentConfig> = {
  kind: "segment",
  configSchema: segmentConfigSchema,
  async snapshot(db, config) {
    const dataset = await db.dataset.findUnique({ where: { id: config.datasetId }, select: { id: true } });
    if (!dataset) throw new Error(`no dataset with id "${config.datasetId}"`);
    return config.segmenterEndpoint ? { ...config, segmenter: await snapshotEndpoint(db, config.segmenterEndpoint, "segmenterEndpoint") } : config;
  },
  datasetId: (config) => config.datasetId,
  plan: planTrajectories,
  concurrency: (config) => config.concurrency,

  async runUnit(ctx, trajectoryId) {
    const { db, config, runId } = ctx;
    const { method } = config;
    // Whoever wrote it (this run before a crash, another run, an import), an
    // existing segmentation of this method is kept: the summary counts it as skipped.
    const existing = await db.segmentation.findUnique({ where: { trajectoryId_method: { trajectoryId, method } }, select: { id: true } });
    if (existing) return;
    const trajectory = await db.trajectory.findUniqueOrThrow({ where: { id: trajectoryId }, select: { id: true, externalId: true, text: true, metadata: true } });

    if (method !== "llm-segmenter") {
      const chunks = RULE_SEGMENTERS[method](trajectory.text);
      if (chunks.length === 0) {
        await noteFailure(db, trajectoryId, method, { runId, kind: "no-chunks", error: "the solution text is blank" });
        return;
      }
      await writeSegmentation(db, runId, trajectoryId, method, {}, chunks);
      return;
    }

    // A rejection noted by this run is final for it: the same request would be answered the same way.
    if (failureNoteOf(trajectory.metadata, method)?.runId === runId) return;
    const segmenter = config.segmenter!;
    const answer = await askSegmenter(ctx, trajectory);
    let chunks: LocatedChunk[];
    try {
      chunks = locateTaggedChunks(trajectory.text, answer.text);
    } catch (error) {
      if (!(error instanceof SegmentationError)) throw error;
      await noteFailure(db, trajectoryId, method, { runId, kind: error.kind, error: error.message.slice(0, 2000), finishReason: answer.finishReason, model: segmenter.model });
      return;
    }
    const params = { endpoint: segmenter.name, model: segmenter.model, promptTemplateId: config.promptTemplateId, temperature: config.temperature, maxTokens: config.maxTokens, seed: answer.seed };
    await writeSegmentation(db, runId, trajectoryId, method, params, chunks);
  },

  async summarize(ctx) {
    const { db, config, runId } = ctx;
    const { method } = config;
    const byMethod = new Map<string, SegmentationStatsAccumulator>([[method, new SegmentationStatsAccumulator()]]);
    const counts = { trajectories: 0, created: 0, skippedExisting: 0, invalid: 0 };
    let cursor: string | undefined;
    for (;;) {
      const page = await db.runUnit.findMany({
        where: { runId, status: "done" },
        orderBy: { id: "asc" },
        take: SUMMARY_PAGE,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
        select: { id: true, key: true },
      });
      const trajectories = await db.trajectory.findMany({
        where: { id: { in: page.map((u) => u.key) } },
        select: {
          metadata: true,
          segmentations: { orderBy: { method: "asc" }, select: { method: true, runId: true, chunks: { orderBy: { index: "asc" }, select: { text: true } } } },
        },
      });
      for (const trajectory of trajectories) {
        counts.trajectories++;
        const own = trajectory.segmentations.find((s) => s.method === method);
        if (own?.runId === runId) counts.created++;
        else if (own) counts.skippedExisting++;
        else if (failureNoteOf(trajectory.metadata, method)?.runId === runId) counts.invalid++;
        // Every method of the same trajectories, so the rows compare like with like.
        for (const s of trajectory.segmentations) {
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
      /** Share of answers the segmenter got right, over those it was asked for (null for rules or when none were). */
      validShare: method === "llm-segmenter" && counts.created + counts.invalid > 0 ? counts.created / (counts.created + counts.invalid) : null,
      byMethod: [method, ...[...byMethod.keys()].filter((m) => m !== method).sort()].map((name) => ({ method: name, ...byMethod.get(name)!.result() })),
    };
  },
};
