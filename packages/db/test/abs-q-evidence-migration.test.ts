import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { BEFORE_SOLUTION_NAMES, databaseBefore } from "./migration-database";

/**
 * The migration that makes Abs-Q labels name their evidence, applied to a
 * database as the previous release left it: an annotate run's labels (computed
 * with the witness rule) must read as later-prefixes, an import's hard labels
 * as own-prefix, and every config, export and queue that names them must follow.
 */
const MIGRATION = "20261126090000_abs_q_evidence";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);

  it("stored labels, run configs, exports and queues of earlier runs read as later-prefixes afterwards; imported hard labels as own-prefix", async () => {
    const q = (text: string, values: unknown[] = []) => db.client.query(text, values);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'old', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Trajectory" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'sim-policy', 'a b')`);
    await q(`INSERT INTO "Segmentation" (id, "trajectoryId", method) VALUES ('s1', 't1', 'self-segmented')`);
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c0', 's1', 0, 'a', 0, 1), ('c1', 's1', 1, 'b', 2, 3)`);
    const oldAnnotateConfig = {
      datasetId: "d1",
      policyEndpoint: "policy",
      strategy: "early-stop",
      rollouts: 16,
      labelRules: [{ rule: "abs-q" }, { rule: "rel-ratio", gamma: 0.7 }],
    };
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('annotate1', 'annotate', 'completed', $1, 'd1')`, [JSON.stringify(oldAnnotateConfig)]);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('import1', 'import', 'completed', '{"format":"math-shepherd"}', 'd1')`);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('export1', 'export', 'completed', $1, 'd1')`, [
      JSON.stringify({ export: { kind: "training-set", annotateRunId: "annotate1", labelRule: { rule: "abs-q" }, format: "verl" } }),
    ]);
    await q(`INSERT INTO "Run" (id, kind, status, config, "datasetId") VALUES ('export2', 'export', 'completed', $1, 'd1')`, [
      JSON.stringify({ export: { kind: "training-set", annotateRunId: "annotate1", labelRule: { rule: "rel-ratio", gamma: 0.7 }, format: "verl" } }),
    ]);
    await q(
      `INSERT INTO "ChunkLabel" (id, "chunkId", "runId", rule, "paramsKey", label) VALUES
        ('l1', 'c0', 'annotate1', 'abs_q', '{}', 'Positive'), ('l2', 'c1', 'annotate1', 'abs_q', '{}', 'Negative'),
        ('l3', 'c0', 'annotate1', 'rel_ratio', '{"gamma":0.7}', 'Negative'),
        ('l4', 'c0', 'import1', 'abs_q', '{}', 'Positive')`,
    );
    await q(`INSERT INTO "AnnotationQueue" (id, name, "datasetId", "segmentationMethod", "annotateRunId", "labelRule", selection) VALUES ('queue1', 'audit', 'd1', 'self-segmented', 'annotate1', $1, '{}')`, [
      JSON.stringify({ rule: "abs_q", paramsKey: "{}" }),
    ]);
    await q(`INSERT INTO "TrajectoryRunStat" ("runId", "trajectoryId", "datasetId", "chunkCount", "firstNegative", "negativeCount", "updatedAt") VALUES ('annotate1', 't1', 'd1', 2, 1, 1, now())`);

    expect(await applyMigrations(db.url, { before: BEFORE_SOLUTION_NAMES })).toContain(MIGRATION);

    const labels = (await q(`SELECT id, rule, "paramsKey", label FROM "ChunkLabel" ORDER BY id`)).rows;
    expect(labels).toEqual([
      { id: "l1", rule: "abs_q", paramsKey: '{"evidence":"later-prefixes"}', label: "Positive" },
      { id: "l2", rule: "abs_q", paramsKey: '{"evidence":"later-prefixes"}', label: "Negative" },
      { id: "l3", rule: "rel_ratio", paramsKey: '{"gamma":0.7}', label: "Negative" },
      { id: "l4", rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}', label: "Positive" },
    ]);
    const config = (await q(`SELECT config FROM "Run" WHERE id = 'annotate1'`)).rows[0].config;
    // (The later migration 20261202020100_paper_prompts also names the policy prompt such a run used, v1.)
    expect(config).toEqual({
      ...oldAnnotateConfig,
      absQEvidence: "later-prefixes",
      labelRules: [{ rule: "abs-q", evidence: "later-prefixes" }, { rule: "rel-ratio", gamma: 0.7 }],
      promptTemplateId: "self-segmenting-policy@v1",
    });
    expect((await q(`SELECT config FROM "Run" WHERE id = 'import1'`)).rows[0].config).toEqual({ format: "math-shepherd" });
    expect((await q(`SELECT config FROM "Run" WHERE id = 'export1'`)).rows[0].config.export.labelRule).toEqual({ rule: "abs-q", evidence: "later-prefixes" });
    expect((await q(`SELECT config FROM "Run" WHERE id = 'export2'`)).rows[0].config.export.labelRule).toEqual({ rule: "rel-ratio", gamma: 0.7 });
    expect(JSON.parse((await q(`SELECT "labelRule" FROM "AnnotationQueue" WHERE id = 'queue1'`)).rows[0].labelRule)).toEqual({ rule: "abs_q", paramsKey: '{"evidence":"later-prefixes"}' });
    expect((await q(`SELECT monotonicity FROM "TrajectoryRunStat"`)).rows).toEqual([{ monotonicity: null }]);
  });
});
