-- The figures the runs list ranks finished runs by, as columns of the run: sorting a page of runs by one of them
-- reads a column, never a path into each run's summary JSON. The worker writes them with the summary when a run
-- finishes (each kind's `resultColumns`), and the statements below fill them in for the runs finished before, by the
-- same definitions.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "averageF1" DOUBLE PRECISION,
ADD COLUMN     "labelBalance" DOUBLE PRECISION,
ADD COLUMN     "meanConfidence" DOUBLE PRECISION,
ADD COLUMN     "negativeShare" DOUBLE PRECISION,
ADD COLUMN     "prmscore" DOUBLE PRECISION;

-- A ProcessBench-scored benchmark: its average F1, where it scored some solution. A PRMBench-scored run's
-- first-error reading is not PRMBench's metric, so it gets its PRMScore instead.
UPDATE "Run" r
SET "averageF1" = (r.summary ->> 'average_f1')::double precision
WHERE r.kind = 'benchmark'
  AND jsonb_typeof(r.summary -> 'average_f1') = 'number'
  AND r.summary -> 'prmbench' IS NULL
  AND (CASE WHEN jsonb_typeof(r.summary -> 'subsets') = 'object'
       THEN (SELECT COALESCE(sum(CASE WHEN jsonb_typeof(s.value -> 'n') = 'number' THEN (s.value ->> 'n')::double precision ELSE 0 END), 0)
             FROM jsonb_each(r.summary -> 'subsets') s)
       ELSE 0 END) > 0;

UPDATE "Run" r
SET "prmscore" = (r.summary -> 'prmbench' ->> 'prmscore')::double precision
WHERE r.kind = 'benchmark'
  AND jsonb_typeof(r.summary -> 'prmbench' -> 'prmscore') = 'number'
  AND (CASE WHEN jsonb_typeof(r.summary -> 'prmbench' -> 'n') = 'number' THEN (r.summary -> 'prmbench' ->> 'n')::double precision ELSE 0 END) > 0;

-- A judge run: Negative samples among its readable ones (unparseable samples left out).
UPDATE "Run" r
SET "negativeShare" = v.negative / (v.negative + v.positive)
FROM (
  SELECT id,
    CASE WHEN jsonb_typeof(summary -> 'verdicts' -> 'Negative') = 'number' THEN (summary -> 'verdicts' ->> 'Negative')::double precision ELSE 0 END AS negative,
    CASE WHEN jsonb_typeof(summary -> 'verdicts' -> 'Positive') = 'number' THEN (summary -> 'verdicts' ->> 'Positive')::double precision ELSE 0 END AS positive
  FROM "Run"
  WHERE kind = 'judge' AND jsonb_typeof(summary -> 'verdicts') = 'object'
) v
WHERE r.id = v.id AND v.negative + v.positive > 0;

-- A finished annotate run: the Positive share and mean confidence of its labels under its first label rule (the
-- stored rule and parameters equal to labelRules[0] of its config), or, where none of its labels has that rule, under
-- the first rule it stored labels for.
WITH pairs AS (
  SELECT cl."runId", cl.rule, cl."paramsKey",
    count(*) FILTER (WHERE cl.label = 'Positive')::double precision AS positive,
    count(*)::double precision AS labels,
    avg(cl.confidence) AS confidence
  FROM "ChunkLabel" cl
  JOIN "Run" r ON r.id = cl."runId"
  WHERE r.kind = 'annotate' AND r.summary IS NOT NULL
  GROUP BY 1, 2, 3
), chosen AS (
  SELECT DISTINCT ON (p."runId") p.*
  FROM pairs p
  JOIN "Run" r ON r.id = p."runId"
  ORDER BY p."runId",
    COALESCE(
      jsonb_typeof(r.config -> 'labelRules' -> 0) = 'object'
        AND replace(r.config -> 'labelRules' -> 0 ->> 'rule', '-', '_') = p.rule::text
        AND p."paramsKey"::jsonb = (r.config -> 'labelRules' -> 0) - 'rule',
      false) DESC,
    p.rule, p."paramsKey"
)
UPDATE "Run" r
SET "labelBalance" = c.positive / c.labels, "meanConfidence" = c.confidence
FROM chosen c
WHERE r.id = c."runId" AND c.labels > 0;
