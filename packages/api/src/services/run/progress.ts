import { Prisma } from "@stepwiser/db";
import type { ServiceArgs } from "../args";

interface ProgressPoint {
  at: Date;
  unitsDone: number;
  unitsFailed: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * The run's counters over time, at most `points` of them: samples are bucketed
 * by time and the last sample of each bucket kept, so a day-long run draws as
 * fast as a minute-long one. Rates are derived from consecutive points.
 */
export async function runProgress({ db, input }: ServiceArgs<{ id: string; points: number }>) {
  const rows = await db.$queryRaw<ProgressPoint[]>(Prisma.sql`
    WITH span AS (
      SELECT min("at") AS first, greatest(extract(epoch FROM max("at") - min("at")), 0.001) AS seconds
      FROM "RunProgressSample" WHERE "runId" = ${input.id}
    ), bucketed AS (
      SELECT s.*, floor(extract(epoch FROM s."at" - span.first) / span.seconds * ${input.points - 1}) AS bucket
      FROM "RunProgressSample" s, span WHERE s."runId" = ${input.id}
    )
    SELECT DISTINCT ON (bucket) "at", "unitsDone", "unitsFailed", "requests", "promptTokens"::float8 AS "promptTokens", "completionTokens"::float8 AS "completionTokens"
    FROM bucketed ORDER BY bucket, "at" DESC, id DESC`);
  const points = rows.map((point, i) => {
    const previous = rows[i - 1];
    const seconds = previous ? (point.at.getTime() - previous.at.getTime()) / 1000 : 0;
    const rate = (now: number, before: number | undefined) => (previous && seconds > 0 ? (now - (before ?? 0)) / seconds : null);
    return {
      ...point,
      unitsPerSecond: rate(point.unitsDone + point.unitsFailed, previous && previous.unitsDone + previous.unitsFailed),
      tokensPerSecond: rate(point.completionTokens, previous?.completionTokens),
    };
  });
  return { points };
}
