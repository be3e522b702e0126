import { majorityVerdict, type Verdict } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { humanLabelExportLines, type AssignmentView, type HumanLabelExportLine } from "../src";
import { ABS_Q, callerFor, createAnnotationWorld, createUser, rateAll, type AnnotationWorld, type Caller } from "./annotation-fixtures";

describe("annotation labels: blind mode, submit, undo, agreement, adjudication, export", () => {
  let database: TestDatabase;
  let world: AnnotationWorld;
  let researcher: Caller;
  let researcherId: string;
  let viewer: Caller;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    world = await createAnnotationWorld(database.db, { solutions: 8, seed: 5 });
    const rita = await createUser(database.db, "researcher", "Rita");
    researcherId = rita.id;
    researcher = callerFor(database.db, rita);
    viewer = callerFor(database.db, await createUser(database.db, "viewer", "Vera"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  // Annotators work only their member queues: every annotator here is a member of every queue, whichever came first.
  const queueIds: string[] = [];
  const annotatorIds: string[] = [];
  const annotator = async (name: string) => {
    const user = await createUser(database.db, "annotator", `${name}${++counter}`);
    annotatorIds.push(user.id);
    for (const queueId of queueIds) await researcher.annotationQueue.addMembers({ queueId, userIds: [user.id] });
    return { user, caller: callerFor(database.db, user) };
  };
  const queueOf = async (settings: { items?: number; blind?: boolean; annotatorsPerItem?: number; scheme?: "rating" | "first_error"; withRuns?: boolean } = {}) => {
    const { queueId } = await researcher.annotationQueue.createQueue({
      name: `labels ${++counter}`,
      datasetId: world.datasetId,
      scheme: settings.scheme,
      blind: settings.blind,
      ...(settings.blind === false ? { blindOffReason: "the test reads the model's evidence before submitting" } : {}),
      annotatorsPerItem: settings.annotatorsPerItem,
      ...(settings.withRuns === false ? {} : { annotateRunId: world.annotateRunId, judgeRunId: world.judgeRunId }),
      selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: settings.items ?? 1 },
      annotatorIds,
    });
    queueIds.push(queueId);
    return queueId;
  };

  /** The model evidence of a view's chunks, read independently from the runs' rows. */
  async function expectedEvidence(view: AssignmentView) {
    const { db } = database;
    const chunkIds = view.chunks.map((c) => c.id);
    const labels = await db.chunkLabel.findMany({ where: { runId: world.annotateRunId, ...ABS_Q, chunkId: { in: chunkIds } } });
    const segmentation = await db.chunk.findFirstOrThrow({ where: { id: chunkIds[0]! }, select: { segmentationId: true } });
    const values = await db.chunkValue.findMany({ where: { runId: world.annotateRunId, segmentationId: segmentation.segmentationId } });
    const samples = await db.judgeSample.findMany({ where: { runId: world.judgeRunId, chunkId: { in: chunkIds } } });
    return view.chunks.map((chunk) => {
      const verdicts = samples.filter((s) => s.chunkId === chunk.id).map((s) => s.verdict as Verdict);
      return {
        id: chunk.id,
        mcLabel: labels.find((l) => l.chunkId === chunk.id)!.label,
        qValue: values.find((v) => v.prefixLength === chunk.index + 1)!.qValue,
        judgeVotes: { Positive: verdicts.filter((v) => v === "Positive").length, Negative: verdicts.filter((v) => v === "Negative").length, unparseable: verdicts.filter((v) => v === "unparseable").length },
        judgeVerdict: majorityVerdict(verdicts, "Negative").verdict,
      };
    });
  }
  const evidenceOf = (view: AssignmentView) => view.chunks.map(({ id, mcLabel, qValue, judgeVotes, judgeVerdict }) => ({ id, mcLabel, qValue, judgeVotes, judgeVerdict }));

  it("a blind queue sends no model label, Q-value or verdict until the annotator submits, then reveals them", async () => {
    const queueId = await queueOf({ blind: true });
    const { caller } = await annotator("Blind");
    const view = (await caller.annotationQueue.next({ queueId }))!;
    expect(view.modelHidden).toBe(true);
    for (const chunk of view.chunks) expect([chunk.mcLabel, chunk.qValue, chunk.judgeVotes, chunk.judgeVerdict]).toEqual([null, null, null, null]);
    expect(view.mine).toBeNull();
    expect(view.queue).toMatchObject({ blind: true, scheme: "rating", annotatorsPerItem: 1 });
    expect(view.solution).toMatchObject({ id: world.solutions[0]!.id, externalId: world.solutions[0]!.externalId, problemText: "What is 2 + 3 * 4?" });
    expect((await caller.annotationQueue.assignment({ assignmentId: view.assignmentId })).modelHidden).toBe(true);

    const { assignment } = await caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1) });
    expect(assignment.modelHidden).toBe(false);
    expect(assignment.status).toBe("submitted");
    expect(evidenceOf(assignment)).toEqual(await expectedEvidence(assignment));
    expect(assignment.mine!.labels.map((l) => l.rating)).toEqual(view.chunks.map(() => 1));
  });

  it("an open queue shows the model's evidence from the start", async () => {
    const queueId = await queueOf({ blind: false });
    const { caller } = await annotator("Open");
    const view = (await caller.annotationQueue.next({ queueId }))!;
    expect(view.modelHidden).toBe(false);
    expect(evidenceOf(view)).toEqual(await expectedEvidence(view));
  });

  it("new queues are blind unless told otherwise; a queue made without blind review needs a reason, which the audit row and the queue's notice carry", async () => {
    const byDefault = await queueOf();
    expect((await researcher.annotationQueue.queue({ queueId: byDefault })).blindOff).toBeNull();
    expect(await database.db.annotationQueue.findUniqueOrThrow({ where: { id: byDefault }, select: { blind: true } })).toEqual({ blind: true });
    // The column's own default is blind too, for rows written without the API.
    const raw = await database.db.annotationQueue.create({ data: { name: "raw", datasetId: world.datasetId, segmentationMethod: "self-segmented", selection: {} }, select: { blind: true } });
    expect(raw.blind).toBe(true);

    const open = (reason?: string) =>
      researcher.annotationQueue.createQueue({
        name: `open ${++counter}`,
        datasetId: world.datasetId,
        blind: false,
        ...(reason === undefined ? {} : { blindOffReason: reason }),
        selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: 1 },
      });
    const before = await database.db.annotationQueue.count();
    for (const reason of [undefined, "", "   "]) {
      await expect(open(reason)).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/field "blindOffReason": turning blind review off needs a reason/) });
    }
    await expect(open("x".repeat(501))).rejects.toThrow(/field "blindOffReason": at most 500 characters \(got 501\)/);
    expect(await database.db.annotationQueue.count()).toBe(before);

    const { queueId } = await open("  calibration round: annotators learn what the judge looks for  ");
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_queue.created", entityId: queueId } });
    expect(audit.actorId).toBe(researcherId);
    expect(audit.after).toMatchObject({ blind: false, blindOffReason: "calibration round: annotators learn what the judge looks for" });
    expect((await researcher.annotationQueue.queue({ queueId })).blindOff).toEqual({ byName: "Rita", at: audit.createdAt, reason: "calibration round: annotators learn what the judge looks for" });
  });

  it("turning blind off is refused without a reason and audited with who, when and why; turning it back on needs none", async () => {
    const queueId = await queueOf();
    for (const reason of [undefined, " "]) {
      await expect(researcher.annotationQueue.updateQueue({ queueId, blind: false, ...(reason === undefined ? {} : { blindOffReason: reason }) })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/field "blindOffReason": turning blind review off needs a reason/),
      });
    }
    // Refused as a whole: nothing else in the same change was saved, and nothing was audited.
    await expect(researcher.annotationQueue.updateQueue({ queueId, blind: false, name: "half-saved" })).rejects.toThrow(/blindOffReason/);
    expect(await database.db.annotationQueue.findUniqueOrThrow({ where: { id: queueId }, select: { blind: true, name: true } })).toMatchObject({ blind: true, name: expect.stringMatching(/^labels /) });
    expect(await database.db.auditLog.count({ where: { action: "annotation_queue.updated", entityId: queueId } })).toBe(0);

    const turned = await researcher.annotationQueue.updateQueue({ queueId, blind: false, blindOffReason: "pilot: compare anchored and blind ratings" });
    expect(turned).toMatchObject({ blind: false, changed: ["blind"] });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_queue.updated", entityId: queueId } });
    expect(audit).toMatchObject({ actorId: researcherId, before: { blind: true }, after: { blind: false, blindOffReason: "pilot: compare anchored and blind ratings" } });
    expect((await researcher.annotationQueue.queue({ queueId })).blindOff).toEqual({ byName: "Rita", at: audit.createdAt, reason: "pilot: compare anchored and blind ratings" });
    // An annotator reads why, not who.
    const { caller: ann } = await annotator("Notice");
    expect((await ann.annotationQueue.queue({ queueId })).blindOff).toEqual({ byName: null, at: audit.createdAt, reason: "pilot: compare anchored and blind ratings" });

    // Back on: no reason asked, and the notice is gone.
    await researcher.annotationQueue.updateQueue({ queueId, blind: true });
    expect((await researcher.annotationQueue.queue({ queueId })).blindOff).toBeNull();

    // A queue left open before reasons were asked for (its creation audited blind: false, with no reason): the notice, without a reason.
    const legacy = await queueOf();
    const created = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_queue.created", entityId: legacy } });
    await database.db.auditLog.update({ where: { id: created.id }, data: { after: { ...(created.after as object), blind: false } } });
    await database.db.annotationQueue.update({ where: { id: legacy }, data: { blind: false } });
    expect((await researcher.annotationQueue.queue({ queueId: legacy })).blindOff).toEqual({ byName: "Rita", at: created.createdAt, reason: null });
  });

  it("a queue without runs shows chunks with empty model fields", async () => {
    const queueId = await queueOf({ withRuns: false });
    const { caller } = await annotator("NoRuns");
    const view = (await caller.annotationQueue.next({ queueId }))!;
    expect(view.chunks.every((c) => c.mcLabel === null && c.judgeVotes === null)).toBe(true);
    expect(view.chunks.map((c) => c.index)).toEqual(view.chunks.map((_, i) => i));
  });

  it("submit refuses a rating gap and names the chunk; the first-error scheme needs its pick", async () => {
    const queueId = await queueOf({ items: 3 });
    const { caller } = await annotator("Gaps");
    const view = (await caller.annotationQueue.next({ queueId }))!;
    const labels = rateAll(view.chunks, () => 1).map((l, i) => (i === 1 ? { ...l, rating: null } : l));
    await expect(caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/chunk 1 has no rating/) });
    await expect(caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: labels.slice(0, 1) })).rejects.toThrow(/chunks? 1.* no rating/);
    await expect(caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: [{ chunkId: "elsewhere", rating: 1 }] })).rejects.toThrow(/not a chunk of this solution/);
    await expect(caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1).map((l) => ({ ...l, note: "x".repeat(2001) })) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await database.db.humanLabel.count({ where: { assignmentId: view.assignmentId } })).toBe(0);
    const { assignment } = await caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, (i) => (i === 1 ? -1 : 0)) });
    expect(assignment.mine!.firstErrorIndex).toBe(1);
    await expect(caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1) })).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/already submitted/) });

    const firstErrorQueue = await queueOf({ scheme: "first_error" });
    const pick = (await caller.annotationQueue.next({ queueId: firstErrorQueue }))!;
    await expect(caller.annotationQueue.submit({ assignmentId: pick.assignmentId, labels: [] })).rejects.toThrow(/needs firstErrorIndex/);
    await expect(caller.annotationQueue.submit({ assignmentId: pick.assignmentId, labels: [], firstErrorIndex: pick.chunks.length })).rejects.toThrow(/firstErrorIndex must be -1/);
    const picked = await caller.annotationQueue.submit({ assignmentId: pick.assignmentId, labels: [{ chunkId: pick.chunks[0]!.id, rating: null, flagged: true, note: "odd start" }], firstErrorIndex: 1 });
    expect(picked.assignment.mine).toEqual({
      firstErrorIndex: 1,
      labels: pick.chunks.map((chunk, i) => ({ chunkId: chunk.id, rating: i === 0 ? 1 : i === 1 ? -1 : null, flagged: i === 0, note: i === 0 ? "odd start" : null })),
    });
  });

  it("undo reopens my last submission with my labels; resubmitting appends rows, history keeps both and agreement uses the latest", async () => {
    const queueId = await queueOf({ items: 2, annotatorsPerItem: 2 });
    const ann = await annotator("Ann");
    const ben = await annotator("Ben");
    const a1 = (await ann.caller.annotationQueue.next({ queueId }))!;
    const b1 = (await ben.caller.annotationQueue.next({ queueId }))!;
    expect(b1.itemId).not.toBe(a1.itemId);
    await ann.caller.annotationQueue.submit({ assignmentId: a1.assignmentId, labels: rateAll(a1.chunks, () => 1) });
    await ben.caller.annotationQueue.submit({ assignmentId: b1.assignmentId, labels: rateAll(b1.chunks, () => 1) });
    // Each then takes the other's item: both items end up with two ratings.
    const a2 = (await ann.caller.annotationQueue.next({ queueId }))!;
    const b2 = (await ben.caller.annotationQueue.next({ queueId }))!;
    expect([a2.itemId, b2.itemId]).toEqual([b1.itemId, a1.itemId]);
    expect(b2.mine).toBeNull(); // Ann's labels on this item are never shown to Ben.
    await ben.caller.annotationQueue.submit({ assignmentId: b2.assignmentId, labels: rateAll(b2.chunks, (i) => (i === 0 ? -1 : 1)) });

    const disputed = await viewer.annotationQueue.agreement({ queueId });
    expect(disputed.unit).toBe("chunk");
    expect(disputed.disagreements.map((d) => [d.itemId, d.chunkIndex])).toEqual([[a1.itemId, 0]]);
    expect(disputed.disagreements[0]!.ratings.map((r) => [r.name, r.rating])).toEqual([
      [ann.user.name, 1],
      [ben.user.name, -1],
    ]);

    // Ann still holds item 2; undo reopens item 1 and releases that lease.
    const reopened = (await ann.caller.annotationQueue.undo({ queueId }))!;
    expect(reopened.assignmentId).toBe(a1.assignmentId);
    expect(reopened.status).toBe("leased");
    expect(reopened.mine!.labels.map((l) => l.rating)).toEqual(a1.chunks.map(() => 1));
    expect((await ann.caller.annotationQueue.next({ queueId }))!.assignmentId).toBe(a1.assignmentId);
    const whileUndone = await viewer.annotationQueue.agreement({ queueId });
    expect(whileUndone.disagreements).toEqual([]);
    expect(whileUndone.cohen).toEqual([]); // Ann has no submitted work while her only submission is undone.

    await ann.caller.annotationQueue.submit({ assignmentId: a1.assignmentId, labels: rateAll(a1.chunks, (i) => (i === 0 ? -1 : 1)) });
    const history = await researcher.annotationQueue.itemHistory({ itemId: a1.itemId });
    const annRows = history.labels.filter((l) => l.authorId === ann.user.id);
    expect(annRows).toHaveLength(2 * a1.chunks.length);
    expect(annRows.map((r) => r.rating)).toEqual([...a1.chunks.map(() => 1), ...a1.chunks.map((_, i) => (i === 0 ? -1 : 1))]);
    const times = history.labels.map((l) => l.createdAt.getTime());
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(history.final.map((f) => f.status)).toEqual(a1.chunks.map(() => "agreed"));
    // Ordered by lease time: the undo leased Ann's assignment again after Ben's.
    expect(history.assignments.map((a) => [a.name, a.status])).toEqual([
      [ben.user.name, "submitted"],
      [ann.user.name, "submitted"],
    ]);
    expect(history.assignments.map((a) => [a.name, a.status]).sort()).toEqual([
      [ann.user.name, "submitted"],
      [ben.user.name, "submitted"],
    ]);

    const agreed = await viewer.annotationQueue.agreement({ queueId });
    expect(agreed.disagreements).toEqual([]);
    expect(agreed.cohen).toHaveLength(1);
    expect(agreed.cohen[0]).toMatchObject({ items: a1.chunks.length, kappa: 1 });

    // The lease undo released is Ann's own expired row: she gets item 2 back on the same assignment.
    const again = (await ann.caller.annotationQueue.next({ queueId }))!;
    expect(again.assignmentId).toBe(a2.assignmentId);
    await ann.caller.annotationQueue.submit({ assignmentId: again.assignmentId, labels: rateAll(again.chunks, () => 1) });
    const full = await viewer.annotationQueue.agreement({ queueId });
    expect(full.cohen[0]).toMatchObject({ items: a1.chunks.length + b1.chunks.length, kappa: 1, observedAgreement: 1 });
    expect(full.fleiss).toMatchObject({ items: a1.chunks.length + b1.chunks.length, raters: 2, kappa: 1 });
    expect(await ann.caller.annotationQueue.undo({ queueId: (await queueOf()) })).toBeNull();
  });

  it("adjudication writes final labels over a dispute, marks the item and audits the final labels before and after", async () => {
    const queueId = await queueOf({ items: 1, annotatorsPerItem: 2 });
    const ann = await annotator("Adj-a");
    const ben = await annotator("Adj-b");
    const va = (await ann.caller.annotationQueue.next({ queueId }))!;
    const vb = (await ben.caller.annotationQueue.next({ queueId }))!;
    await ann.caller.annotationQueue.submit({ assignmentId: va.assignmentId, labels: rateAll(va.chunks, () => 1) });
    await ben.caller.annotationQueue.submit({ assignmentId: vb.assignmentId, labels: rateAll(vb.chunks, (i) => (i === 1 ? -1 : 1)) });
    const before = await researcher.annotationQueue.itemHistory({ itemId: va.itemId });
    expect(before.final.map((f) => f.status)).toEqual(va.chunks.map((_, i) => (i === 1 ? "disputed" : "agreed")));

    await expect(researcher.annotationQueue.adjudicate({ itemId: va.itemId, labels: [{ chunkId: va.chunks[0]!.id, rating: 1 }] })).rejects.toThrow(/chunks? 1.* no rating/);
    const result = await researcher.annotationQueue.adjudicate({
      itemId: va.itemId,
      labels: va.chunks.map((c) => ({ chunkId: c.id, rating: c.index === 1 ? (0 as const) : (1 as const), note: c.index === 1 ? "unhelpful, not wrong" : undefined })),
    });
    expect(result.final.map((f) => f.status)).toEqual(va.chunks.map(() => "adjudicated"));
    expect(result.firstErrorIndex).toBe(-1);

    const after = await researcher.annotationQueue.itemHistory({ itemId: va.itemId });
    expect(after.item.adjudicatedAt).toEqual(result.adjudicatedAt);
    expect(after.final).toEqual(va.chunks.map((c) => ({ chunkId: c.id, chunkIndex: c.index, status: "adjudicated", rating: c.index === 1 ? 0 : 1 })));
    const adjudicationRows = after.labels.filter((l) => l.source === "adjudication");
    expect(adjudicationRows.map((l) => [l.chunkIndex, l.authorId, l.rating, l.note])).toEqual(
      va.chunks.map((c) => [c.index, researcherId, c.index === 1 ? 0 : 1, c.index === 1 ? "unhelpful, not wrong" : null]),
    );
    expect(after.labels.filter((l) => l.source === "annotation")).toHaveLength(2 * va.chunks.length);

    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_item.adjudicated", entityId: va.itemId } });
    expect(audit.actorId).toBe(researcherId);
    const auditBefore = audit.before as { adjudicatedAt: string | null; final: Array<{ chunkIndex: number; status: string }> };
    const auditAfter = audit.after as { final: Array<{ chunkIndex: number; status: string; rating: number }> };
    expect(auditBefore.adjudicatedAt).toBeNull();
    expect(auditBefore.final.map((f) => f.status)).toEqual(before.final.map((f) => f.status));
    expect(auditAfter.final.map((f) => [f.status, f.rating])).toEqual(va.chunks.map((c) => ["adjudicated", c.index === 1 ? 0 : 1]));

    // Agreement is between annotators: the adjudication does not change it, only marks the disagreement.
    const agreement = await viewer.annotationQueue.agreement({ queueId });
    expect(agreement.disagreements).toEqual([expect.objectContaining({ itemId: va.itemId, chunkIndex: 1, adjudicated: true })]);
  });

  it("an item's history gives the adjudicator the model's side: every MC rule with its confidence, the Q-value, and the latest finished judge run per endpoint", async () => {
    const { db } = database;
    const queueId = await queueOf({ items: 1, annotatorsPerItem: 2 });
    const ann = await annotator("Ctx-a");
    const ben = await annotator("Ctx-b");
    const va = (await ann.caller.annotationQueue.next({ queueId }))!;
    const vb = (await ben.caller.annotationQueue.next({ queueId }))!;
    await ann.caller.annotationQueue.submit({ assignmentId: va.assignmentId, labels: rateAll(va.chunks, () => 1) });
    await ben.caller.annotationQueue.submit({ assignmentId: vb.assignmentId, labels: rateAll(vb.chunks, () => -1) });
    const chunkIds = va.chunks.map((c) => c.id);
    await db.chunkLabel.updateMany({ where: { runId: world.annotateRunId, ...ABS_Q, chunkId: chunkIds[0]! }, data: { confidence: 0.83 } });

    // Judge runs on the dataset: a newer one of the queue's endpoint, one of another endpoint (and an older one of it), and one still running.
    const judgeConfig = (endpoint: string) => ({ datasetId: world.datasetId, judgeEndpoint: endpoint, segmentationMethod: "self-segmented", samples: 1, temperature: 1, tiePolicy: "Negative" });
    const judgeRun = async (endpoint: string, finishedAt: Date | null, verdict: Verdict, status: "completed" | "running" = "completed") => {
      const run = await db.run.create({ data: { kind: "judge", status, name: `${endpoint} at ${finishedAt?.toISOString() ?? "now"}`, datasetId: world.datasetId, config: judgeConfig(endpoint), finishedAt } });
      await db.judgeSample.createMany({ data: chunkIds.map((chunkId) => ({ runId: run.id, chunkId, sampleIndex: 0, promptTemplateId: "test", rationale: "r", verdict })) });
      return run.id;
    };
    const newer = await judgeRun("judge", new Date(Date.UTC(2026, 5, 2)), "Negative");
    const other = await judgeRun("judge-2", new Date(Date.UTC(2026, 5, 1)), "Positive");
    await judgeRun("judge-2", new Date(Date.UTC(2026, 4, 1)), "Negative");
    await judgeRun("judge-3", null, "Negative", "running");

    const history = await researcher.annotationQueue.itemHistory({ itemId: va.itemId });
    // Annotators by name and email.
    expect(history.assignments.map((a) => [a.name, a.email])).toEqual([
      [ann.user.name, ann.user.email],
      [ben.user.name, ben.user.email],
    ]);
    const { model } = history;
    expect(model.annotateRun).toMatchObject({ id: world.annotateRunId, kind: "annotate", status: "completed" });
    // The queue's own judge run first (audited), then the latest finished run of each endpoint, newest first.
    expect(model.judgeRuns.map((r) => [r.id, r.endpoint, r.audited])).toEqual([
      [world.judgeRunId, "judge", true],
      [newer, "judge", false],
      [other, "judge-2", false],
    ]);
    const labels = await db.chunkLabel.findMany({ where: { runId: world.annotateRunId, chunkId: { in: chunkIds } } });
    const values = await db.chunkValue.findMany({ where: { runId: world.annotateRunId, segmentationId: world.solutions[0]!.segmentationId } });
    const samples = await db.judgeSample.findMany({ where: { runId: world.judgeRunId, chunkId: { in: chunkIds } } });
    expect(model.chunks.map((c) => c.chunkId)).toEqual(chunkIds);
    for (const [i, chunk] of model.chunks.entries()) {
      // Both rules the run stored, the audited one (Abs-Q) first, each with its confidence.
      expect(chunk.mcLabels.map((l) => [l.rule, l.label, l.confidence, l.audited])).toEqual([
        ["abs_q", labels.find((l) => l.chunkId === chunk.chunkId && l.rule === "abs_q")!.label, i === 0 ? 0.83 : null, true],
        ["rel_ratio", labels.find((l) => l.chunkId === chunk.chunkId && l.rule === "rel_ratio")!.label, null, false],
      ]);
      expect(chunk.mcLabels[0]!.ruleText).toMatch(/abs-q/i);
      const value = values.find((v) => v.prefixLength === i + 1)!;
      expect(chunk.q).toEqual({ value: value.qValue, rollouts: value.rolloutCount, correct: value.correctCount });
      const verdicts = samples.filter((s) => s.chunkId === chunk.chunkId).map((s) => s.verdict as Verdict);
      expect(chunk.judges).toEqual([
        { runId: world.judgeRunId, verdict: majorityVerdict(verdicts, "Negative").verdict, votes: { Positive: verdicts.filter((v) => v === "Positive").length, Negative: verdicts.filter((v) => v === "Negative").length, unparseable: verdicts.filter((v) => v === "unparseable").length } },
        { runId: newer, verdict: "Negative", votes: { Positive: 0, Negative: 1, unparseable: 0 } },
        { runId: other, verdict: "Positive", votes: { Positive: 1, Negative: 0, unparseable: 0 } },
      ]);
    }
    // The annotators may not read it: item histories are for those who adjudicate.
    await expect(ann.caller.annotationQueue.itemHistory({ itemId: va.itemId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await db.run.deleteMany({ where: { id: { in: [newer, other] } } });
  });

  it("updateQueue audits only the fields that changed, before and after", async () => {
    const queueId = await queueOf({ blind: false });
    const updated = await researcher.annotationQueue.updateQueue({ queueId, name: "renamed", leaseSeconds: 900, blind: true, archived: false });
    expect(updated.changed.sort()).toEqual(["blind", "name"]);
    expect(updated).toMatchObject({ name: "renamed", blind: true, leaseSeconds: 900, archivedAt: null });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "annotation_queue.updated", entityId: queueId } });
    expect(audit.before).toEqual({ name: expect.stringMatching(/^labels /), blind: false });
    expect(audit.after).toEqual({ name: "renamed", blind: true });
    expect(audit.actorId).toBe(researcherId);
    const unchanged = await researcher.annotationQueue.updateQueue({ queueId, name: "renamed" });
    expect(unchanged.changed).toEqual([]);
    expect(await database.db.auditLog.count({ where: { action: "annotation_queue.updated", entityId: queueId } })).toBe(1);
    await expect(researcher.annotationQueue.updateQueue({ queueId: "missing", name: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const queue = await viewer.annotationQueue.queue({ queueId });
    expect(queue).toMatchObject({ name: "renamed", blind: true, labelRule: ABS_Q, annotateRunId: world.annotateRunId, judgeRunId: world.judgeRunId, segmentationMethod: "self-segmented" });
  });

  it("the export has one line per label row with its provenance, and marks rows a later one superseded", async () => {
    const queueId = await queueOf({ items: 1, annotatorsPerItem: 2, scheme: "first_error", blind: true });
    const ann = await annotator("Exp-a");
    const ben = await annotator("Exp-b");
    const va = (await ann.caller.annotationQueue.next({ queueId }))!;
    const vb = (await ben.caller.annotationQueue.next({ queueId }))!;
    await ann.caller.annotationQueue.submit({ assignmentId: va.assignmentId, labels: [], firstErrorIndex: 0 });
    await ben.caller.annotationQueue.submit({ assignmentId: vb.assignmentId, labels: [{ chunkId: vb.chunks[1]!.id, rating: null, flagged: true, note: "check" }], firstErrorIndex: -1 });
    await ann.caller.annotationQueue.undo({ queueId });
    await ann.caller.annotationQueue.submit({ assignmentId: va.assignmentId, labels: [], firstErrorIndex: 1 });
    await researcher.annotationQueue.adjudicate({ itemId: va.itemId, firstErrorIndex: 1 });

    const lines: HumanLabelExportLine[] = [];
    for await (const line of humanLabelExportLines(database.db, queueId)) lines.push(line);
    const n = va.chunks.length;
    expect(lines).toHaveLength(4 * n);
    const solution = world.solutions[0]!;
    for (const line of lines) {
      expect(line).toMatchObject({ queue_id: queueId, scheme: "first_error", dataset_id: world.datasetId, solution_id: solution.id, external_id: solution.externalId, item_id: va.itemId, blind: true });
      expect(line.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(line.label).toBe(line.rating === null ? null : line.rating === -1 ? "Negative" : "Positive");
    }
    const stamps = lines.map((l) => l.created_at);
    expect(stamps).toEqual([...stamps].sort());
    const of = (authorId: string, source = "annotation") => lines.filter((l) => l.author_id === authorId && l.source === source);
    const annLines = of(ann.user.id);
    expect(annLines.map((l) => [l.chunk_index, l.rating, l.first_error_index, l.current])).toEqual([
      ...va.chunks.map((c) => [c.index, c.index === 0 ? -1 : null, 0, false]),
      ...va.chunks.map((c) => [c.index, c.index === 0 ? 1 : c.index === 1 ? -1 : null, 1, true]),
    ]);
    expect(annLines.every((l) => l.assignment_id === va.assignmentId && l.author_email === ann.user.email)).toBe(true);
    const benLines = of(ben.user.id);
    expect(benLines.map((l) => [l.rating, l.first_error_index, l.current, l.flagged, l.note])).toEqual(va.chunks.map((c) => [1, -1, true, c.index === 1, c.index === 1 ? "check" : null]));
    const adjudication = of(researcherId, "adjudication");
    expect(adjudication.map((l) => [l.first_error_index, l.current, l.assignment_id])).toEqual(va.chunks.map(() => [1, true, null]));

    const { lines: jsonl } = await researcher.annotationQueue.exportLabels({ queueId });
    expect(jsonl.map((l) => JSON.parse(l))).toEqual(lines);
    await expect(ann.caller.annotationQueue.exportLabels({ queueId })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("the export pages through thousands of rows in order, ties on time included", async () => {
    const queueId = await queueOf({ items: 1, withRuns: false });
    const item = await database.db.annotationItem.findFirstOrThrow({ where: { queueId } });
    const chunkId = world.solutions[0]!.chunkIds[0]!;
    const base = Date.UTC(2026, 1, 1);
    // 2,500 rows, five per millisecond: keyset paging must neither skip nor repeat rows that share a time.
    await database.db.humanLabel.createMany({
      data: Array.from({ length: 2500 }, (_, i) => ({ chunkId, authorId: researcherId, rating: (i % 3) - 1, source: "manual", queueId, itemId: item.id, createdAt: new Date(base + Math.floor(i / 5)) })),
    });
    const seen: HumanLabelExportLine[] = [];
    for await (const line of humanLabelExportLines(database.db, queueId)) seen.push(line);
    expect(seen).toHaveLength(2500);
    expect(new Set(seen.map((l) => `${l.created_at}|${l.rating}|${l.current}`)).size).toBeGreaterThan(1);
    const ids = await database.db.humanLabel.findMany({ where: { queueId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, createdAt: true } });
    expect(seen.map((l) => [l.label_id, l.created_at])).toEqual(ids.map((r) => [r.id, r.createdAt.toISOString()]));
    expect(seen.filter((l) => l.current)).toHaveLength(1);
    expect(seen.at(-1)!.current).toBe(true);
  });
});
