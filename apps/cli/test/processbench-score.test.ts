import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bootstrapCI, meanOverStrata, scorePredictedSolutions, stratifiedBootstrapCI } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot, runCli } from "./run-cli";

const demoDir = path.join(repoRoot, "packages/db/seed/processbench");
const gsm8k = path.join(demoDir, "gsm8k.json");
const math = path.join(demoDir, "math.json");

// Gold labels (from the shipped files): gsm8k-0 1, gsm8k-1 1, gsm8k-2 1, gsm8k-3 2,
// gsm8k-200 -1, gsm8k-201 -1; math-0 0, math-1 9, math-2 3, math-500/502/503 -1.
const predictions = [
  { id: "gsm8k-0", prediction: 1 }, // hit
  { id: "gsm8k-1", prediction: 2 }, // miss
  { id: "gsm8k-2", prediction: null }, // unparseable → wrong
  { id: "gsm8k-3", prediction: 2 }, // hit
  { id: "gsm8k-200", prediction: -1 }, // hit
  { id: "gsm8k-201", prediction: 0 }, // miss
  { id: "math-0", prediction: 0 }, // hit
  { id: "math-1", prediction: 9 }, // hit
  { id: "math-2", prediction: -1 }, // miss
  { id: "math-500", prediction: -1 }, // hit
  { id: "math-502", prediction: -1 }, // hit
  { id: "math-503", prediction: 3 }, // miss
];

/** The gold label of each predicted id (the comment above). */
const labels: Record<string, number> = { "gsm8k-0": 1, "gsm8k-1": 1, "gsm8k-2": 1, "gsm8k-3": 2, "gsm8k-200": -1, "gsm8k-201": -1, "math-0": 0, "math-1": 9, "math-2": 3, "math-500": -1, "math-502": -1, "math-503": -1 };

const f1 = (a: number, b: number) => (a + b === 0 ? 0 : (2 * a * b) / (a + b));

describe("stepwiser processbench score", () => {
  let scratch: string;
  let predictionsFile: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-score-"));
    predictionsFile = path.join(scratch, "predictions.jsonl");
    await writeFile(predictionsFile, predictions.map((p) => JSON.stringify(p)).join("\n") + "\n");
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("scores a hand-checked slice of the shipped subsets", async () => {
    const ids = new Set(predictions.map((p) => p.id));
    const slice = async (file: string, name: string) => {
      const records = JSON.parse(await readFile(file, "utf8")) as Array<{ id: string }>;
      const out = path.join(scratch, name);
      await writeFile(out, JSON.stringify(records.filter((r) => ids.has(r.id))));
      return out;
    };
    const result = await runCliInProcess(["processbench", "score", "--data", await slice(gsm8k, "gsm8k-slice.json"), await slice(math, "math-slice.json"), "--predictions", predictionsFile]);
    expect(result.code, result.stderr).toBe(0);
    // gsm8k: erroneous 0,1,2,3 → 2 hits → 0.5; error-free 200,201 → 1 hit → 0.5; F1 0.5
    // math: erroneous 0,1,2 → 2 hits → 2/3; error-free 500,502,503 → 2 hits → 2/3; F1 2/3
    const interval = { lower: expect.any(Number), upper: expect.any(Number) };
    const out = jsonOf(result) as Record<string, Record<string, { lower: number; upper: number }>> & { average_f1_ci95: { lower: number; upper: number } };
    expect(out).toEqual({
      subsets: {
        gsm8k: { n: 6, n_error: 4, n_correct: 2, acc_err: 0.5, acc_cor: 0.5, f1: 0.5 },
        math: { n: 6, n_error: 3, n_correct: 3, acc_err: 2 / 3, acc_cor: 2 / 3, f1: expect.closeTo(2 / 3, 12) },
      },
      average_f1: expect.closeTo((0.5 + 2 / 3) / 2, 12),
      // Two of ProcessBench's four subsets: a partial average, and it says over which.
      subsets_in_average: ["gsm8k", "math"],
      average_is_partial: true,
      f1_ci95: { gsm8k: interval, math: interval },
      acc_err_ci95: { gsm8k: interval, math: interval },
      acc_cor_ci95: { gsm8k: interval, math: interval },
      average_f1_ci95: interval,
      bootstrap: { resamples: 1000, seed: 0 },
    });
    // The intervals recomputed here: each subset's solutions in file order, 1000 resamples, seed 0 (a benchmark run's defaults).
    const solutionsOf = (subset: string) => predictions.filter((p) => p.id.startsWith(`${subset}-`)).map((p) => ({ label: labels[p.id]!, prediction: p.prediction }));
    const options = { resamples: 1000, seed: 0 };
    for (const subset of ["gsm8k", "math"]) {
      for (const metric of ["f1", "acc_err", "acc_cor"] as const) {
        const ci = bootstrapCI(solutionsOf(subset), (sample) => scorePredictedSolutions(sample)[metric], options);
        expect(out[`${metric}_ci95`]![subset], `${subset} ${metric}`).toEqual({ lower: ci.lower, upper: ci.upper });
      }
    }
    const average = stratifiedBootstrapCI([solutionsOf("gsm8k"), solutionsOf("math")], meanOverStrata((sample) => scorePredictedSolutions(sample).f1), options);
    expect(out.average_f1_ci95).toEqual({ lower: average.lower, upper: average.upper });
    expect(result.stderr).toContain("1 predictions are null");
    expect(result.stderr).toContain("average_f1 is a partial average (2 of 4 subsets: gsm8k, math), not ProcessBench's average over its four subsets");

    // Another seed and number of resamples: other intervals, and the output names them.
    const reseeded = await runCliInProcess(["processbench", "score", "--data", await slice(gsm8k, "gsm8k-slice.json"), await slice(math, "math-slice.json"), "--predictions", predictionsFile, "--resamples", "200", "--seed", "7"]);
    expect(reseeded.code, reseeded.stderr).toBe(0);
    const again = jsonOf(reseeded) as typeof out;
    expect(again.bootstrap).toEqual({ resamples: 200, seed: 7 });
    const ci = bootstrapCI(solutionsOf("math"), (sample) => scorePredictedSolutions(sample).f1, { resamples: 200, seed: 7 });
    expect(again.f1_ci95!.math).toEqual({ lower: ci.lower, upper: ci.upper });
    for (const [flag, value] of [["--resamples", "99"], ["--resamples", "1e3"], ["--seed", "0.5"]]) {
      const refused = await runCliInProcess(["processbench", "score", "--data", gsm8k, "--predictions", predictionsFile, flag!, value!]);
      expect(refused.code, `${flag} ${value}`).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`${flag} must be an integer from`));
    }
  });

  it("on the full shipped subsets, ids without a prediction count as wrong and are reported", async () => {
    const result = await runCliInProcess(["processbench", "score", "--data", gsm8k, "--data", math, "--predictions", predictionsFile]);
    expect(result.code, result.stderr).toBe(0);
    const score = jsonOf(result) as { subsets: Record<string, Record<string, number>>; average_f1: number };
    // gsm8k: 400 samples, 207 erroneous (spec); the same 2 + 1 hits as above
    expect(score.subsets.gsm8k).toEqual({ n: 400, n_error: 207, n_correct: 193, acc_err: 2 / 207, acc_cor: 1 / 193, f1: expect.closeTo(f1(2 / 207, 1 / 193), 12) });
    expect(score.subsets.math).toEqual({ n: 1000, n_error: 594, n_correct: 406, acc_err: 2 / 594, acc_cor: 2 / 406, f1: expect.closeTo(f1(2 / 594, 2 / 406), 12) });
    expect(score.average_f1).toBeCloseTo((f1(2 / 207, 1 / 193) + f1(2 / 594, 2 / 406)) / 2, 12);
    expect(result.stderr).toContain("1388 ids have no prediction and count as wrong");
  });

  it("a perfect predictions file scores 1 on both subsets", async () => {
    const records = [
      ...(JSON.parse(await readFile(gsm8k, "utf8")) as Array<{ id: string; label: number }>),
      ...(JSON.parse(await readFile(math, "utf8")) as Array<{ id: string; label: number }>),
    ];
    const oracle = path.join(scratch, "oracle.jsonl");
    await writeFile(oracle, records.map((r) => JSON.stringify({ id: r.id, prediction: r.label, note: "extra fields are ignored" })).join("\n"));
    const result = await runCliInProcess(["processbench", "score", "--data", gsm8k, math, "--predictions", oracle]);
    expect(result.code, result.stderr).toBe(0);
    const score = jsonOf(result) as { subsets: Record<string, { f1: number }>; average_f1: number };
    expect(score.subsets.gsm8k!.f1).toBe(1);
    expect(score.subsets.math!.f1).toBe(1);
    expect(score.average_f1).toBe(1);
    // Nothing wrong to report: only that the average is over two of the four subsets.
    expect(result.stderr).toBe("average_f1 is a partial average (2 of 4 subsets: gsm8k, math), not ProcessBench's average over its four subsets\n");
  });

  it("rejects a bad predictions line with file, line and field, printing nothing on stdout", async () => {
    const bad = path.join(scratch, "bad.jsonl");
    await writeFile(bad, '{"id": "gsm8k-0", "prediction": 1}\n\n{"id": "gsm8k-1", "prediction": "two"}\n');
    // As the executable: a shell sees exit 2, the message on stderr and nothing on stdout.
    const result = await runCli(["processbench", "score", "--data", gsm8k, "--predictions", bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.jsonl:3, field "prediction"/);
    expect(result.stdout).toBe("");

    await writeFile(bad, '{"id": "gsm8k-0", "prediction": 1}\n{"id": "gsm8k-0", "prediction": 2}\n');
    const duplicate = await runCliInProcess(["processbench", "score", "--data", gsm8k, "--predictions", bad]);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/bad\.jsonl:2, field "id": id gsm8k-0 is already predicted on line 1/);

    const missingFile = await runCliInProcess(["processbench", "score", "--data", path.join(scratch, "nope.json"), "--predictions", bad]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/cannot read .*nope\.json: no such file/);
  });
});
