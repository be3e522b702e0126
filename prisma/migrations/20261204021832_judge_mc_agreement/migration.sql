-- A judge run's agreement with Monte-Carlo labels, as a column the runs list sorts by: the share of its judged chunks
-- whose majority verdict (the run's tie policy) equals the label of the reference annotate run under that run's first
-- label rule, and which annotate run that was. The worker writes both when a judge run finishes (the judge kind's
-- `resultColumns`), and the statement below fills them in for the judge runs finished before, by the same definition.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "mcAgreement" DOUBLE PRECISION,
ADD COLUMN     "mcAgreementRunId" TEXT;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_mcAgreementRunId_fkey" FOREIGN KEY ("mcAgreementRunId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The reference of a finished judge run: of the completed annotate runs of its dataset and segmentation method that
-- had finished by the time it did and stored labels, the one that finished last (then the greatest id), under its
-- first label rule (the stored rule and parameters equal to labelRules[0] of its config, or, where none of its labels
-- has that rule, the first rule it stored labels for: the rule its label balance is under). Its agreement: over the
-- judge's chunk tallies (ChunkVotes) that the reference labelled, the share whose majority verdict is the label (a
-- chunk without a readable vote reads unparseable, which no label equals). No overlap leaves both columns null.
WITH judge AS (
  SELECT id, "datasetId", "finishedAt",
    COALESCE(config ->> 'segmentationMethod', 'self-segmented') AS method,
    CASE WHEN config ->> 'tiePolicy' = 'Positive' THEN 'Positive' ELSE 'Negative' END AS tie
  FROM "Run"
  WHERE kind = 'judge' AND summary IS NOT NULL AND "datasetId" IS NOT NULL
), reference AS (
  SELECT j.id AS "judgeRunId", j.tie, a.id AS "annotateRunId", a.rule, a."paramsKey"
  FROM judge j
  CROSS JOIN LATERAL (
    SELECT r.id, pick.rule, pick."paramsKey"
    FROM "Run" r
    CROSS JOIN LATERAL (
      SELECT o.rule, o."paramsKey"
      FROM (
        (SELECT l.rule, l."paramsKey", 0 AS preference
         FROM "ChunkLabel" l
         WHERE l."runId" = r.id
           AND jsonb_typeof(r.config -> 'labelRules' -> 0) = 'object'
           AND l.rule::text = replace(r.config -> 'labelRules' -> 0 ->> 'rule', '-', '_')
           AND l."paramsKey"::jsonb = (r.config -> 'labelRules' -> 0) - 'rule'
         LIMIT 1)
        UNION ALL
        (SELECT l.rule, l."paramsKey", 1 FROM "ChunkLabel" l WHERE l."runId" = r.id ORDER BY l.rule, l."paramsKey" LIMIT 1)
      ) o
      ORDER BY o.preference
      LIMIT 1
    ) pick
    WHERE r.kind = 'annotate' AND r.status = 'completed' AND r."datasetId" = j."datasetId"
      AND COALESCE(r.config ->> 'segmentationMethod', 'self-segmented') = j.method
      AND r."finishedAt" IS NOT NULL
      AND (j."finishedAt" IS NULL OR r."finishedAt" <= j."finishedAt")
    ORDER BY r."finishedAt" DESC, r.id DESC
    LIMIT 1
  ) a
), agreement AS (
  SELECT ref."judgeRunId", ref."annotateRunId",
    count(*) AS chunks,
    count(*) FILTER (WHERE l.label::text = CASE
      WHEN v.positive = 0 AND v.negative = 0 THEN 'unparseable'
      WHEN v.positive > v.negative THEN 'Positive'
      WHEN v.negative > v.positive THEN 'Negative'
      ELSE ref.tie END) AS agreeing
  FROM reference ref
  JOIN "ChunkVotes" v ON v."runId" = ref."judgeRunId"
  JOIN "ChunkLabel" l ON l."chunkId" = v."chunkId" AND l."runId" = ref."annotateRunId" AND l.rule = ref.rule AND l."paramsKey" = ref."paramsKey"
  GROUP BY 1, 2
)
UPDATE "Run" r
SET "mcAgreement" = a.agreeing::double precision / a.chunks, "mcAgreementRunId" = a."annotateRunId"
FROM agreement a
WHERE r.id = a."judgeRunId" AND a.chunks > 0;
