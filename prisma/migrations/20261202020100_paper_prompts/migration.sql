-- New runs prompt with the StepWiser paper's own texts: the judge prompt of its Table 3
-- (stepwiser-judge@v2) and the policy prompt of its Table 11 (self-segmenting-policy@v2).
-- Every run stored before this used the studio's first wordings (v1), so its configuration
-- now says so: reading it back must neither resume it nor report it under v2.

-- Runs that judged with the StepWiser chunk prompt (protocol stepwiser-chunk, the default,
-- and benchmark runs from before protocols, which named it with mode "chunk-judge" or no mode).
UPDATE "Run"
   SET config = config || '{"judgePromptTemplateId":"stepwiser-judge@v1"}'::jsonb
 WHERE kind IN ('judge', 'benchmark', 'best_of_n', 'chunk_reset')
   AND jsonb_typeof(config) = 'object'
   AND NOT config ? 'judgePromptTemplateId'
   AND coalesce(config->>'protocol', CASE WHEN config->>'mode' = 'critic' THEN 'processbench-critic' ELSE 'stepwiser-chunk' END) = 'stepwiser-chunk';

-- Chunk-reset runs prompted their policy with self-segmenting-policy@v1.
UPDATE "Run"
   SET config = config || '{"policyPromptTemplateId":"self-segmenting-policy@v1"}'::jsonb
 WHERE kind = 'chunk_reset' AND jsonb_typeof(config) = 'object' AND NOT config ? 'policyPromptTemplateId';

-- Generate and annotate runs stored their prompt already (then always v1), and any without one used v1.
UPDATE "Run"
   SET config = config || '{"promptTemplateId":"self-segmenting-policy@v1"}'::jsonb
 WHERE kind IN ('generate', 'annotate') AND jsonb_typeof(config) = 'object' AND NOT config ? 'promptTemplateId';
