import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gradeAnswer, warmUpCas } from "@stepwiser/core";
import { afterEach, describe, expect, it } from "vitest";
import { closeRunGrading, gradeRolloutAnswer, gradeSolutionFinalAnswer, gradingSettingsFromEnv, holdRunGrading, runGradingReady, runGradingSettings } from "../src";
import { PATHOLOGICAL_ANSWER } from "./pathological-answer";

/** Gaps between the ticks of a main-thread interval, while `body` runs. */
async function tickGaps<T>(body: () => Promise<T>, everyMs = 10): Promise<{ value: T; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, everyMs);
  try {
    const value = await body();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { value, maxGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe("grading of model outputs during runs", () => {
  afterEach(async () => {
    await closeRunGrading();
  });

  it("the pathological answer overruns the grader's own deadline on the main thread", () => {
    warmUpCas();
    const limitMs = 100;
    const start = performance.now();
    const result = gradeAnswer("5", String.raw`The answer is $\boxed{${PATHOLOGICAL_ANSWER}}$.`, { timeLimitMs: limitMs });
    const ms = performance.now() - start;
    expect(result.equivalent).toBe(false);
    // If the grader learns to refuse this quickly, pick another input that it cannot interrupt.
    expect(ms, "the chosen pathological answer no longer stalls the grader").toBeGreaterThan(3 * limitMs);
  });

  it("grades it `timeout` within the hard limit on a grading thread, while other answers are graded and main-thread timers keep ticking", async () => {
    const hardLimitMs = 500;
    const release = holdRunGrading({ gradingThreads: 2, gradingTimeLimitMs: hardLimitMs });
    try {
      // Both threads start (load the grader, build the CAS) before the measurement: on a loaded
      // machine the second may come up long after the first has answered.
      await runGradingReady();
      await expect(gradeRolloutAnswer("1", String.raw`\boxed{1}`)).resolves.toMatchObject({ equivalent: true });
      expect(runGradingSettings()).toEqual({ gradingThreads: 2, gradingTimeLimitMs: hardLimitMs });

      const { value, maxGapMs } = await tickGaps(async () => {
        const started = performance.now();
        const slow = gradeRolloutAnswer("5", String.raw`Therefore the answer is $\boxed{${PATHOLOGICAL_ANSWER}}$.`).then((result) => ({ result, ms: performance.now() - started }));
        // Ordinary answers keep being graded on the other thread meanwhile.
        const ordinary = Array.from({ length: 30 }, (_, i) =>
          gradeRolloutAnswer(String.raw`\frac{${i + 1}}{2}`, String.raw`So we get \boxed{${(i + 1) / 2}}.`).then((result) => ({ result, ms: performance.now() - started })),
        );
        return { slow: await slow, ordinary: await Promise.all(ordinary) };
      });

      const { slow, ordinary } = value;
      expect(slow.result).toMatchObject({ equivalent: false, reason: "timeout", pred: { extracted: PATHOLOGICAL_ANSWER, rule: "boxed" } });
      expect(slow.result.elapsedMs).toBeGreaterThanOrEqual(hardLimitMs);
      expect(slow.ms).toBeLessThan(hardLimitMs + 400);
      expect(ordinary.every(({ result }) => result.equivalent && result.reason === "numeric")).toBe(true);
      // The other thread kept grading while one was stuck: ordinary answers came back before the
      // pathological one was given up (a third of them at least, however loaded the machine).
      expect(ordinary.filter((o) => o.ms < slow.ms).length).toBeGreaterThanOrEqual(10);
      // The main thread never waited: no tick came more than a fraction of the limit late.
      expect(maxGapMs).toBeLessThan(150);

      // The killed thread was replaced: the pool still grades on both threads.
      const after = await Promise.all([gradeRolloutAnswer("3", String.raw`\boxed{3}`), gradeRolloutAnswer("x^2+2x+1", String.raw`\boxed{(x+1)^2}`)]);
      expect(after.map((r) => [r.equivalent, r.reason])).toEqual([
        [true, "string"],
        [true, "symbolic"],
      ]);
    } finally {
      await release();
    }
    expect(runGradingSettings()).toBeNull();
  });

  it("the pool lives while anyone holds it, is closed by the last holder, and a later grading starts a new one from the environment", async () => {
    const first = holdRunGrading({ gradingThreads: 1, gradingTimeLimitMs: 1500 });
    const second = holdRunGrading({ gradingThreads: 1, gradingTimeLimitMs: 1500 });
    await gradeRolloutAnswer("2", String.raw`\boxed{2}`);
    await first();
    await first(); // releasing twice counts once
    expect(runGradingSettings()).toEqual({ gradingThreads: 1, gradingTimeLimitMs: 1500 });
    // A grading in flight when the last holder lets go is answered, not refused.
    const inFlight = gradeRolloutAnswer("0.5", String.raw`\boxed{\frac{1}{2}}`);
    await second();
    await expect(inFlight).resolves.toMatchObject({ equivalent: true });
    expect(runGradingSettings()).toBeNull();
    await expect(gradeRolloutAnswer("4", String.raw`\boxed{4}`)).resolves.toMatchObject({ equivalent: true });
    expect(runGradingSettings()).toEqual(gradingSettingsFromEnv());
    // A solution's own final answer goes to the same threads.
    await expect(gradeSolutionFinalAnswer("12", String.raw`So she has $\boxed{12}$ apples left.`)).resolves.toMatchObject({ equivalent: true, pred: { extracted: "12" } });
  });

  it("never keeps a process alive: one that graded and let the pool be ends on its own", async () => {
    const service = fileURLToPath(new URL("../src/grading/run-grading.ts", import.meta.url));
    // A file, not `node -e`: worker threads inherit the process's -e and would run it again.
    const dir = await mkdtemp(path.join(tmpdir(), "run-grading-"));
    const script = path.join(dir, "grade-once.mjs");
    await writeFile(
      script,
      `const { gradeRolloutAnswer } = await import(${JSON.stringify(service)});
      const result = await gradeRolloutAnswer("2", ${JSON.stringify(String.raw`\boxed{2}`)});
      process.stdout.write(JSON.stringify(result.equivalent));\n`,
    );
    try {
      const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
      clearTimeout(timer);
      expect({ code, out }).toEqual({ code: 0, out: "true" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads its settings from the environment: threads default to two (one on one core), the hard limit to 2000 ms", () => {
    const defaults = gradingSettingsFromEnv({});
    expect(defaults.gradingTimeLimitMs).toBe(2000);
    expect([1, 2]).toContain(defaults.gradingThreads);
    expect(gradingSettingsFromEnv({ STEPWISER_GRADING_THREADS: "4", STEPWISER_GRADING_TIME_LIMIT_MS: "750" })).toEqual({ gradingThreads: 4, gradingTimeLimitMs: 750 });
    expect(() => gradingSettingsFromEnv({ STEPWISER_GRADING_THREADS: "1.5" })).toThrow(/STEPWISER_GRADING_THREADS must be an integer/);
    expect(() => gradingSettingsFromEnv({ STEPWISER_GRADING_TIME_LIMIT_MS: "0" })).toThrow(/STEPWISER_GRADING_TIME_LIMIT_MS must be a number ≥ 10/);
  });

  it("reads a model output only by its box or answer phrase, and a stored solution's final answer leniently", async () => {
    const release = holdRunGrading({ gradingThreads: 1, gradingTimeLimitMs: 2000 });
    try {
      // A continuation cut off at its token limit: its last number is the reference, but it stated no answer.
      const cutOff = "Next we add the two amounts: 5 + 15 = 20";
      await expect(gradeRolloutAnswer("20", cutOff)).resolves.toMatchObject({ equivalent: false, reason: "unparseable", pred: { extracted: null } });
      await expect(gradeRolloutAnswer("20", `${cutOff}, so the answer is \\boxed{20}.`)).resolves.toMatchObject({ equivalent: true, pred: { rule: "boxed" } });
      // A complete solution written under another prompt states its answer in prose.
      await expect(gradeSolutionFinalAnswer("20", "Therefore, the length of the red rope is 20 centimeters.")).resolves.toMatchObject({
        equivalent: true,
        pred: { rule: "concluding-number" },
      });
    } finally {
      await release();
    }
  });
});
