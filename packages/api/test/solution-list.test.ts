import type { TestDatabase } from "@stepwiser/db/testing";
import { createSimWorldDataset } from "@stepwiser/jobs";
import { createWorldDatabase } from "@stepwiser/jobs/testing/simulated-world";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter } from "../src";
import { Prisma } from "@stepwiser/db";
import { filteredSolutionsFrom, listOrder, textSearchPlan, solutionFilterSchema, type SolutionFilter } from "../src/services/solution/filters";

describe("solution lists", () => {
  let database: TestDatabase;
  let datasetId: string;
  let annotateRunId: string;
  let judgeRunId: string;
  let caller: ReturnType<typeof appRouter.createCaller>;

  // The finished simulated world: 12 problems (error rate 0.5, seed 31), an annotate run (M = 4) and,
  // among its judge runs, sim-judge-medium with one greedy sample.
  beforeAll(async () => {
    const { world, ...made } = await createWorldDatabase(inject("postgresAdminUrl"));
    database = made;
    ({ datasetId } = world);
    annotateRunId = world.runs.annotate;
    judgeRunId = world.runs.judgeMedium;
    caller = appRouter.createCaller({ db: database.db, getQueue: async () => { throw new Error("no queue needed"); }, user: { id: "v", email: "v@x.test", name: "V", role: "viewer" } });
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** Every solution with its stats, read with plain Prisma: the reference the SQL filters are checked against. */
  async function reference() {
    const rows = await database.db.solution.findMany({
      where: { datasetId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, externalId: true, generator: true, text: true, finalAnswerCorrect: true, sourceFirstErrorIndex: true, createdAt: true, problem: { select: { text: true } }, runStats: true },
    });
    return rows.map((row) => ({ ...row, a: row.runStats.find((s) => s.runId === annotateRunId), j: row.runStats.find((s) => s.runId === judgeRunId) }));
  }

  async function listAll(filter: Omit<SolutionFilter, "datasetId" | "sort" | "order"> & Partial<Pick<SolutionFilter, "sort" | "order">>) {
    const page = await caller.solution.list({ datasetId, pageSize: 500, ...filter });
    expect(page.total).toBe(page.items.length);
    return page.items;
  }

  it("filters by correctness, source error, stats of the chosen runs and their disagreement", async () => {
    const all = await reference();
    expect(all.every((t) => t.a && t.j)).toBe(true);
    const ids = (items: { id: string }[]) => items.map((t) => t.id).sort();
    const expectIds = <T extends { id: string }>(items: T[], expected: typeof all) => {
      expect(ids(items)).toEqual(ids(expected));
      return items;
    };

    expectIds(await listAll({ correct: false }), all.filter((t) => t.finalAnswerCorrect === false));
    expectIds(await listAll({ hasError: true }), all.filter((t) => (t.sourceFirstErrorIndex ?? -1) >= 0));
    expectIds(await listAll({ annotateRunId, qMin: 0.2, qMax: 0.6 }), all.filter((t) => t.a!.qMin !== null && t.a!.qMin >= 0.2 && t.a!.qMin <= 0.6));
    expectIds(await listAll({ annotateRunId, disagreement: "rules" }), all.filter((t) => t.a!.labelsDisagree));
    expectIds(await listAll({ judgeRunId, judgeVerdict: "flagged" }), all.filter((t) => t.j!.firstNegative >= 0));
    const disagreeing = expectIds(await listAll({ annotateRunId, judgeRunId, disagreement: "judge" }), all.filter((t) => t.a!.firstNegative !== t.j!.firstNegative));
    expect(disagreeing.length).toBeGreaterThan(0);
    expect(disagreeing.length).toBeLessThan(all.length);
    for (const item of disagreeing) expect(item.annotateFirstNegative).not.toBe(item.judgeFirstNegative);
  });

  it("shows each solution's chunk count without a run: the chunks of its first segmentation, the one the inspector opens on", async () => {
    const { db } = database;
    const segmentations = await db.segmentation.findMany({
      where: { solution: { datasetId } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { solutionId: true, _count: { select: { chunks: true } } },
    });
    const expected = new Map<string, number>();
    for (const s of segmentations) if (!expected.has(s.solutionId)) expected.set(s.solutionId, s._count.chunks);
    const items = await listAll({});
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.chunkCount).toBe(expected.get(item.id));
    expect(items.every((item) => item.chunkCount! > 0)).toBe(true);
    // A chosen run's stats still count its own segmentation.
    const all = await reference();
    for (const item of await listAll({ annotateRunId })) expect(item.chunkCount).toBe(all.find((t) => t.id === item.id)!.a!.chunkCount);
    // A solution without any segmentation lists, with no count.
    const { problemId } = await db.solution.findUniqueOrThrow({ where: { id: all[0]!.id }, select: { problemId: true } });
    const unsegmented = await db.solution.create({ data: { datasetId, problemId, externalId: "unsegmented", generator: "sim-policy", text: "no chunks" } });
    try {
      expect((await listAll({ search: "unsegmented" })).map((t) => [t.id, t.chunkCount])).toEqual([[unsegmented.id, null]]);
    } finally {
      await db.solution.delete({ where: { id: unsegmented.id } });
    }
  });

  it("searches words by prefix in the problem and the solution, and exact solution ids", async () => {
    const all = await reference();
    const word = all[3]!.problem.text.match(/[A-Za-z]{5,}/)![0];
    const prefix = word.slice(0, 4).toLowerCase();
    const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const expected = all.filter((t) => [...words(t.problem.text), ...words(t.text)].some((w) => w.startsWith(prefix)));
    // A twin dataset with the same problems, solutions and ids: its matches must not leak into this dataset's list.
    await createSimWorldDataset(database.db, { name: "lists-twin", problems: 12, seed: 31, errorRate: 0.5 });
    const found = await listAll({ search: prefix });
    expect(found.map((t) => t.id).sort()).toEqual(expected.map((t) => t.id).sort());
    expect(found.length).toBeGreaterThan(0);
    expect((await listAll({ search: all[5]!.externalId })).map((t) => t.id)).toEqual([all[5]!.id]);
    // A word in nearly every solution: the list is the whole dataset in file order, whichever plan finds it.
    const common = [...new Set(all.flatMap((t) => words(t.text)))]
      .map((w) => [w, all.filter((t) => [...words(t.problem.text), ...words(t.text)].some((x) => x.startsWith(w))).length] as const)
      .sort((x, y) => y[1] - x[1])[0]!;
    expect(common[1]).toBeGreaterThan(all.length / 2);
    expect((await listAll({ search: common[0] })).map((t) => t.id)).toEqual(
      all.filter((t) => [...words(t.problem.text), ...words(t.text)].some((x) => x.startsWith(common[0]))).map((t) => t.id),
    );
    expect(await listAll({ search: "zzqqxx" })).toEqual([]);
    // Both ways of finding a search's solutions list the same rows in the same order: reading the matches (any
    // search this small) and walking the list's order (a search matching more than SEARCH_MATCHES_CAP solutions).
    for (const filter of [
      { search: prefix },
      { search: common[0], annotateRunId, sort: "qMin", order: "desc" },
      { search: prefix, judgeRunId, judgeVerdict: "flagged", sort: "judgeFirstNegative" },
      { search: all[5]!.externalId, correct: all[5]!.finalAnswerCorrect ?? undefined },
    ] as const) {
      const parsed = solutionFilterSchema.parse({ datasetId, ...filter });
      expect(await textSearchPlan(database.db, parsed)).toBe("matches");
      const ids = async (plan: "matches" | "walk") =>
        (await database.db.$queryRaw<{ id: string }[]>(Prisma.sql`SELECT t.id ${filteredSolutionsFrom(parsed, plan)} ${listOrder(parsed)}`)).map((r) => r.id);
      const matched = await ids("matches");
      expect(matched.length).toBeGreaterThan(0);
      expect(await ids("walk")).toEqual(matched);
    }
    // With a search the runs' stats are read per match: the same rows, columns and order as the list without it, cut to the matches.
    const matches = new Set(expected.map((t) => t.id));
    for (const filter of [
      { annotateRunId, judgeRunId, sort: "qMin", order: "asc" },
      { annotateRunId, judgeRunId, disagreement: "judge", sort: "judgeFirstNegative", order: "desc" },
      { judgeRunId, judgeVerdict: "flagged", sort: "chunkCount" },
    ] as const) {
      const searched = await listAll({ search: prefix, ...filter });
      expect(searched).toEqual((await listAll(filter)).filter((t) => matches.has(t.id)));
      if (searched.length > 1) {
        const around = await caller.solution.neighbors({ datasetId, search: prefix, ...filter, id: searched[1]!.id });
        expect([around.previous?.id, around.next?.id ?? null]).toEqual([searched[0]!.id, searched[2]?.id ?? null]);
      }
    }
  });

  it("sorts with nulls last and pages; next/previous walk the same order in both directions", async () => {
    for (const [sort, order] of [["qMin", "asc"], ["judgeFirstNegative", "desc"], ["generator", "asc"], ["position", "desc"]] as const) {
      const filter = { annotateRunId, judgeRunId, sort, order } as const;
      const items = await listAll(filter);
      const firstPage = await caller.solution.list({ datasetId, ...filter, pageSize: 5, page: 2 });
      expect(firstPage.items.map((t) => t.id)).toEqual(items.slice(5, 10).map((t) => t.id));
      if (sort === "qMin") {
        const values = items.map((t) => t.qMin!);
        expect(values).toEqual([...values].sort((x, y) => x - y));
      }
      for (let i = 0; i < items.length; i++) {
        const around = await caller.solution.neighbors({ datasetId, ...filter, id: items[i]!.id });
        expect(around.previous?.id ?? null).toBe(items[i - 1]?.id ?? null);
        expect(around.next?.id ?? null).toBe(items[i + 1]?.id ?? null);
      }
    }
  });

  it("filters and sorts by the lowest label confidence under one rule of the annotate run, and shows it as a column", async () => {
    const { db } = database;
    const all = await reference();
    // The annotate run stored every solution's lowest confidence under each of its rules.
    const relRatio = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;
    const stored = await db.solutionLabelConfidence.findMany({ where: { runId: annotateRunId, ...relRatio } });
    expect(stored.map((s) => s.solutionId).sort()).toEqual(all.map((t) => t.id).sort());
    const confidenceOf = new Map(stored.map((s) => [s.solutionId, s.lowestConfidence]));
    const known = stored.filter((s) => s.lowestConfidence !== null);
    expect(known.length).toBeGreaterThan(2);

    // The column: every solution lists, each with its own lowest confidence; without a rule the column is empty.
    const shown = await listAll({ annotateRunId, confidenceRule: relRatio });
    expect(shown).toHaveLength(all.length);
    for (const item of shown) expect(item.lowestConfidence).toBe(confidenceOf.get(item.id));
    expect((await listAll({ annotateRunId })).every((item) => item.lowestConfidence === null)).toBe(true);

    // Sorted: ascending confidence, ties by solution id; solutions without a confidence are left out.
    const byConfidence = (a: { lowestConfidence: number | null; solutionId: string }, b: typeof a) => a.lowestConfidence! - b.lowestConfidence! || (a.solutionId < b.solutionId ? -1 : 1);
    const sorted = await listAll({ annotateRunId, confidenceRule: relRatio, sort: "lowestConfidence" });
    expect(sorted.map((t) => t.id)).toEqual([...known].sort(byConfidence).map((s) => s.solutionId));

    // At most a bound: only solutions whose lowest confidence is at or below it.
    const values = known.map((s) => s.lowestConfidence!).sort((x, y) => x - y);
    const bound = values[Math.floor(values.length / 2)]!;
    const unsure = await listAll({ annotateRunId, confidenceRule: relRatio, maxConfidence: bound });
    expect(unsure.map((t) => t.id).sort()).toEqual(known.filter((s) => s.lowestConfidence! <= bound).map((s) => s.solutionId).sort());
    expect(unsure.length).toBeLessThan(all.length);
    expect(unsure.every((t) => t.lowestConfidence !== null && t.lowestConfidence <= bound)).toBe(true);

    // Rows of another rule, written here: a tie, a solution whose labels have no confidence (null), one with no row at all.
    const other = { rule: "rel_ratio", paramsKey: '{"gamma":0.9}' } as const;
    const [tieA, tieB, lowest, unknown] = all;
    const rows = [
      { solutionId: tieA!.id, lowestConfidence: 0.55 },
      { solutionId: tieB!.id, lowestConfidence: 0.55 },
      { solutionId: lowest!.id, lowestConfidence: 0.125 },
      { solutionId: unknown!.id, lowestConfidence: null },
      ...all.slice(5).map((t, i) => ({ solutionId: t.id, lowestConfidence: 0.6 + i / 100 })),
    ];
    await db.solutionLabelConfidence.createMany({ data: rows.map((row) => ({ runId: annotateRunId, ...other, ...row })) });
    const expectedDesc = rows.filter((r) => r.lowestConfidence !== null).sort((a, b) => b.lowestConfidence! - a.lowestConfidence! || (a.solutionId < b.solutionId ? 1 : -1));
    const filter = { annotateRunId, confidenceRule: other, sort: "lowestConfidence", order: "desc" } as const;
    const descending = await listAll(filter);
    expect(descending.map((t) => t.id)).toEqual(expectedDesc.map((r) => r.solutionId));
    expect(descending.map((t) => t.lowestConfidence)).toEqual(expectedDesc.map((r) => r.lowestConfidence));
    const withoutRow = all[4]!.id;
    const unsorted = await listAll({ annotateRunId, confidenceRule: other });
    expect(unsorted.find((t) => t.id === withoutRow)!.lowestConfidence).toBeNull();
    expect(unsorted.find((t) => t.id === unknown!.id)!.lowestConfidence).toBeNull();
    expect((await listAll({ annotateRunId, confidenceRule: other, maxConfidence: 0.55 })).map((t) => t.id).sort()).toEqual([tieA!.id, tieB!.id, lowest!.id].sort());

    // Pages and next/previous walk the same order.
    const page = await caller.solution.list({ datasetId, ...filter, pageSize: 3, page: 2 });
    expect(page.items.map((t) => t.id)).toEqual(descending.slice(3, 6).map((t) => t.id));
    for (let i = 0; i < descending.length; i++) {
      const around = await caller.solution.neighbors({ datasetId, ...filter, id: descending[i]!.id });
      expect(around.previous?.id ?? null).toBe(descending[i - 1]?.id ?? null);
      expect(around.next?.id ?? null).toBe(descending[i + 1]?.id ?? null);
    }
    expect(await caller.solution.neighbors({ datasetId, ...filter, id: withoutRow })).toEqual({ inList: false, previous: null, next: null });
  });

  it("refuses confidence filters that lack what they read, naming the field", async () => {
    const relRatio = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;
    await expect(caller.solution.list({ datasetId, annotateRunId, maxConfidence: 0.8 })).rejects.toThrow(/maxConfidence needs confidenceRule/);
    await expect(caller.solution.list({ datasetId, confidenceRule: relRatio })).rejects.toThrow(/confidenceRule needs annotateRunId/);
    await expect(caller.solution.list({ datasetId, annotateRunId, sort: "lowestConfidence" })).rejects.toThrow(/sort needs confidenceRule/);
    await expect(caller.solution.list({ datasetId, annotateRunId, confidenceRule: relRatio, maxConfidence: 1.5 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("rejects a filter on a run's stats without the run, and a solution outside the dataset", async () => {
    await expect(caller.solution.list({ datasetId, qMin: 0.5 })).rejects.toThrow(/qMin needs annotateRunId/);
    await expect(caller.solution.neighbors({ datasetId: "elsewhere", id: "nope" })).rejects.toThrow(/not in dataset elsewhere/);
    const solved = (await reference()).find((t) => t.finalAnswerCorrect === true)!;
    expect(await caller.solution.neighbors({ datasetId, id: solved.id, correct: false })).toEqual({ inList: false, previous: null, next: null });
  });
});
