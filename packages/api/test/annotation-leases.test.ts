import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callerFor, createAnnotationWorld, createUser, memberAnnotator, rateAll, sleep, type AnnotationWorld, type Caller } from "./annotation-fixtures";

describe("annotation queue leases", () => {
  let database: TestDatabase;
  let world: AnnotationWorld;
  let researcher: Caller;
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    world = await createAnnotationWorld(database.db, { solutions: 12 });
    researcher = callerFor(database.db, await createUser(database.db, "researcher", "Rita"));
  });
  afterAll(async () => {
    await database?.drop();
  });

  // Annotators work only their member queues: every annotator here is a member of every queue, whichever came first.
  const queueIds: string[] = [];
  const annotatorIds: string[] = [];
  const annotator = async (name: string) => {
    const caller = await memberAnnotator(database.db, researcher, `${name}${++counter}`, queueIds);
    annotatorIds.push((await caller.me.get()).id);
    return caller;
  };
  const queueOf = async (items: number, settings: { leaseSeconds?: number; annotatorsPerItem?: number } = {}) => {
    const { queueId } = await researcher.annotationQueue.createQueue({ name: `queue ${++counter}`, datasetId: world.datasetId, selection: { kind: "filter", filter: { datasetId: world.datasetId }, limit: items }, annotatorIds, ...settings });
    queueIds.push(queueId);
    return queueId;
  };
  const submitAll = (caller: Caller, view: { assignmentId: string; chunks: { id: string; index: number }[] }) =>
    caller.annotationQueue.submit({ assignmentId: view.assignmentId, labels: rateAll(view.chunks, () => 1) });

  it("an abandoned lease frees its item once it expires; the late submit is refused once the slot is taken, and nobody gets an item twice", async () => {
    const queueId = await queueOf(5, { leaseSeconds: 1, annotatorsPerItem: 1 });
    const [a, b] = [await annotator("Ann"), await annotator("Bob")];

    const abandoned = (await a.annotationQueue.next({ queueId }))!;
    expect(abandoned.position).toBe(0);
    expect(abandoned.solution.id).toBe(world.solutions[0]!.id);
    const second = (await b.annotationQueue.next({ queueId }))!;
    expect(second.position).toBe(1);
    await submitAll(b, second);

    await sleep(1200);
    const takenOver = (await b.annotationQueue.next({ queueId }))!;
    expect(takenOver.position).toBe(0);
    await expect(a.annotationQueue.submit({ assignmentId: abandoned.assignmentId, labels: rateAll(abandoned.chunks, () => 1) })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/lease expired/),
    });
    const history = await researcher.annotationQueue.itemHistory({ itemId: abandoned.itemId });
    expect(history.labels).toEqual([]);

    // A holds nothing; item 0 is B's, item 1 is submitted: A moves on to item 2.
    const third = (await a.annotationQueue.next({ queueId }))!;
    expect(third.position).toBe(2);
    await submitAll(a, third);
    // B gives item 0 back: A's own expired row for it is leased again, not duplicated.
    await expect(b.annotationQueue.skip({ assignmentId: takenOver.assignmentId })).resolves.toEqual({ ok: true });
    const again = (await a.annotationQueue.next({ queueId }))!;
    expect(again.position).toBe(0);
    expect(again.assignmentId).toBe(abandoned.assignmentId);
    await submitAll(a, again);

    const bPositions: number[] = [];
    for (let view = await b.annotationQueue.next({ queueId }); view; view = await b.annotationQueue.next({ queueId })) {
      bPositions.push(view.position);
      await submitAll(b, view);
    }
    expect(bPositions).toEqual([3, 4]);
    expect(await a.annotationQueue.next({ queueId })).toBeNull();
    const progress = (await researcher.annotationQueue.queue({ queueId })).progress;
    expect(progress).toMatchObject({ items: 5, completedItems: 5, submissions: 5, activeLeases: 0 });
  });

  it("a late submit is accepted while nobody took the slot", async () => {
    const queueId = await queueOf(2, { leaseSeconds: 1 });
    const a = await annotator("Late");
    const view = (await a.annotationQueue.next({ queueId }))!;
    await sleep(1200);
    const { assignment } = await submitAll(a, view);
    expect(assignment.status).toBe("submitted");
  });

  it("resumes the lease I hold instead of claiming another item", async () => {
    const queueId = await queueOf(3);
    const a = await annotator("Resume");
    const first = (await a.annotationQueue.next({ queueId }))!;
    const again = (await a.annotationQueue.next({ queueId }))!;
    expect(again.assignmentId).toBe(first.assignmentId);
    expect(again.remainingForMe).toBe(3);
    expect(await a.annotationQueue.assignment({ assignmentId: first.assignmentId })).toMatchObject({ assignmentId: first.assignmentId, status: "leased" });
  });

  it("six annotators asking at once get six different items; a second wave only gets what is left", async () => {
    const queueId = await queueOf(8, { annotatorsPerItem: 1 });
    const wave = await Promise.all(Array.from({ length: 6 }, (_, i) => annotator(`Wave${i}`)));
    const views = await Promise.all(wave.map((caller) => caller.annotationQueue.next({ queueId })));
    const items = views.map((v) => v!.itemId);
    expect(new Set(items).size).toBe(6);
    const late = await Promise.all(Array.from({ length: 4 }, (_, i) => annotator(`Late${i}`)));
    const rest = await Promise.all(late.map((caller) => caller.annotationQueue.next({ queueId })));
    const restItems = rest.filter((v) => v !== null).map((v) => v.itemId);
    expect(restItems).toHaveLength(2);
    expect(new Set([...items, ...restItems]).size).toBe(8);
  });

  it("k = 2 under contention: ten annotators at once fill each item's two slots and no more", async () => {
    const queueId = await queueOf(3, { annotatorsPerItem: 2 });
    const crowd = await Promise.all(Array.from({ length: 10 }, (_, i) => annotator(`Crowd${i}`)));
    const views = await Promise.all(crowd.map((caller) => caller.annotationQueue.next({ queueId })));
    const held = views.filter((v) => v !== null);
    expect(held).toHaveLength(6);
    const perItem = new Map<string, number>();
    for (const view of held) perItem.set(view.itemId, (perItem.get(view.itemId) ?? 0) + 1);
    expect([...perItem.values()]).toEqual([2, 2, 2]);
  });

  it("k = 2: two different annotators share an item's two slots and a third does not get it", async () => {
    const queueId = await queueOf(1, { annotatorsPerItem: 2 });
    const [a, b, c] = [await annotator("K2a"), await annotator("K2b"), await annotator("K2c")];
    const va = (await a.annotationQueue.next({ queueId }))!;
    const vb = (await b.annotationQueue.next({ queueId }))!;
    expect(vb.itemId).toBe(va.itemId);
    expect(vb.assignmentId).not.toBe(va.assignmentId);
    expect(await c.annotationQueue.next({ queueId })).toBeNull();
    await submitAll(a, va);
    expect(await a.annotationQueue.next({ queueId })).toBeNull();
    expect(await c.annotationQueue.next({ queueId })).toBeNull();
    await b.annotationQueue.skip({ assignmentId: vb.assignmentId });
    // B's skip frees the second slot: C takes it, B never gets the item back.
    expect((await c.annotationQueue.next({ queueId }))!.itemId).toBe(va.itemId);
    expect(await b.annotationQueue.next({ queueId })).toBeNull();
  });

  it("with k = 2, parallel annotators spread over free items before doubling up", async () => {
    const queueId = await queueOf(2, { annotatorsPerItem: 2 });
    const callers = await Promise.all(["S1", "S2", "S3", "S4", "S5"].map(annotator));
    const positions: (number | null)[] = [];
    for (const caller of callers) positions.push((await caller.annotationQueue.next({ queueId }))?.position ?? null);
    expect(positions).toEqual([0, 1, 0, 1, null]);
  });

  it("a skipped item is never offered to me again but goes to someone else; only my own leased assignment can be skipped", async () => {
    const queueId = await queueOf(2);
    const [a, b] = [await annotator("Skip"), await annotator("Other")];
    const first = (await a.annotationQueue.next({ queueId }))!;
    await expect(b.annotationQueue.skip({ assignmentId: first.assignmentId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await a.annotationQueue.skip({ assignmentId: first.assignmentId })).toEqual({ ok: true });
    const second = (await a.annotationQueue.next({ queueId }))!;
    expect(second.itemId).not.toBe(first.itemId);
    expect((await b.annotationQueue.next({ queueId }))!.itemId).toBe(first.itemId);
    await submitAll(a, second);
    await expect(a.annotationQueue.skip({ assignmentId: second.assignmentId })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await a.annotationQueue.next({ queueId })).toBeNull();
    const { progress } = await researcher.annotationQueue.queue({ queueId });
    expect(progress.annotators.find((p) => p.name.startsWith("Skip"))).toMatchObject({ submitted: 1, skipped: 1, leased: 0 });
  });

  it("an archived queue hands out nothing until it is restored", async () => {
    const queueId = await queueOf(2);
    const a = await annotator("Arch");
    await researcher.annotationQueue.updateQueue({ queueId, archived: true });
    expect(await a.annotationQueue.next({ queueId })).toBeNull();
    await researcher.annotationQueue.updateQueue({ queueId, archived: false });
    expect(await a.annotationQueue.next({ queueId })).not.toBeNull();
  });

  it("viewers cannot take or submit items; annotators cannot create queues; another annotator's assignment is not mine", async () => {
    const queueId = await queueOf(1);
    const viewer = callerFor(database.db, await createUser(database.db, "viewer", "Vic"));
    await expect(viewer.annotationQueue.next({ queueId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(viewer.annotationQueue.submit({ assignmentId: "any", labels: [] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const a = await annotator("Own");
    await expect(a.annotationQueue.createQueue({ name: "x", datasetId: world.datasetId, selection: { kind: "disagreements" } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const view = (await a.annotationQueue.next({ queueId }))!;
    const b = await annotator("Nosy");
    await expect(b.annotationQueue.assignment({ assignmentId: view.assignmentId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(b.annotationQueue.submit({ assignmentId: view.assignmentId, labels: [] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(b.annotationQueue.assignment({ assignmentId: "missing" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await viewer.annotationQueue.listQueues({ datasetId: world.datasetId })).not.toHaveLength(0);
  });
});
