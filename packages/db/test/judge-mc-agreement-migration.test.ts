import { describe, expect, it } from "vitest";
import { applyMigrations } from "../src/migrations/migrate";
import { databaseBefore } from "./migration-database";

/**
 * A judge run's agreement with Monte-Carlo labels on `Run`: the migration fills it
 * in for the judge runs finished before it, against the completed annotate run of
 * their dataset and segmentation method that finished last before them, under that
 * run's first label rule, with each judge run's tie policy; null where there is no
 * such run or no judged chunk is labelled.
 */
const MIGRATION = "20261204021832_judge_mc_agreement";

describe(`migration ${MIGRATION}`, () => {
  const db = databaseBefore(MIGRATION);
  const q = (text: string, values: unknown[] = []) => db.client.query(text, values);

  it("fills in each finished judge run's agreement with the right annotate run, and leaves the rest null", async () => {
    const minute = (m: number) => new Date(Date.UTC(2026, 10, 30, 10, m));
    const run = (id: string, kind: string, status: string, finishedAt: number | null, config: unknown, summary: unknown = {}) =>
      q(`INSERT INTO "Run" (id, kind, status, "datasetId", "finishedAt", config, summary) VALUES ($1, $2, $3, 'd1', $4, $5, $6)`, [
        id,
        kind,
        status,
        finishedAt === null ? null : minute(finishedAt),
        JSON.stringify(config),
        summary === null ? null : JSON.stringify(summary),
      ]);
    await q(`INSERT INTO "Dataset" (id, name, source) VALUES ('d1', 'old', 'sim-world')`);
    await q(`INSERT INTO "Problem" (id, "datasetId", "textHash", text) VALUES ('p1', 'd1', 'h', 'problem')`);
    await q(`INSERT INTO "Solution" (id, "datasetId", "problemId", "externalId", generator, text) VALUES ('t1', 'd1', 'p1', 'x1', 'sim-policy', 'a b c d')`);
    await q(`INSERT INTO "Segmentation" (id, "solutionId", method) VALUES ('s1', 't1', 'self-segmented'), ('s2', 't1', 'sentences')`);
    await q(
      `INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset") VALUES ('c0', 's1', 0, 'a', 0, 1), ('c1', 's1', 1, 'b', 2, 3), ('c2', 's1', 2, 'c', 4, 5), ('c3', 's1', 3, 'd', 6, 7), ('x0', 's2', 0, 'a b c d', 0, 7)`,
    );
    const labels = (runId: string, rule: string, paramsKey: string, values: [string, string][]) =>
      q(
        `INSERT INTO "ChunkLabel" (id, "chunkId", "runId", rule, "paramsKey", label) VALUES ${values.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, '${runId}', '${rule}', '${paramsKey}', $${i * 3 + 3})`).join(", ")}`,
        values.flatMap(([chunkId, label]) => [`${runId}-${rule}-${chunkId}`, chunkId, label]),
      );
    const absQ = { rule: "abs-q", evidence: "own-prefix" };

    await run("a-old", "annotate", "completed", 1, { labelRules: [absQ] });
    await labels("a-old", "abs_q", '{"evidence":"own-prefix"}', [["c0", "Negative"], ["c1", "Negative"], ["c2", "Negative"], ["c3", "Negative"]]);
    // The reference of the judge runs finished at minute 5: its first rule is Rel-Ratio, though Abs-Q sorts first.
    await run("a-new", "annotate", "completed", 3, { labelRules: [{ rule: "rel-ratio", gamma: 0.7 }, absQ] });
    await labels("a-new", "abs_q", '{"evidence":"own-prefix"}', [["c0", "Negative"], ["c1", "Negative"], ["c2", "Negative"], ["c3", "Negative"]]);
    await labels("a-new", "rel_ratio", '{"gamma":0.7}', [["c0", "Positive"], ["c1", "Positive"], ["c2", "Positive"], ["c3", "Negative"]]);
    // Later, but not references: not completed, another segmentation method, or no labels.
    await run("a-failures", "annotate", "completed_with_failures", 4, { labelRules: [absQ] });
    await labels("a-failures", "abs_q", '{"evidence":"own-prefix"}', [["c0", "Negative"]]);
    await run("a-sentences", "annotate", "completed", 4, { segmentationMethod: "sentences", labelRules: [absQ] });
    await labels("a-sentences", "abs_q", '{"evidence":"own-prefix"}', [["x0", "Negative"]]);
    await run("a-empty", "annotate", "completed", 4, { labelRules: [absQ] });
    // Finished after the minute-5 judge runs; the reference of the one finished at minute 10, which judged none of its chunks.
    await run("a-late", "annotate", "completed", 9, { labelRules: [absQ] });
    await labels("a-late", "abs_q", '{"evidence":"own-prefix"}', [["c3", "Positive"]]);

    const votes = (runId: string, rows: [string, number, number, number][]) =>
      q(
        `INSERT INTO "ChunkVotes" ("runId", "chunkId", positive, negative, unparseable) VALUES ${rows.map((_, i) => `('${runId}', $${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`).join(", ")}`,
        rows.flat(),
      );
    // c0 Positive, c1 a tie, c2 Negative, c3 no readable vote (unparseable): against a-new's Rel-Ratio labels P, P, P, N.
    const tally: [string, number, number, number][] = [["c0", 2, 0, 0], ["c1", 1, 1, 0], ["c2", 0, 2, 0], ["c3", 0, 0, 2]];
    await run("j-tie-positive", "judge", "completed", 5, { tiePolicy: "Positive" });
    await votes("j-tie-positive", tally);
    await run("j-tie-negative", "judge", "completed", 5, {});
    await votes("j-tie-negative", tally);
    await run("j-before", "judge", "completed", 0, {});
    await votes("j-before", tally);
    await run("j-late", "judge", "completed", 10, {});
    await votes("j-late", tally.slice(0, 3));
    await run("j-running", "judge", "running", null, {}, null);
    await votes("j-running", tally);

    expect(await applyMigrations(db.url)).toContain(MIGRATION);
    const { rows } = await q(`SELECT id, "mcAgreement", "mcAgreementRunId" FROM "Run" WHERE kind = 'judge' ORDER BY id`);
    expect(Object.fromEntries(rows.map(({ id, ...columns }) => [id, columns]))).toEqual({
      "j-before": { mcAgreement: null, mcAgreementRunId: null },
      "j-late": { mcAgreement: null, mcAgreementRunId: null },
      "j-running": { mcAgreement: null, mcAgreementRunId: null },
      "j-tie-negative": { mcAgreement: 0.25, mcAgreementRunId: "a-new" },
      "j-tie-positive": { mcAgreement: 0.5, mcAgreementRunId: "a-new" },
    });
  });
});
