-- Benchmark runs choose their critic prompt (`criticPromptTemplateId`), and new
-- ones default to the official ProcessBench template, processbench-critic@v2.
-- Every critic run stored before this had only processbench-critic@v1 (our own
-- wording and answer reading), so its configuration now says so: reading it back
-- must neither resume it nor report it under v2.
UPDATE "Run"
   SET config = config || '{"criticPromptTemplateId":"processbench-critic@v1"}'::jsonb
 WHERE kind = 'benchmark' AND jsonb_typeof(config) = 'object' AND config->>'mode' = 'critic' AND NOT config ? 'criticPromptTemplateId';
