import { majorityVerdict, sampleSolutionIds, stratifiedSample, type Verdict } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ABS_Q, callerFor, createAnnotationWorld, createUser, memberAnnotator, rateAll, REL_RATIO, type AnnotationWorld, type Caller } from "./annotation-fixtures";

describe("creating annotation queues", () => {
  let database: TestDatabase;
  let world: AnnotationWorld;
  let researcher: Caller;
  let researcherId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // Two judge samples per chunk: ties happen, and follow the judge run's tie policy.
    world = await createAnnotationWorld(database.db, { solutions: 20, seed: 11, judgeSamples: 2 });
    const rita = await createUser(database.db, "researcher", "Rita");
    researcherId = rita.id;
    researcher = callerFor(database.db, rita);
  });
  afterAll(async () => {
    await database?.drop();
  });

  const itemsOf = async (queueId: string) =>
    (await database.db.annotationItem.findMany({ where: { queueId }, orderBy: { position: "asc" }, select: { solutionId: true, position: true, segmentationId: true } })).map((item, i) => {
      expect(item.position).toBe(i);
      return item.solutionId;
    });
  const base = () => ({ name: "queue", datasetId: world.datasetId });

  it("filter: the solution list's solutions in list order, without solutions lacking the queue's segmentation", async () => {
    const { queueId, items } = await researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "filter", filter: { datasetId: world.datasetId, hasError: true }, limit: 3 } });
    const expected = world.solutions.filter((s) => s.sourceFirstErrorIndex >= 0).slice(0, 3);
    expect(items).toBe(3);
    expect(await itemsOf(queueId)).toEqual(expected.map((s) => s.id));
    const segmentations = await database.db.annotationItem.findMany({ where: { queueId }, select: { segmentationId: true, solutionId: true } });
    for (const item of segmentations) expect(item.segmentationId).toBe(world.solutions.find((s) => s.id === item.solutionId)!.segmentationId);

    // Sorted by the run's lowest Q: the unsegmented solution (lowest Q of all) is left out.
    const byQ = await researcher.annotationQueue.createQueue({
      ...base(),
      annotateRunId: world.annotateRunId,
      selection: { kind: "filter", filter: { datasetId: world.datasetId, annotateRunId: world.annotateRunId, sort: "qMin", order: "asc" }, limit: 100 },
    });
    const stats = await database.db.solutionRunStat.findMany({ where: { runId: world.annotateRunId, solutionId: { in: world.solutions.map((s) => s.id) } } });
    const expectedByQ = stats.sort((a, b) => a.qMin! - b.qMin! || (a.solutionId < b.solutionId ? -1 : 1)).map((s) => s.solutionId);
    expect(await itemsOf(byQ.queueId)).toEqual(expectedByQ);
    expect(expectedByQ).not.toContain(world.unsegmentedId);

    // The list page's filter leaves the dataset out: it is the queue's.
    const blankLine = await researcher.annotationQueue.createQueue({ ...base(), segmentationMethod: "blank-line", selection: { kind: "filter", filter: {} } });
    expect(await itemsOf(blankLine.queueId)).toEqual([world.unsegmentedId]);
  });

  it("disagreements: solutions where some chunk's judge majority differs from the Monte-Carlo label of the queue's rule", async () => {
    const { db } = database;
    async function expectedFor(rule: typeof ABS_Q | typeof REL_RATIO) {
      const out: string[] = [];
      for (const solution of world.solutions) {
        const labels = await db.chunkLabel.findMany({ where: { runId: world.annotateRunId, ...rule, chunkId: { in: solution.chunkIds } } });
        const samples = await db.judgeSample.findMany({ where: { runId: world.judgeRunId, chunkId: { in: solution.chunkIds } } });
        const differs = solution.chunkIds.some((chunkId) => {
          const verdict = majorityVerdict(samples.filter((s) => s.chunkId === chunkId).map((s) => s.verdict as Verdict), "Negative").verdict;
          return verdict !== "unparseable" && verdict !== labels.find((l) => l.chunkId === chunkId)!.label;
        });
        if (differs) out.push(solution.id);
      }
      return out;
    }
    const runs = { annotateRunId: world.annotateRunId, judgeRunId: world.judgeRunId };
    const byDefault = await researcher.annotationQueue.createQueue({ ...base(), ...runs, selection: { kind: "disagreements" } });
    const expectedAbsQ = await expectedFor(ABS_Q);
    expect(expectedAbsQ.length).toBeGreaterThan(0);
    expect(expectedAbsQ.length).toBeLessThan(world.solutions.length);
    expect(await itemsOf(byDefault.queueId)).toEqual(expectedAbsQ);
    expect((await researcher.annotationQueue.queue({ queueId: byDefault.queueId })).labelRule).toEqual(ABS_Q);

    const relRatio = await researcher.annotationQueue.createQueue({ ...base(), ...runs, labelRule: REL_RATIO, selection: { kind: "disagreements", limit: 4 } });
    expect(await itemsOf(relRatio.queueId)).toEqual((await expectedFor(REL_RATIO)).slice(0, 4));

    await expect(researcher.annotationQueue.createQueue({ ...base(), annotateRunId: world.annotateRunId, selection: { kind: "disagreements" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/needs annotateRunId and judgeRunId/),
    });
    await expect(researcher.annotationQueue.createQueue({ ...base(), ...runs, labelRule: { rule: "rel_effective", paramsKey: "{}" }, selection: { kind: "disagreements" } })).rejects.toThrow(/stored no rel_effective labels/);
  });

  it("random: a seeded sample of the solutions the run covered, reproducible from its seed", async () => {
    const covered = (await database.db.solutionRunStat.findMany({ where: { runId: world.annotateRunId }, select: { solutionId: true } }))
      .map((s) => s.solutionId)
      .filter((id) => id !== world.unsegmentedId);
    const first = await researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "random", runId: world.annotateRunId, size: 6, seed: 3 } });
    const drawn = await itemsOf(first.queueId);
    expect(drawn).toEqual(sampleSolutionIds(covered, 6, 3));
    expect(new Set(drawn).size).toBe(6);
    const again = await researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "random", runId: world.annotateRunId, size: 6, seed: 3 } });
    expect(await itemsOf(again.queueId)).toEqual(drawn);
    const other = await researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "random", runId: world.annotateRunId, size: 6, seed: 4 } });
    expect(await itemsOf(other.queueId)).not.toEqual(drawn);
    const all = await researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "random", runId: world.annotateRunId, size: 500, seed: 1 } });
    expect((await itemsOf(all.queueId)).sort()).toEqual([...covered].sort());
    // The selection run's segmentation is the default one.
    expect((await researcher.annotationQueue.queue({ queueId: first.queueId })).segmentationMethod).toBe("self-segmented");
  });

  it("stratified: perStratum solutions the run labelled with a Negative chunk and as many without, interleaved by the seed", async () => {
    const stats = await database.db.solutionRunStat.findMany({ where: { runId: world.judgeRunId }, select: { solutionId: true, firstNegative: true } });
    const negatives = stats.filter((s) => s.firstNegative >= 0).map((s) => s.solutionId);
    const positives = stats.filter((s) => s.firstNegative < 0).map((s) => s.solutionId);
    expect(negatives.length).toBeGreaterThanOrEqual(3);
    expect(positives.length).toBeGreaterThanOrEqual(1);
    const { queueId, items } = await researcher.annotationQueue.createQueue({ ...base(), judgeRunId: world.judgeRunId, selection: { kind: "stratified", runId: world.judgeRunId, perStratum: 3, seed: 9 } });
    const drawn = await itemsOf(queueId);
    expect(items).toBe(3 + Math.min(3, positives.length));
    expect(drawn.filter((id) => negatives.includes(id))).toHaveLength(3);
    expect(drawn.filter((id) => positives.includes(id))).toHaveLength(Math.min(3, positives.length));
    const candidates = stats.map((s) => ({ id: s.solutionId, stratum: s.firstNegative >= 0 ? "negative" : "positive" }));
    expect(drawn).toEqual(stratifiedSample(candidates, 3, 9).ids);
  });

  it("least-confident: the N solutions with the lowest label confidence under the rule, ties by id, none without a confidence; the queue audits that run and rule", async () => {
    const { db } = database;
    // Each solution's lowest confidence per rule, as an annotate run stores it: Rel-Ratio with ties and nulls,
    // Abs-Q in the opposite order; the unsegmented solution is the least confident of all but cannot be shown.
    const relRatio = world.solutions.map((s, i) => ({ solutionId: s.id, lowestConfidence: i % 5 === 4 ? null : [0.9, 0.3, 0.61, 0.3, 0.45, 0.99][i % 6]! - i / 1000 }));
    relRatio[7]!.lowestConfidence = relRatio[1]!.lowestConfidence;
    await db.solutionLabelConfidence.createMany({
      data: [
        ...relRatio.map((row) => ({ runId: world.annotateRunId, ...REL_RATIO, ...row })),
        ...world.solutions.map((s, i) => ({ runId: world.annotateRunId, ...ABS_Q, solutionId: s.id, lowestConfidence: 1 - i / 100 })),
        { runId: world.annotateRunId, ...REL_RATIO, solutionId: world.unsegmentedId, lowestConfidence: 0.01 },
      ],
    });
    const leastConfident = (rows: typeof relRatio, n: number) =>
      rows
        .filter((r) => r.lowestConfidence !== null)
        .sort((a, b) => a.lowestConfidence! - b.lowestConfidence! || (a.solutionId < b.solutionId ? -1 : 1))
        .slice(0, n)
        .map((r) => r.solutionId);

    const selection = { kind: "least-confident", annotateRunId: world.annotateRunId, rule: REL_RATIO, count: 5 } as const;
    const { queueId, items } = await researcher.annotationQueue.createQueue({ ...base(), selection });
    expect(items).toBe(5);
    const drawn = await itemsOf(queueId);
    expect(drawn).toEqual(leastConfident(relRatio, 5));
    expect(drawn).not.toContain(world.unsegmentedId);
    // The tie (solutions 1 and 7 share the value; 3 is just below) is broken by id, and both are in.
    expect(drawn).toEqual(expect.arrayContaining([world.solutions[1]!.id, world.solutions[7]!.id]));
    const queue = await researcher.annotationQueue.queue({ queueId });
    expect(queue).toMatchObject({ annotateRunId: world.annotateRunId, labelRule: REL_RATIO, segmentationMethod: "self-segmented", selection });

    // Under Abs-Q the order is another; more than there are gives every solution with a confidence.
    const absQ = await researcher.annotationQueue.createQueue({ ...base(), annotateRunId: world.annotateRunId, selection: { ...selection, rule: ABS_Q, count: 3 } });
    expect(await itemsOf(absQ.queueId)).toEqual(world.solutions.slice(-3).reverse().map((s) => s.id));
    const every = await researcher.annotationQueue.createQueue({ ...base(), selection: { ...selection, count: 500 } });
    expect(await itemsOf(every.queueId)).toEqual(leastConfident(relRatio, 500));
    expect((await itemsOf(every.queueId)).length).toBe(world.solutions.length - relRatio.filter((r) => r.lowestConfidence === null).length);

    // The list's confidence filter as a queue's selection: the same solutions, in list order.
    const filtered = await researcher.annotationQueue.createQueue({
      ...base(),
      annotateRunId: world.annotateRunId,
      selection: { kind: "filter", filter: { annotateRunId: world.annotateRunId, confidenceRule: REL_RATIO, maxConfidence: 0.5, sort: "lowestConfidence" } },
    });
    expect(await itemsOf(filtered.queueId)).toEqual(leastConfident(relRatio.filter((r) => r.lowestConfidence !== null && r.lowestConfidence <= 0.5), 500));

    // The queue's run and rule are the selection's: another is refused, and so is a run of another kind or a rule it did not store.
    await expect(researcher.annotationQueue.createQueue({ ...base(), annotateRunId: "other-run", selection })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/annotateRunId must be the least-confident selection's annotate run/),
    });
    await expect(researcher.annotationQueue.createQueue({ ...base(), labelRule: ABS_Q, selection })).rejects.toThrow(/labelRule must be the least-confident selection's rule/);
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { ...selection, annotateRunId: world.judgeRunId } })).rejects.toThrow(/is a judge run; expected annotate/);
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { ...selection, rule: { rule: "rel_effective", paramsKey: "{}" } } })).rejects.toThrow(/stored no rel_effective labels/);
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { ...selection, count: 0 } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("a benchmark run can be the audited judge and the sampled run: its predictions are what it covered, its tie policy decides ties", async () => {
    const { db } = database;
    const benchmark = await db.run.create({
      data: { kind: "benchmark", status: "completed", datasetId: world.datasetId, config: { datasetId: world.datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", tiePolicy: "Positive" } },
    });
    const predicted = world.solutions.slice(0, 4);
    await db.solutionPrediction.createMany({
      data: predicted.map((s, i) => ({ runId: benchmark.id, solutionId: s.id, predictedFirstError: [-1, -1, 1, null][i] ?? null })),
    });
    const tied = predicted[0]!.chunkIds[0]!;
    await db.judgeSample.createMany({
      data: (["Positive", "Negative"] as const).map((verdict, sampleIndex) => ({ runId: benchmark.id, chunkId: tied, sampleIndex, promptTemplateId: "test", rationale: "", verdict })),
    });
    const stratified = await researcher.annotationQueue.createQueue({ ...base(), judgeRunId: benchmark.id, selection: { kind: "stratified", runId: benchmark.id, perStratum: 5, seed: 2 } });
    const drawn = await itemsOf(stratified.queueId);
    expect(drawn.sort()).toEqual(predicted.slice(0, 3).map((s) => s.id).sort());

    const queue = await researcher.annotationQueue.createQueue({
      ...base(),
      blind: false,
      blindOffReason: "the verdicts are read before submitting",
      judgeRunId: benchmark.id,
      selection: { kind: "filter", filter: {}, limit: 1 },
    });
    const annotator = await memberAnnotator(db, researcher, "Bench", [queue.queueId]);
    const view = (await annotator.annotationQueue.next({ queueId: queue.queueId }))!;
    expect(view.chunks[0]).toMatchObject({ id: tied, judgeVotes: { Positive: 1, Negative: 1, unparseable: 0 }, judgeVerdict: "Positive", mcLabel: null });
    expect(view.chunks[1]).toMatchObject({ judgeVotes: null, judgeVerdict: null });
  });

  it("writes the queue, its items and an audit row with the settings; refuses empty selections and foreign runs", async () => {
    const { queueId, items } = await researcher.annotationQueue.createQueue({
      name: "audited",
      instructions: "Rate every step.",
      datasetId: world.datasetId,
      annotatorsPerItem: 2,
      blind: true,
      annotateRunId: world.annotateRunId,
      selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 2 },
    });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_queue.created", entityId: queueId } });
    expect(audit.actorId).toBe(researcherId);
    expect(audit.after).toMatchObject({
      name: "audited",
      instructions: "Rate every step.",
      scheme: "rating",
      annotatorsPerItem: 2,
      leaseSeconds: 900,
      blind: true,
      segmentationMethod: "self-segmented",
      annotateRunId: world.annotateRunId,
      labelRule: ABS_Q,
      judgeRunId: null,
      selection: { kind: "filter", limit: 2 },
      items: 2,
    });
    expect(items).toBe(2);

    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "filter", filter: { datasetId: world.datasetId, search: "zzqqxx" } } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/matched no solution/),
    });
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "filter", filter: { datasetId: "elsewhere" } } })).rejects.toThrow(/must be the queue's dataset/);
    await expect(researcher.annotationQueue.createQueue({ ...base(), annotateRunId: world.judgeRunId, selection: { kind: "filter", filter: { datasetId: world.datasetId } } })).rejects.toThrow(/is a judge run; expected annotate/);
    const other = await createAnnotationWorld(database.db, { solutions: 1, name: "other" });
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "random", runId: other.annotateRunId, size: 2 } })).rejects.toThrow(/belongs to another dataset/);
    await expect(researcher.annotationQueue.createQueue({ ...base(), selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 5001 } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await database.db.annotationQueue.count({ where: { name: "queue", datasetId: other.datasetId } })).toBe(0);
  });

  it("lists queues with their progress and the caller's share; researchers see every annotator and the members, an annotator only themselves", async () => {
    const ann = await createUser(database.db, "annotator", "Progress-a");
    const ben = await createUser(database.db, "annotator", "Progress-b");
    const { queueId, members } = await researcher.annotationQueue.createQueue({
      name: "progress",
      datasetId: world.datasetId,
      annotatorsPerItem: 2,
      selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 3 },
      annotatorIds: [ann.id, ben.id],
    });
    expect(members).toBe(2);
    const [a, b] = [callerFor(database.db, ann), callerFor(database.db, ben)];
    for (const caller of [a, b]) {
      const view = (await caller.annotationQueue.next({ queueId }))!;
      await caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1) });
    }
    // Each took a different free item; now each takes the other's, and Ann stops halfway.
    const second = (await b.annotationQueue.next({ queueId }))!;
    await b.annotationQueue.submit({ assignmentId: second.assignmentId, labels: rateAll(second.chunks, () => 0) });
    await a.annotationQueue.next({ queueId });

    const listed = (await a.annotationQueue.listQueues({ datasetId: world.datasetId })).find((q) => q.id === queueId)!;
    expect(listed).toMatchObject({ name: "progress", datasetId: world.datasetId, datasetName: null, scheme: "rating", annotatorsPerItem: 2, blind: true, archivedAt: null, items: 3, completedItems: 1, adjudicatedItems: 0, mySubmitted: 1 });
    expect((await b.annotationQueue.listQueues({})).find((q) => q.id === queueId)!.mySubmitted).toBe(2);
    expect(await a.annotationQueue.listQueues({ datasetId: "none" })).toEqual([]);

    const queue = await researcher.annotationQueue.queue({ queueId });
    expect(queue.progress).toMatchObject({ items: 3, completedItems: 1, submissions: 3, activeLeases: 1, adjudicatedItems: 0 });
    expect(queue.progress.annotators).toEqual([
      { userId: ben.id, name: ben.name, email: ben.email, submitted: 2, skipped: 0, leased: 0 },
      { userId: ann.id, name: ann.name, email: ann.email, submitted: 1, skipped: 0, leased: 1 },
    ]);
    expect(queue.members.map((m) => m.userId)).toEqual([ann.id, ben.id]);
    expect(queue).toMatchObject({ instructions: "", leaseSeconds: 900, selection: { kind: "filter", limit: 3 }, annotateRunId: null, judgeRunId: null, labelRule: null, segmentationMethod: "self-segmented" });

    const asAnn = await a.annotationQueue.queue({ queueId });
    expect(asAnn.progress.annotators).toEqual([{ userId: ann.id, name: ann.name, email: ann.email, submitted: 1, skipped: 0, leased: 1 }]);
    expect(asAnn).toMatchObject({ members: [], selection: null, annotateRunId: null, judgeRunId: null, createdById: null, datasetName: null });
    expect((await researcher.annotationQueue.listQueues({})).find((q) => q.id === queueId)!.datasetName).toBe("annotation world");
  });
});
