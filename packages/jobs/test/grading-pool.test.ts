import { afterEach, describe, expect, it } from "vitest";
import { GradingPool } from "../src/grading/grading-pool";

describe("grading pool", () => {
  let pool: GradingPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it("grades pairs on worker threads and answers each call", async () => {
    pool = new GradingPool({ threads: 2, timeLimitMs: 2000 });
    const results = await Promise.all([
      pool.grade("\\frac{1}{2}", "The answer is \\boxed{0.5}."),
      pool.grade("2\\sqrt{2}", "\\boxed{\\sqrt{8}}"),
      pool.grade("(1, 2)", "\\boxed{(2, 1)}"),
      pool.grade("42", "no answer here at all, just some rambling text that goes on and on"),
    ]);
    expect(results.map((r) => [r.equivalent, r.reason])).toEqual([
      [true, "numeric"],
      [true, "symbolic"],
      [false, expect.any(String)],
      [false, "unparseable"],
    ]);
    expect(results[0]!.pred).toMatchObject({ extracted: "0.5", rule: "boxed" });
  });

  it("is ready once every thread is up: two stuck pairs then run side by side, and replaced threads count again", async () => {
    const limit = 400;
    pool = new GradingPool({ threads: 2, timeLimitMs: limit, cooperativeShare: 100 });
    await pool.ready();
    const started = performance.now();
    const stuck = await Promise.all([0, 1].map(() => pool!.grade("5", "\\boxed{\\sum_{k=1}^{10^9} k}").then((result) => ({ result, ms: performance.now() - started }))));
    expect(stuck.map(({ result }) => result.reason)).toEqual(["timeout", "timeout"]);
    // One after the other would take two limits; on two threads both end at the first.
    for (const { ms } of stuck) expect(ms).toBeLessThan(2 * limit);
    // Both threads were killed and replaced; the pool is ready again once the new ones are up.
    await pool.ready();
    await expect(Promise.all([pool.grade("3", "\\boxed{3}"), pool.grade("4", "\\boxed{4}")])).resolves.toMatchObject([{ equivalent: true }, { equivalent: true }]);
  });

  it("kills a pair that outruns the hard limit, reports a timeout, and keeps grading", async () => {
    // The grader's own deadline is pushed far past the hard limit, so only the
    // watchdog can stop this sum of a billion terms.
    const limit = 400;
    pool = new GradingPool({ threads: 1, timeLimitMs: limit, cooperativeShare: 100 });
    const slow = await pool.grade("5", "\\boxed{\\sum_{k=1}^{10^9} k}");
    expect(slow).toMatchObject({ equivalent: false, reason: "timeout", pred: { extracted: "\\sum_{k=1}^{10^9} k", rule: "boxed" } });
    expect(slow.elapsedMs).toBeGreaterThanOrEqual(limit);
    expect(slow.elapsedMs).toBeLessThan(limit + 250);
    // a fresh thread takes over
    await expect(pool.grade("3", "\\boxed{3}")).resolves.toMatchObject({ equivalent: true });
  });

  it("takes grade options per pair, over the pool's", async () => {
    pool = new GradingPool({ threads: 1, timeLimitMs: 2000, gradeOptions: { percentAsFraction: true } });
    const [pooled, own] = await Promise.all([pool.grade(String.raw`50\%`, "0.5"), pool.grade(String.raw`50\%`, "0.5", { percentAsFraction: false })]);
    expect(pooled.equivalent).toBe(true);
    expect(own.equivalent).toBe(false);
  });

  it("refuses work after close", async () => {
    const closing = new GradingPool({ threads: 1 });
    await closing.close();
    await expect(closing.grade("1", "1")).rejects.toThrow(/closed/);
  });
});
