-- Abs-Q labels name their evidence in the parameters key.
--
-- Until now an annotate run's Abs-Q labels counted a success of any later
-- prefix (and a correct final answer) as evidence for earlier chunks. They are
-- now stored as {"evidence":"later-prefixes"} so they keep that meaning beside
-- labels of the paper's per-prefix estimator ({"evidence":"own-prefix"}).
-- Imported hard labels (Math-Shepherd, generic JSONL) were estimated by their
-- source from each step's own completions: {"evidence":"own-prefix"}.

-- First-error's monotonicity flag per annotated solution.
ALTER TABLE "TrajectoryRunStat" ADD COLUMN "monotonicity" TEXT;

-- Stored labels.
UPDATE "ChunkLabel" l
   SET "paramsKey" = CASE WHEN r.kind = 'annotate' THEN '{"evidence":"later-prefixes"}' ELSE '{"evidence":"own-prefix"}' END
  FROM "Run" r
 WHERE r.id = l."runId" AND l.rule = 'abs_q' AND l."paramsKey" = '{}';

-- Annotate run configs: the Abs-Q rules they labelled with, and the evidence their strategies sampled for.
UPDATE "Run"
   SET config = jsonb_set(
         config || '{"absQEvidence":"later-prefixes"}'::jsonb,
         '{labelRules}',
         (SELECT coalesce(jsonb_agg(CASE WHEN rule->>'rule' = 'abs-q' AND NOT rule ? 'evidence' THEN rule || '{"evidence":"later-prefixes"}'::jsonb ELSE rule END ORDER BY position), '[]'::jsonb)
            FROM jsonb_array_elements(config->'labelRules') WITH ORDINALITY AS rules(rule, position)))
 WHERE kind = 'annotate' AND jsonb_typeof(config) = 'object' AND NOT config ? 'absQEvidence' AND jsonb_typeof(config->'labelRules') = 'array';

UPDATE "Run"
   SET config = config || '{"absQEvidence":"later-prefixes"}'::jsonb
 WHERE kind = 'annotate' AND jsonb_typeof(config) = 'object' AND NOT config ? 'absQEvidence';

-- Training-set exports name the labels they exported.
UPDATE "Run" e
   SET config = jsonb_set(e.config, '{export,labelRule,evidence}', CASE WHEN s.kind = 'annotate' THEN '"later-prefixes"'::jsonb ELSE '"own-prefix"'::jsonb END)
  FROM "Run" s
 WHERE e.kind = 'export' AND e.config->'export'->>'kind' = 'training-set' AND e.config->'export'->'labelRule'->>'rule' = 'abs-q'
   AND NOT (e.config->'export'->'labelRule') ? 'evidence' AND s.id = e.config->'export'->>'annotateRunId';

-- Annotation queues name the label rule they audit.
UPDATE "AnnotationQueue" q
   SET "labelRule" = jsonb_build_object('rule', 'abs_q', 'paramsKey', CASE WHEN r.kind = 'annotate' THEN '{"evidence":"later-prefixes"}' ELSE '{"evidence":"own-prefix"}' END)::text
  FROM "Run" r
 WHERE r.id = q."annotateRunId" AND q."labelRule" IS NOT NULL
   AND q."labelRule"::jsonb->>'rule' = 'abs_q' AND q."labelRule"::jsonb->>'paramsKey' = '{}';
