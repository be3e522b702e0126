import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/**
 * The runs list's result columns on `Run`: the migration fills them in for the
 * runs finished before it, from their summaries (benchmark, judge) and their
 * labels under the first label rule (annotate), and leaves every other run null.
 */
const MIGRATION = "20261204012821_run_result_columns";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string, values: unknown[] = []) => db.client.query(text, values);

  it("fills in average F1, PRMScore, Negative share, label balance and mean confidence of the runs stored before it", async () => {
    const run = (id: string, kind: string, config: unknown, summary: unknown) =>
      q(`INSERT INTO "Run" (id, kind, status, config, summary) VALUES ($1, $2, 'completed', $3, $4)`, [id, kind, JSON.stringify(config), summary === null ? null : JSON.stringify(summary)]);
    const subsets = { gsm8k: { n: 4, n_error: 2, n_correct: 2, acc_err: 0.5, acc_cor: 1, f1: 0.667 } };
    await run("b-processbench", "benchmark", {}, { subsets, average_f1: 0.667, f1_ci95: {}, unparseable: 0, missing: 0 });
    await run("b-empty", "benchmark", {}, { subsets: { gsm8k: { ...subsets.gsm8k, n: 0 } }, average_f1: 0, f1_ci95: {}, unparseable: 0, missing: 0 });
    await run("b-prmbench", "benchmark", {}, { subsets, average_f1: 0.4, f1_ci95: {}, unparseable: 0, missing: 0, prmbench: { prmscore: 0.61, f1: 0.7, negative_f1: 0.52, n: 12 } });
    await run("j-votes", "judge", {}, { samples: 10, verdicts: { Positive: 6, Negative: 3, unparseable: 1 }, unparseableRate: 0.1 });
    await run("j-unreadable", "judge", {}, { samples: 2, verdicts: { unparseable: 2 }, unparseableRate: 1 });
    await run("g-other", "generate", {}, { solutions: 3 });
    // Labels under two rules: the first of the config's rules is ranked, whichever the table holds first.
    await run("a-first-rule", "annotate", { labelRules: [{ rule: "rel-ratio", gamma: 0.7 }, { rule: "abs-q", evidence: "own-prefix" }] }, { rollouts: 1, chunkValues: 1, rolloutCompletionTokens: 1 });
    // A config naming no rule: the first rule it stored labels for.
    await run("a-no-rule", "annotate", {}, { rollouts: 1, chunkValues: 1, rolloutCompletionTokens: 1 });
    await run("a-running", "annotate", { labelRules: [{ rule: "abs-q", evidence: "own-prefix" }] }, null);

    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'old', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Solution" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'sim-policy', 'a b c d')`);
    await q(`INSERT INTO "Segmentation" (id, "solutionId", method) VALUES ('s1', 't1', 'self-segmented')`);
    await q(`INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c0', 's1', 0, 'a', 0, 1), ('c1', 's1', 1, 'b', 2, 3), ('c2', 's1', 2, 'c', 4, 5), ('c3', 's1', 3, 'd', 6, 7)`);
    const labels = (runId: string, rule: string, paramsKey: string, values: [string, number | null][]) =>
      q(
        `INSERT INTO "ChunkLabel" (id, "chunkId", "runId", rule, "paramsKey", label, confidence) VALUES ${values.map((_, i) => `($${i * 3 + 1}, 'c${i}', '${runId}', '${rule}', '${paramsKey}', $${i * 3 + 2}, $${i * 3 + 3})`).join(", ")}`,
        values.flatMap(([label, confidence], i) => [`${runId}-${rule}-${i}`, label, confidence]),
      );
    await labels("a-first-rule", "abs_q", '{"evidence":"own-prefix"}', [["Positive", 0.9], ["Positive", 0.9], ["Positive", 0.9], ["Positive", 0.9]]);
    await labels("a-first-rule", "rel_ratio", '{"gamma":0.7}', [["Positive", 0.8], ["Negative", 0.6], ["Negative", null], ["Positive", 0.7]]);
    await labels("a-no-rule", "rel_ratio", '{"gamma":0.7}', [["Negative", 0.5]]);
    await labels("a-no-rule", "abs_q", '{"evidence":"own-prefix"}', [["Positive", 1], ["Negative", 0.5]]);
    await labels("a-running", "abs_q", '{"evidence":"own-prefix"}', [["Positive", 1]]);

    expect(await applyMigrations(db.url)).toContain(MIGRATION);
    const { rows } = await q(`SELECT id, "averageF1", prmscore, "negativeShare", "labelBalance", "meanConfidence" FROM "Run" ORDER BY id`);
    const none = { averageF1: null, prmscore: null, negativeShare: null, labelBalance: null, meanConfidence: null };
    expect(Object.fromEntries(rows.map(({ id, ...columns }) => [id, columns]))).toEqual({
      "a-first-rule": { ...none, labelBalance: 0.5, meanConfidence: expect.closeTo(0.7, 10) },
      "a-no-rule": { ...none, labelBalance: 0.5, meanConfidence: 0.75 },
      "a-running": none,
      "b-empty": none,
      "b-prmbench": { ...none, prmscore: 0.61 },
      "b-processbench": { ...none, averageF1: 0.667 },
      "g-other": none,
      "j-unreadable": none,
      "j-votes": { ...none, negativeShare: expect.closeTo(1 / 3, 10) },
    });
  });
});
