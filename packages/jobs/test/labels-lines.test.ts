import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chunkLabelsLines, type ChunkLabelsLine } from "../src";

const POLICY = { name: "sim-policy", model: "sim-policy-7b", baseUrls: ["http://sim-a:8000/v1"], maxConcurrency: 64 };
const ABS_Q = { rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' } as const;
const REL_RATIO = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;

describe("labels export lines", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("give every label its confidence beside it (null where none is stored), keeping every other key", async () => {
    const { db } = database;
    const dataset = await db.dataset.create({ data: { name: "labels export", source: "sim-world", status: "ready" } });
    const problem = await db.problem.create({ data: { datasetId: dataset.id, textHash: "h", text: "What is 2 + 3 * 4?", referenceAnswer: "14" } });
    const texts = ["3 * 4 = 12.", "2 + 12 = 15.", "The answer is \\boxed{15}."];
    const solution = await db.solution.create({
      data: { datasetId: dataset.id, problemId: problem.id, externalId: "sol-1", subset: "math", generator: "sim-policy-7b", text: texts.join("\n"), finalAnswerCorrect: false },
    });
    let offset = 0;
    const segmentation = await db.segmentation.create({
      data: {
        solutionId: solution.id,
        method: "self-segmented",
        chunks: {
          create: texts.map((text, index) => {
            const chunk = { index, text, startOffset: offset, endOffset: offset + text.length };
            offset += text.length + 1;
            return chunk;
          }),
        },
      },
      select: { id: true, chunks: { orderBy: { index: "asc" }, select: { id: true } } },
    });
    const chunkIds = segmentation.chunks.map((c) => c.id);
    const run = await db.run.create({
      data: {
        kind: "annotate",
        status: "completed",
        datasetId: dataset.id,
        config: {
          datasetId: dataset.id,
          segmentationMethod: "self-segmented",
          policyEndpoint: "sim-policy",
          policy: POLICY,
          strategy: "adaptive",
          adaptiveBatch: 4,
          targetConfidence: 0.95,
          maxRollouts: 32,
          labelRules: [{ rule: "abs-q", evidence: "own-prefix" }, { rule: "rel-ratio", gamma: 0.7 }],
        },
      },
    });
    // Q_0..Q_2 sampled adaptively (4, 12 and 32 rollouts), Q_3 the finished solution's own (wrong) answer.
    await db.chunkValue.createMany({
      data: [
        { prefixLength: 0, qValue: 1, rolloutCount: 4, correctCount: 4 },
        { prefixLength: 1, qValue: 0.75, rolloutCount: 12, correctCount: 9 },
        { prefixLength: 2, qValue: 0.03125, rolloutCount: 32, correctCount: 1 },
        { prefixLength: 3, qValue: 0, rolloutCount: 0, correctCount: 0 },
      ].map((v) => ({ ...v, runId: run.id, segmentationId: segmentation.id })),
    });
    const label = (chunk: number, stored: typeof ABS_Q | typeof REL_RATIO, value: "Positive" | "Negative", confidence: number | null) =>
      ({ runId: run.id, chunkId: chunkIds[chunk]!, ...stored, label: value, confidence });
    await db.chunkLabel.createMany({
      data: [
        label(0, ABS_Q, "Positive", 0.99999),
        label(1, ABS_Q, "Positive", 0.6231),
        label(2, ABS_Q, "Negative", 1),
        label(0, REL_RATIO, "Positive", 0.8123456789),
        // Stored before confidences existed: null until relabelled.
        label(1, REL_RATIO, "Negative", null),
        label(2, REL_RATIO, "Negative", 0.9999),
      ],
    });
    const author = await db.user.create({ data: { id: "u-ann", name: "Ann", email: "ann@x.test", role: "annotator" } });
    const rated = await db.humanLabel.create({ data: { chunkId: chunkIds[1]!, authorId: author.id, rating: -1, source: "manual" } });

    const lines: ChunkLabelsLine[] = [];
    for await (const line of chunkLabelsLines(db, run.id)) lines.push(line);
    expect(lines).toHaveLength(3);
    // The line's keys, in order: nothing dropped.
    for (const line of lines) {
      expect(Object.keys(line)).toEqual([
        "run_id",
        "dataset_id",
        "solution_id",
        "external_id",
        "subset",
        "segmentation_id",
        "segmentation_method",
        "chunk_index",
        "text",
        "q_value",
        "q_previous",
        "rollouts",
        "correct",
        "labels",
        "monotonicity",
        "human_labels",
      ]);
      for (const l of line.labels) expect(Object.keys(l)).toEqual(["rule", "params", "name", "label", "confidence"]);
    }
    expect(lines[1]).toEqual({
      run_id: run.id,
      dataset_id: dataset.id,
      solution_id: solution.id,
      external_id: "sol-1",
      subset: "math",
      segmentation_id: segmentation.id,
      segmentation_method: "self-segmented",
      chunk_index: 1,
      text: "2 + 12 = 15.",
      q_value: 0.03125,
      q_previous: 0.75,
      rollouts: 32,
      correct: 1,
      labels: [
        { rule: "abs-q", params: { evidence: "own-prefix" }, name: "abs-q(evidence=own-prefix)", label: "Positive", confidence: 0.6231 },
        { rule: "rel-ratio", params: { gamma: 0.7 }, name: "rel-ratio(gamma=0.7)", label: "Negative", confidence: null },
      ],
      monotonicity: null,
      human_labels: [{ author_id: author.id, external_author: null, rating: -1, flagged: false, source: "manual", queue_id: null, created_at: rated.createdAt.toISOString() }],
    });
    expect(lines.map((l) => l.labels.map((x) => [x.rule, x.label, x.confidence]))).toEqual([
      [
        ["abs-q", "Positive", 0.99999],
        ["rel-ratio", "Positive", 0.8123456789],
      ],
      [
        ["abs-q", "Positive", 0.6231],
        ["rel-ratio", "Negative", null],
      ],
      [
        ["abs-q", "Negative", 1],
        ["rel-ratio", "Negative", 0.9999],
      ],
    ]);
    // JSON keeps a null confidence as null, not as a missing key.
    expect(JSON.parse(JSON.stringify(lines[1])).labels[1]).toHaveProperty("confidence", null);
    expect(lines.map((l) => [l.q_previous, l.q_value, l.rollouts])).toEqual([
      [1, 0.75, 12],
      [0.75, 0.03125, 32],
      [0.03125, 0, 0],
    ]);
  });
});
