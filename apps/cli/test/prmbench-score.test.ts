import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { repoRoot } from "./run-cli";

const fixtures = path.join(repoRoot, "packages/core/test/fixtures/prmbench");
const data = path.join(fixtures, "prmbench-sample.jsonl");
const predictions = path.join(fixtures, "predictions-sample.jsonl");

describe("stepwiser prmbench score", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-prmbench-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("prints PRMScore, F1, negative F1, n and per class, equal to PRMBench's own evaluator on released records; what it left out goes to stderr", async () => {
    const result = await runCliInProcess(["prmbench", "score", "--data", data, "--predictions", predictions]);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { prmscore: number; f1: number; negative_f1: number; n: number; by_class: Record<string, { prmscore: number; f1: number; negative_f1: number; n: number }> };
    expect(Object.keys(out)).toEqual(["prmscore", "f1", "negative_f1", "n", "by_class"]);
    const official = JSON.parse(await readFile(path.join(fixtures, "expected-official.json"), "utf8")) as typeof out;
    expect([out.prmscore, out.f1, out.negative_f1]).toEqual([official.prmscore, official.f1, official.negative_f1]);
    for (const [name, figures] of Object.entries(official.by_class)) {
      expect(Object.keys(out.by_class[name]!)).toEqual(["prmscore", "f1", "negative_f1", "n"]);
      expect([out.by_class[name]!.prmscore, out.by_class[name]!.f1, out.by_class[name]!.negative_f1], name).toEqual([figures.prmscore, figures.f1, figures.negative_f1]);
    }
    // 30 items, 2 without a prediction; 27 modified items less the 2 missing, the 3 all-correct ones apart.
    expect(out.n + out.by_class.correct!.n).toBe(28);
    expect(result.stderr).toContain("2 of 30 items have no prediction and are left out");
    expect(result.stderr).toContain("nonexistent_item_1");
    expect(result.stderr).toContain("multi_solutions_prm_test_p2_863");
  });

  it("a bad prediction line or data record exits 2 naming the file, line and field", async () => {
    const bad = path.join(scratch, "bad.jsonl");
    await writeFile(bad, `${JSON.stringify({ id: "circular_prm_test_p1_0", labels: [true, 1] })}\n`);
    const labels = await runCliInProcess(["prmbench", "score", "--data", data, "--predictions", bad]);
    expect(labels.code).toBe(2);
    expect(labels.stderr).toContain("bad.jsonl:1");
    expect(labels.stderr).toContain('field "labels.1"');
    const badData = path.join(scratch, "data.jsonl");
    const first = (await readFile(data, "utf8")).split("\n")[0]!;
    await writeFile(badData, `${first}\n${JSON.stringify({ ...JSON.parse(first), idx: undefined })}\n`);
    const record = await runCliInProcess(["prmbench", "score", "--data", badData, "--predictions", predictions]);
    expect(record.code).toBe(2);
    expect(record.stderr).toContain("data.jsonl:2");
    expect(record.stderr).toContain('field "idx"');
    expect((await runCliInProcess(["prmbench", "score", "--data", data])).code).toBe(2);
  });
});
