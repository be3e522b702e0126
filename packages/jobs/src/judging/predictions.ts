import type { Db } from "@stepwiser/db";

const PAGE = 500;

/** One line of `stepwiser run predictions`: the `processbench score` input, with a critic's votes. */
export interface PredictionLine {
  id: string;
  prediction: number | null;
  /** processbench-critic runs: each sample's own reading, in sample order (the parsed index, or null). */
  votes?: Array<number | null>;
}

/**
 * Every prediction of a run as the `processbench score` input: `{ id, prediction }` per
 * solution, and for a critic run `votes`, one entry per sample. The votes are read from
 * the stored samples in the database (the samples' texts are not loaded).
 */
export async function* runPredictions(db: Db, runId: string): AsyncGenerator<PredictionLine> {
  let cursor = "";
  for (;;) {
    const page = await db.$queryRaw<Array<{ id: string; externalId: string; predictedFirstError: number | null; votes: Array<number | null> | null }>>`
      SELECT p.id, t."externalId", p."predictedFirstError",
             CASE WHEN jsonb_typeof(p.samples) = 'array' AND p.samples->0 ? 'vote'
                  THEN (SELECT jsonb_agg(e->'vote' ORDER BY n) FROM jsonb_array_elements(p.samples) WITH ORDINALITY AS s(e, n))
             END AS votes
        FROM "SolutionPrediction" p JOIN "Solution" t ON t.id = p."solutionId"
       WHERE p."runId" = ${runId} AND p.id > ${cursor}
       ORDER BY p.id
       LIMIT ${PAGE}`;
    for (const p of page) yield { id: p.externalId, prediction: p.predictedFirstError, ...(p.votes ? { votes: p.votes } : {}) };
    if (page.length < PAGE) return;
    cursor = page[page.length - 1]!.id;
  }
}

