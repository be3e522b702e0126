import {
  absQLabelsFromSuccesses,
  applyLabelRule,
  DEFAULT_LABEL_RULES,
  gradeAnswer,
  labelConfidences,
  labelRuleParamsKey,
  majorityVerdict,
  parseVerdict,
  solutionLabelStats,
  storedPrefixEvidence,
  STORED_LABEL_RULE_NAMES,
  type Label,
  type LabelRule,
} from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../src";
import { seedLargeDataset, SEED_TOPIC_WORDS, type LargeDatasetResult } from "../src/seed/large-dataset";
import { createTestDatabase, type TestDatabase } from "../src/testing/test-database";

const RULES: LabelRule[] = [DEFAULT_LABEL_RULES["abs-q"], DEFAULT_LABEL_RULES["rel-ratio"], DEFAULT_LABEL_RULES["rel-effective"]];
const DB_RULE = STORED_LABEL_RULE_NAMES;
const N = 200;

async function loadSolutions(db: Db, datasetId: string) {
  return db.solution.findMany({
    where: { datasetId },
    orderBy: { externalId: "asc" },
    select: {
      id: true,
      externalId: true,
      text: true,
      finalAnswer: true,
      finalAnswerCorrect: true,
      sourceFirstErrorIndex: true,
      subset: true,
      generator: true,
      problem: { select: { referenceAnswer: true, metadata: true } },
      segmentations: {
        select: {
          id: true,
          method: true,
          chunks: { orderBy: { index: "asc" }, select: { id: true, index: true, text: true, startOffset: true, endOffset: true } },
        },
      },
    },
  });
}

describe("seedLargeDataset", () => {
  let database: TestDatabase;
  let seeded: LargeDatasetResult;
  let solutions: Awaited<ReturnType<typeof loadSolutions>>;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    seeded = await seedLargeDataset(database.db, { solutions: N, seed: 7, batchSize: 48 });
    solutions = await loadSolutions(database.db, seeded.datasetId);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("creates a ready dataset with 4 solutions per problem and completed runs", async () => {
    const { db } = database;
    expect(seeded).toMatchObject({ solutions: N, problems: N / 4 });
    const dataset = await db.dataset.findUniqueOrThrow({ where: { id: seeded.datasetId } });
    expect(dataset).toMatchObject({ status: "ready", source: "seed" });
    expect(await db.problem.count({ where: { datasetId: seeded.datasetId } })).toBe(N / 4);
    expect(solutions).toHaveLength(N);
    expect(new Set(solutions.map((s) => s.externalId))).toEqual(new Set(Array.from({ length: N }, (_, i) => `seed-${i}`)));
    expect(await db.chunk.count({ where: { segmentation: { solution: { datasetId: seeded.datasetId } } } })).toBe(seeded.chunks);

    const runs = await db.run.findMany({ where: { datasetId: seeded.datasetId }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => [r.id, r.kind, r.status, r.unitsDone])).toEqual([
      [seeded.annotateRunId, "annotate", "completed", N],
      [seeded.judgeRunIds[0], "judge", "completed", N],
      [seeded.judgeRunIds[1], "judge", "completed", N],
    ]);
    expect(runs[0]!.config).toMatchObject({ datasetId: seeded.datasetId, policyEndpoint: "sim-policy", rollouts: 16, segmentationMethod: "self-segmented", strategy: "fixed", labelRules: RULES });
    expect(runs[1]!.config).toMatchObject({ datasetId: seeded.datasetId, judgeEndpoint: "sim-judge-strong", samples: 2, tiePolicy: "Negative" });
    expect(runs[2]!.config).toMatchObject({ datasetId: seeded.datasetId, judgeEndpoint: "sim-judge-weak", samples: 2 });
    for (const run of runs) expect(await db.runUnit.count({ where: { runId: run.id, status: "done" } })).toBe(N);
  });

  it("writes solutions whose chunks are slices of the text, 4–16 chunks of 100–600 characters", () => {
    const counts = solutions.map((s) => s.segmentations[0]!.chunks.length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...counts)).toBeLessThanOrEqual(16);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean).toBeGreaterThan(9);
    expect(mean).toBeLessThan(11);
    for (const solution of solutions) {
      expect(solution.segmentations).toHaveLength(1);
      const { chunks, method } = solution.segmentations[0]!;
      expect(method).toBe("self-segmented");
      expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
      for (const chunk of chunks) {
        expect(solution.text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
        expect(chunk.text.length).toBeGreaterThanOrEqual(100);
        expect(chunk.text.length).toBeLessThanOrEqual(600);
      }
      expect(chunks.map((c) => c.text).join("\n\n")).toBe(solution.text);
      expect(solution.text).toContain(`\\boxed{${solution.finalAnswer}}`);
      expect(solution.finalAnswer === solution.problem.referenceAnswer).toBe(solution.finalAnswerCorrect);
      const firstError = solution.sourceFirstErrorIndex!;
      expect(firstError).toBeGreaterThanOrEqual(-1);
      expect(firstError).toBeLessThan(chunks.length);
    }
    const share = (f: (s: (typeof solutions)[number]) => boolean) => solutions.filter(f).length / solutions.length;
    expect(share((s) => s.finalAnswerCorrect === true)).toBeGreaterThan(0.4);
    expect(share((s) => s.finalAnswerCorrect === true)).toBeLessThan(0.7);
    expect(share((s) => s.sourceFirstErrorIndex === -1)).toBeGreaterThan(0.35);
    expect(share((s) => s.sourceFirstErrorIndex === -1)).toBeLessThan(0.65);
    expect(new Set(solutions.map((s) => s.subset))).toEqual(new Set(["gsm8k", "math", "olympiadbench", "omnimath"]));
    expect(new Set(solutions.map((s) => s.generator)).size).toBe(4);
  });

  it("stores a value for every prefix and labels that the label rules give from those values", async () => {
    const { db } = database;
    const values = await db.chunkValue.findMany({ where: { runId: seeded.annotateRunId } });
    const labels = await db.chunkLabel.findMany({ where: { runId: seeded.annotateRunId } });
    const stats = new Map((await db.solutionRunStat.findMany({ where: { runId: seeded.annotateRunId } })).map((s) => [s.solutionId, s]));
    expect(values).toHaveLength(seeded.chunks + N);
    expect(labels).toHaveLength(seeded.chunks * 3);
    expect(stats.size).toBe(N);
    const labelOf = new Map(labels.map((l) => [`${l.chunkId}/${l.rule}/${l.paramsKey}`, l.label]));
    const confidenceOf = new Map(labels.map((l) => [`${l.chunkId}/${l.rule}/${l.paramsKey}`, l.confidence]));
    const lowest = new Map((await db.solutionLabelConfidence.findMany({ where: { runId: seeded.annotateRunId } })).map((l) => [`${l.solutionId}/${l.rule}/${l.paramsKey}`, l.lowestConfidence]));
    expect(lowest.size).toBe(N * 3);

    let disagreeing = 0;
    for (const solution of solutions) {
      const { id: segmentationId, chunks } = solution.segmentations[0]!;
      const k = chunks.length;
      const mine = values.filter((v) => v.segmentationId === segmentationId).sort((a, b) => a.prefixLength - b.prefixLength);
      expect(mine.map((v) => v.prefixLength)).toEqual(Array.from({ length: k + 1 }, (_, i) => i));
      for (const v of mine.slice(0, k)) {
        expect(v.rolloutCount).toBe(16);
        expect(v.qValue).toBe(v.correctCount / 16);
      }
      // prefix k is the finished solution: its own outcome, as the annotate pipeline stores it
      expect(mine[k]).toMatchObject({ rolloutCount: 0, qValue: solution.finalAnswerCorrect ? 1 : 0, correctCount: solution.finalAnswerCorrect ? 1 : 0 });

      const q0 = mine[0]!.qValue;
      const q = mine.slice(1).map((v) => v.qValue);
      const expected: Label[][] = RULES.map((rule) =>
        rule.rule === "abs-q" ? absQLabelsFromSuccesses(mine.slice(1).map((v) => v.correctCount > 0), rule.evidence) : applyLabelRule(rule, q0, q),
      );
      RULES.forEach((rule, r) => {
        const key = `${DB_RULE[rule.rule]}/${labelRuleParamsKey(rule)}`;
        expect(chunks.map((c) => labelOf.get(`${c.id}/${key}`))).toEqual(expected[r]);
        // Each label's confidence is what core computes from the stored counts, and the solution keeps the lowest.
        const confidences = labelConfidences(rule, expected[r]!, storedPrefixEvidence(mine, k));
        chunks.forEach((c, i) => expect(confidenceOf.get(`${c.id}/${key}`)).toBeCloseTo(confidences[i]!, 9));
        expect(lowest.get(`${solution.id}/${key}`)).toBeCloseTo(Math.min(...(confidences as number[])), 9);
      });
      const stat = stats.get(solution.id)!;
      expect(stat).toMatchObject({ chunkCount: k, qMin: Math.min(...q), datasetId: seeded.datasetId, ...solutionLabelStats(expected) });
      expect(stat.firstNegative).toBe(expected[0]!.indexOf("Negative"));
      if (stat.labelsDisagree) disagreeing += 1;
    }
    expect(disagreeing).toBeGreaterThan(0);
    expect(disagreeing).toBeLessThan(N);
  });

  it("writes 2 judge samples per chunk and run, with parseable rationales and majority-vote stats", async () => {
    const { db } = database;
    const absQ = new Map(
      (await db.chunkLabel.findMany({ where: { runId: seeded.annotateRunId, rule: "abs_q" }, select: { chunkId: true, label: true } })).map((l) => [l.chunkId, l.label]),
    );
    for (const [r, runId] of seeded.judgeRunIds.entries()) {
      const samples = await db.judgeSample.findMany({ where: { runId }, orderBy: { sampleIndex: "asc" } });
      expect(samples).toHaveLength(seeded.chunks * 2);
      const byChunk = new Map<string, typeof samples>();
      for (const s of samples) byChunk.set(s.chunkId, [...(byChunk.get(s.chunkId) ?? []), s]);
      expect(byChunk.size).toBe(seeded.chunks);
      // The seeder skips foreign-key checks; the tally triggers still count every sample it wrote.
      const votes = await db.chunkVotes.findMany({ where: { runId } });
      expect(votes).toHaveLength(seeded.chunks);
      for (const v of votes) {
        const own = byChunk.get(v.chunkId)!;
        expect(v.verdicts).toEqual(own.map((s) => s.verdict));
        expect([v.positive, v.negative, v.unparseable]).toEqual(["Positive", "Negative", "unparseable"].map((verdict) => own.filter((s) => s.verdict === verdict).length));
      }
      let agree = 0;
      for (const s of samples) {
        expect(parseVerdict(s.rationale).verdict).toBe(s.verdict);
        expect(s.rationale.length).toBeGreaterThan(150);
        if (s.verdict === absQ.get(s.chunkId)) agree += 1;
      }
      // the strong judge agrees with Abs-Q on ~92% of samples, the weak one on ~78%
      const agreement = agree / samples.length;
      expect(agreement).toBeGreaterThan(r === 0 ? 0.85 : 0.7);
      expect(agreement).toBeLessThan(r === 0 ? 0.97 : 0.86);

      const stats = new Map((await db.solutionRunStat.findMany({ where: { runId } })).map((s) => [s.solutionId, s]));
      expect(stats.size).toBe(N);
      for (const solution of solutions) {
        const { chunks } = solution.segmentations[0]!;
        expect(chunks.every((c) => byChunk.get(c.id)!.map((s) => s.sampleIndex).join() === "0,1")).toBe(true);
        const votes = chunks.map((c) => majorityVerdict(byChunk.get(c.id)!.map((s) => s.verdict), "Negative").verdict);
        expect(stats.get(solution.id)).toMatchObject({
          chunkCount: chunks.length,
          qMin: null,
          firstNegative: votes.indexOf("Negative"),
          negativeCount: votes.filter((v) => v === "Negative").length,
          labelsDisagree: false,
        });
      }
      // The run's agreement with Monte-Carlo labels, as a finished judge run stores it: majority verdicts (ties Negative) against Abs-Q.
      const majority = [...byChunk].map(([chunkId, own]) => majorityVerdict(own.map((s) => s.verdict), "Negative").verdict === absQ.get(chunkId));
      const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { mcAgreement: true, mcAgreementRunId: true } });
      expect(run).toEqual({ mcAgreement: majority.filter(Boolean).length / majority.length, mcAgreementRunId: seeded.annotateRunId });
    }
  });

  it("judgeSamples 1 writes one sample per chunk and run whose verdict the stats read; rolloutSolutions limits the rollouts to the first solutions", async () => {
    const { db } = database;
    const small = await seedLargeDataset(db, { solutions: 16, seed: 4, batchSize: 8, judgeSamples: 1, rolloutsPerPrefix: 16, rolloutSolutions: 5, rolloutText: "answer-only" });
    const ordered = await db.solution.findMany({
      where: { datasetId: small.datasetId },
      orderBy: { externalId: "asc" },
      select: { id: true, externalId: true, segmentations: { select: { id: true, chunks: { orderBy: { index: "asc" }, select: { id: true } } } } },
    });
    for (const runId of small.judgeRunIds) {
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      expect((run.config as { samples: number }).samples).toBe(1);
      const samples = await db.judgeSample.findMany({ where: { runId }, select: { chunkId: true, sampleIndex: true, verdict: true, rationale: true } });
      expect(samples).toHaveLength(small.chunks);
      expect(samples.every((s) => s.sampleIndex === 0 && parseVerdict(s.rationale).verdict === s.verdict)).toBe(true);
      const verdictOf = new Map(samples.map((s) => [s.chunkId, s.verdict]));
      const stats = new Map((await db.solutionRunStat.findMany({ where: { runId } })).map((s) => [s.solutionId, s]));
      for (const t of ordered) {
        const votes = t.segmentations[0]!.chunks.map((c) => verdictOf.get(c.id)!);
        expect(stats.get(t.id)).toMatchObject({ firstNegative: votes.indexOf("Negative"), negativeCount: votes.filter((v) => v === "Negative").length });
      }
    }
    const bySolution = await db.rollout.groupBy({ by: ["segmentationId"], where: { runId: small.annotateRunId }, _count: { _all: true } });
    const withRollouts = new Set(bySolution.map((r) => r.segmentationId));
    // seed-<n> for n = 0..15: the first five are seed-0..seed-4
    const first = ordered.filter((t) => Number(t.externalId.slice(5)) < 5).map((t) => t.segmentations[0]!.id);
    expect([...withRollouts].sort()).toEqual([...first].sort());
    const firstChunks = ordered.filter((t) => Number(t.externalId.slice(5)) < 5).reduce((n, t) => n + t.segmentations[0]!.chunks.length, 0);
    expect(small.rollouts).toBe(firstChunks * 16);
  });

  it("fills the generated search vectors: a topic word finds the solutions of its problems", async () => {
    const { db } = database;
    const topics = solutions.map((s) => (s.problem.metadata as { topic: string }).topic);
    const word = topics[0]!;
    expect(SEED_TOPIC_WORDS).toContain(word);
    const [matching] = await db.$queryRawUnsafe<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM "Solution" WHERE "datasetId" = $1 AND "searchVector" @@ to_tsquery('simple', $2)`,
      seeded.datasetId,
      word,
    );
    expect(matching!.count).toBe(topics.filter((t) => t === word).length);
    const [problems] = await db.$queryRawUnsafe<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM "Problem" WHERE "datasetId" = $1 AND "searchVector" @@ to_tsquery('simple', $2)`,
      seeded.datasetId,
      word,
    );
    expect(problems!.count).toBe(topics.filter((t) => t === word).length / 4);
    expect(new Set(SEED_TOPIC_WORDS).size).toBe(200);
  });

  it("writes no Rollout rows unless asked", async () => {
    expect(seeded.rollouts).toBe(0);
    expect(await database.db.rollout.count({ where: { runId: seeded.annotateRunId } })).toBe(0);
    await expect(seedLargeDataset(database.db, { solutions: 4, rolloutsPerPrefix: 8 as 16 })).rejects.toThrow(/rolloutsPerPrefix must be 0 or 16/);
  });

  it("writes the annotate run's 16 rollouts of every prefix, as many correct as its stored value counts", async () => {
    const { db } = database;
    const withRollouts = await seedLargeDataset(db, { solutions: 24, seed: 9, batchSize: 8, rolloutsPerPrefix: 16 });
    expect(withRollouts.rollouts).toBe(withRollouts.chunks * 16);
    const rollouts = await db.rollout.findMany({ where: { runId: withRollouts.annotateRunId } });
    expect(rollouts).toHaveLength(withRollouts.rollouts);
    const values = await db.chunkValue.findMany({ where: { runId: withRollouts.annotateRunId } });
    const solutions = await loadSolutions(db, withRollouts.datasetId);
    const answerOf = new Map(solutions.map((s) => [s.segmentations[0]!.id, s.problem.referenceAnswer]));
    const byPrefix = new Map<string, typeof rollouts>();
    for (const r of rollouts) byPrefix.set(`${r.segmentationId}/${r.prefixLength}`, [...(byPrefix.get(`${r.segmentationId}/${r.prefixLength}`) ?? []), r]);
    expect(byPrefix.size).toBe(withRollouts.chunks);
    for (const value of values) {
      const mine = byPrefix.get(`${value.segmentationId}/${value.prefixLength}`) ?? [];
      // the finished solution (rolloutCount 0) has none; every other prefix its 16 samples
      expect(mine.map((r) => r.sampleIndex).sort((a, b) => a - b)).toEqual(Array.from({ length: value.rolloutCount }, (_, i) => i));
      expect(mine.filter((r) => r.correct)).toHaveLength(value.rolloutCount ? value.correctCount : 0);
      for (const r of mine) {
        if (r.correct) expect(r.extractedAnswer).toBe(answerOf.get(value.segmentationId));
        else expect(r.extractedAnswer).not.toBe(answerOf.get(value.segmentationId));
        expect(r.completionTokens).toBeGreaterThan(0);
      }
    }
    // the texts grade as the flags say (a sample: grading runs the symbolic comparison)
    for (const r of [...rollouts.filter((_, i) => i % 37 === 0), ...rollouts.filter((r) => r.extractedAnswer === null).slice(0, 3)]) {
      const graded = gradeAnswer(answerOf.get(r.segmentationId)!, r.text!, { timeLimitMs: 1000 });
      expect([graded.equivalent, graded.pred.extracted], r.text!).toEqual([r.correct, r.extractedAnswer]);
    }
    expect(rollouts.some((r) => r.extractedAnswer === null)).toBe(true);
    const run = await db.run.findUniqueOrThrow({ where: { id: withRollouts.annotateRunId } });
    expect(run.summary).toEqual({
      rollouts: withRollouts.rollouts,
      chunkValues: withRollouts.chunks + 24,
      rolloutCompletionTokens: rollouts.reduce((sum, r) => sum + r.completionTokens, 0),
    });

    // rolloutText answer-only: the same rows without their texts.
    const answerOnly = await seedLargeDataset(db, { solutions: 24, seed: 9, batchSize: 8, rolloutsPerPrefix: 16, rolloutText: "answer-only" });
    const lean = await db.rollout.findMany({ where: { runId: answerOnly.annotateRunId }, orderBy: [{ prefixLength: "asc" }, { sampleIndex: "asc" }], select: { prefixLength: true, sampleIndex: true, text: true, extractedAnswer: true, correct: true } });
    expect(lean).toHaveLength(withRollouts.rollouts);
    expect(lean.every((r) => r.text === null)).toBe(true);
    expect(lean.filter((r) => r.correct)).toHaveLength(rollouts.filter((r) => r.correct).length);
    const leanRun = await db.run.findUniqueOrThrow({ where: { id: answerOnly.annotateRunId } });
    expect((leanRun.config as { rolloutText: string }).rolloutText).toBe("answer-only");
  });

  it("leaves no dangling reference (rollouts included), even with the row-by-row foreign key checks skipped", async () => {
    const { db } = database;
    const foreignKeys = await db.$queryRawUnsafe<Array<{ child: string; column: string; parent: string; key: string }>>(`
      SELECT c.conrelid::regclass::text AS child, a.attname AS column, c.confrelid::regclass::text AS parent, pa.attname AS key
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
      WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1 AND c.connamespace = 'public'::regnamespace`);
    expect(foreignKeys.length).toBeGreaterThan(10);
    for (const fk of foreignKeys) {
      const [row] = await db.$queryRawUnsafe<Array<{ count: number }>>(
        `SELECT count(*)::int AS count FROM ${fk.child} c WHERE c."${fk.column}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${fk.parent} p WHERE p."${fk.key}" = c."${fk.column}")`,
      );
      expect(row!.count, `${fk.child}.${fk.column} → ${fk.parent}`).toBe(0);
    }
  });

  it("is deterministic in its content and writes a fresh dataset on every call", async () => {
    const { db, url } = database;
    // through a URL, with the foreign key checks on and one batch at a time
    const again = await seedLargeDataset(url, { solutions: N, seed: 7, concurrency: 1, foreignKeyChecks: true });
    const other = await seedLargeDataset(db, { solutions: 20, seed: 8 });
    expect(again.datasetId).not.toBe(seeded.datasetId);
    expect(again.chunks).toBe(seeded.chunks);
    const textsOf = async (datasetId: string) =>
      (await db.solution.findMany({ where: { datasetId }, orderBy: { externalId: "asc" }, select: { externalId: true, text: true } })).map((t) => `${t.externalId}:${t.text}`);
    expect(await textsOf(again.datasetId)).toEqual(solutions.map((s) => `${s.externalId}:${s.text}`));
    const otherTexts = await textsOf(other.datasetId);
    expect(otherTexts[0]).not.toBe(`${solutions[0]!.externalId}:${solutions[0]!.text}`);
    const labelsOf = async (runId: string) =>
      (await db.chunkLabel.findMany({ where: { runId }, select: { rule: true, label: true, chunk: { select: { index: true, segmentation: { select: { solution: { select: { externalId: true } } } } } } } }))
        .map((l) => `${l.chunk.segmentation.solution.externalId}/${l.chunk.index}/${l.rule}/${l.label}`)
        .sort();
    expect(await labelsOf(again.annotateRunId)).toEqual(await labelsOf(seeded.annotateRunId));
  });
});
