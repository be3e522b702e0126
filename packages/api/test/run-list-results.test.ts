import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createUserWithPassword } from "../src";

/**
 * The runs list sorted by its result columns and duration, in the database: runs
 * without the figure last in either order, ties newest first then by id, pages
 * that add up to the whole list; and data jobs left out unless asked for.
 */
/** One subset's scores as a benchmark's summary stores them. */
const SUBSET = { n: 2, n_error: 1, n_correct: 1, acc_err: 0.5, acc_cor: 0.3, f1: 0.375 };

describe("the runs list: result columns, duration and data jobs", () => {
  let database: TestDatabase;
  let user: { id: string; email: string; name: string; role: "researcher" };
  const caller = () => createCallerFactory(appRouter)({ db: database.db, getQueue: () => Promise.reject(new Error("no queue in this test")), user });
  const ids: Record<string, string> = {};
  const keysOf = (runs: { id: string }[]) => runs.map((run) => Object.keys(ids).find((key) => ids[key] === run.id));

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    const { id } = await createUserWithPassword(database.db, { email: "ada@example.test", name: "Ada", role: "researcher", password: "long-enough-password" });
    user = { id, email: "ada@example.test", name: "Ada", role: "researcher" };
    const started = new Date("2026-11-30T10:00:00Z");
    const at = (minutes: number) => new Date(started.getTime() + minutes * 60_000);
    // Each run created a minute after the one before; the figures as a finished run of its kind stores them.
    const runs: [string, string, Record<string, unknown>][] = [
      ["benchLow", "benchmark", { averageF1: 0.41, finishedAt: at(3), summary: { subsets: { math: SUBSET }, average_f1: 0.41, subsets_in_average: ["math"], average_is_partial: true, f1_ci95: {}, unparseable: 0, missing: 0 } }],
      ["benchHigh", "benchmark", { averageF1: 0.73, finishedAt: at(9) }],
      // The same F1 as benchHigh: the newer of the two first, whichever the order.
      ["benchTie", "benchmark", { averageF1: 0.73, finishedAt: at(2) }],
      ["prmbench", "benchmark", { prmscore: 0.58, finishedAt: at(1) }],
      ["judgeLenient", "judge", { negativeShare: 0.12, finishedAt: at(4) }],
      ["judgeStrict", "judge", { negativeShare: 0.47, finishedAt: at(20) }],
      ["annotateA", "annotate", { labelBalance: 0.66, meanConfidence: 0.91, finishedAt: at(6) }],
      ["annotateB", "annotate", { labelBalance: 0.35, meanConfidence: 0.72, finishedAt: at(7) }],
      // Not finished: no duration, no figure.
      ["running", "judge", {}],
      ["import", "import", { finishedAt: at(1) }],
      ["export", "export", { finishedAt: at(1) }],
    ];
    for (const [i, [key, kind, data]] of runs.entries()) {
      const createdAt = new Date(started.getTime() - (runs.length - i) * 60_000);
      const finished = "finishedAt" in data;
      const run = await database.db.run.create({
        data: { kind, name: key, config: {}, status: finished ? "completed" : "running", createdAt, startedAt: started, createdById: id, ...data },
      });
      ids[key] = run.id;
    }
    // Each judge run's agreement with the Monte-Carlo labels of an annotate run, as its kind stores it.
    await database.db.run.update({ where: { id: ids.judgeLenient }, data: { mcAgreement: 0.9, mcAgreementRunId: ids.annotateA } });
    await database.db.run.update({ where: { id: ids.judgeStrict }, data: { mcAgreement: 0.62, mcAgreementRunId: ids.annotateB } });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const list = (input: Parameters<ReturnType<typeof caller>["run"]["list"]>[0] = {}) => caller().run.list(input);

  it("leaves data jobs out unless asked, or unless a kind filter names their kind", async () => {
    const shown = await list();
    expect(shown.total).toBe(9);
    expect(keysOf(shown.runs)).not.toContain("import");
    const all = await list({ includeDataJobs: true });
    expect(all.total).toBe(11);
    expect(keysOf(all.runs).slice(0, 2)).toEqual(["export", "import"]);
    expect(keysOf((await list({ kinds: ["import"] })).runs)).toEqual(["import"]);
    expect(keysOf((await list({ kinds: ["export", "judge"] })).runs)).toEqual(["export", "running", "judgeStrict", "judgeLenient"]);
  });

  it("sorts by each result column and by duration, runs without the figure last in either order", async () => {
    const sorted = async (sort: "averageF1" | "prmscore" | "negativeShare" | "labelBalance" | "meanConfidence" | "mcAgreement" | "duration", order: "asc" | "desc") => keysOf((await list({ sort, order })).runs);
    expect((await sorted("averageF1", "desc")).slice(0, 3)).toEqual(["benchTie", "benchHigh", "benchLow"]);
    expect((await sorted("averageF1", "asc")).slice(0, 3)).toEqual(["benchLow", "benchTie", "benchHigh"]);
    // Nulls last, newest first among them, both ways.
    expect((await sorted("averageF1", "asc")).slice(3)).toEqual(["running", "annotateB", "annotateA", "judgeStrict", "judgeLenient", "prmbench"]);
    expect((await sorted("averageF1", "desc")).slice(3)).toEqual(["running", "annotateB", "annotateA", "judgeStrict", "judgeLenient", "prmbench"]);
    expect((await sorted("prmscore", "asc"))[0]).toBe("prmbench");
    expect((await sorted("negativeShare", "desc")).slice(0, 2)).toEqual(["judgeStrict", "judgeLenient"]);
    expect((await sorted("negativeShare", "asc")).slice(0, 2)).toEqual(["judgeLenient", "judgeStrict"]);
    expect((await sorted("labelBalance", "desc")).slice(0, 2)).toEqual(["annotateA", "annotateB"]);
    expect((await sorted("meanConfidence", "asc")).slice(0, 2)).toEqual(["annotateB", "annotateA"]);
    expect((await sorted("mcAgreement", "desc")).slice(0, 3)).toEqual(["judgeLenient", "judgeStrict", "running"]);
    expect((await sorted("mcAgreement", "asc")).slice(0, 3)).toEqual(["judgeStrict", "judgeLenient", "running"]);
    // Finished − started; the running run has none and comes last.
    const longest = await sorted("duration", "desc");
    expect(longest.slice(0, 3)).toEqual(["judgeStrict", "benchHigh", "annotateB"]);
    expect(longest.at(-1)).toBe("running");
    expect((await sorted("duration", "asc")).slice(0, 3)).toEqual(["prmbench", "benchTie", "benchLow"]);
    expect((await sorted("duration", "asc")).at(-1)).toBe("running");
  });

  it("gives each run its duration and results, a partial average F1 with the subsets it is over", async () => {
    const { runs } = await list({ sort: "averageF1", order: "asc" });
    const row = (key: string) => runs.find((run) => run.id === ids[key])!;
    expect(row("benchLow")).toMatchObject({ durationSeconds: 180, results: { averageF1: { value: 0.41, partial: true, subsets: ["math"] }, prmscore: null } });
    expect(row("judgeStrict")).toMatchObject({ durationSeconds: 1200, results: { averageF1: null, negativeShare: 0.47, mcAgreement: { value: 0.62, run: { id: ids.annotateB, name: "annotateB" }, rule: null } } });
    expect(row("annotateA").results).toMatchObject({ labelBalance: 0.66, meanConfidence: 0.91 });
    expect(row("running")).toMatchObject({ durationSeconds: null, results: { averageF1: null, prmscore: null, negativeShare: null, labelBalance: null, meanConfidence: null, mcAgreement: null } });
  });

  it("pages a sorted list with ties and nulls into pages that add up to the whole list, each run once", async () => {
    const whole = keysOf((await list({ sort: "averageF1", order: "desc", includeDataJobs: true })).runs);
    const paged: (string | undefined)[] = [];
    for (let page = 1; page <= 4; page++) paged.push(...keysOf((await list({ sort: "averageF1", order: "desc", includeDataJobs: true, page, pageSize: 3 })).runs));
    expect(paged).toEqual(whole);
    expect(new Set(paged).size).toBe(11);
  });

  it("refuses a sort key it does not know, naming the field", async () => {
    await expect(list({ sort: "speed" as "cost" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("sort") });
  });
});
