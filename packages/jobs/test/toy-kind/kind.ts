import { z } from "zod";
import type { UnitRunKind } from "../../src";

/**
 * A toy run kind, whole in this folder: it counts the chunks of each solution
 * of a dataset (one unit per segmentation) and sums them up. What a product kind
 * adds besides its folder is its line in packages/jobs/src/registry.ts.
 */
const toyConfigSchema = z.object({
  datasetId: z.string().min(1),
  /** Chunks counted per unit at most (a stand-in for a kind's own setting with a default). */
  cap: z.number().int().min(1).default(1000),
});
type ToyConfig = z.output<typeof toyConfigSchema>;

const toySummarySchema = z.object({ solutions: z.number().int(), chunks: z.number().int() });

export const toyKind: UnitRunKind<ToyConfig, z.output<typeof toySummarySchema>> = {
  kind: "toy",
  execution: "units",
  submitSchema: toyConfigSchema,
  storedSchema: toyConfigSchema,
  summarySchema: toySummarySchema,
  formHints: {
    datasetId: { label: "Dataset", help: "The dataset whose solutions are counted." },
    cap: { label: "Chunks counted per solution at most", help: "A larger count is cut to this. Default 1000." },
  },
  endpoints: () => [],
  facts: (config) => [`cap ${config.cap}`],
  snapshot: (_db, config) => Promise.resolve(config),
  datasetId: (config) => config.datasetId,
  concurrency: () => 4,
  async *plan({ db, config }) {
    const segmentations = await db.segmentation.findMany({ where: { solution: { datasetId: config.datasetId } }, orderBy: { id: "asc" }, select: { id: true } });
    for (const { id } of segmentations) yield id;
  },
  async runUnit({ db, config }, segmentationId) {
    const chunks = await db.chunk.count({ where: { segmentationId } });
    return { chunks: Math.min(chunks, config.cap) };
  },
  async summarize({ db, runId }) {
    const units = await db.runUnit.findMany({ where: { runId, status: "done" }, select: { result: true } });
    const chunks = units.reduce((n, unit) => n + z.object({ chunks: z.number() }).parse(unit.result).chunks, 0);
    return { solutions: units.length, chunks };
  },
};
