import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonOf, runCli } from "./run-cli";

interface Answer {
  equivalent: boolean;
  gold_extracted: string | null;
  pred_extracted: string | null;
  reason: string;
  rule: string | null;
  elapsed_ms?: number;
}

const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as Answer);

describe("stepwiser grade", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-grade-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("grades one pair given on the command line", async () => {
    const result = await runCli(["grade", "--gold", "\\frac{1}{2}", "--pred", "so the answer is \\boxed{0.5}"]);
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf(result)).toEqual({ equivalent: true, gold_extracted: "\\frac{1}{2}", pred_extracted: "0.5", reason: "numeric", rule: "boxed" });
  });

  it("grades a JSON-lines file in input order, ignoring extra fields and blank lines", async () => {
    const file = path.join(scratch, "pairs.jsonl");
    const pairs = [
      { gold: "1,000", pred: "The total is 1000 dollars, so the answer is \\boxed{1000}.", id: 7 },
      { gold: "\\{1, 2\\}", pred: "\\boxed{\\{2, 1\\}}" },
      { gold: "[1, 2)", pred: "\\boxed{[1, 2]}" },
      { gold: "x^2+2x+1", pred: "\\boxed{(x+1)^2}" },
      { gold: "5", pred: "Let me think about the sides of the triangle first, then I will add them up." },
      { gold: "twenty-one", pred: "\\fbox{21}" },
    ];
    await writeFile(file, pairs.map((p) => JSON.stringify(p)).join("\n\n") + "\n");
    const result = await runCli(["grade", "--jsonl", file]);
    expect(result.code, result.stderr).toBe(0);
    const answers = lines(result.stdout);
    expect(answers.map((a) => a.equivalent)).toEqual([true, true, false, true, false, true]);
    expect(answers[0]).toEqual({ equivalent: true, gold_extracted: "1,000", pred_extracted: "1000", reason: expect.any(String), rule: "boxed" });
    expect(answers[3]!.reason).toBe("symbolic");
    expect(answers[4]).toMatchObject({ pred_extracted: null, reason: "unparseable", rule: null });
    expect(answers[5]).toMatchObject({ rule: "fbox" });
  });

  it("reads a line's problem, and names the reading that decided in the reason", async () => {
    const file = path.join(scratch, "readings.jsonl");
    const probability = "An 80 year old has a $25 \\%$ chance of living 10 more years. What is the probability that he lives 5 more years?";
    const pairs = [
      { gold: "62.5%", pred: "\\boxed{0.625}", problem: probability },
      { gold: "62.5%", pred: "\\boxed{0.625}", problem: "What percent of the people live 5 more years?" },
      { gold: "62.5%", pred: "\\boxed{0.625}" },
      { gold: "1,2,3", pred: "So $(x, y, z) = \\boxed{(1, 2, 3)}$." },
      { gold: "4027", pred: "The final answer is $x + y = 4027$." },
      { gold: "2, 3", pred: "\\boxed{3, 2}" },
    ];
    await writeFile(file, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
    const result = await runCli(["grade", "--jsonl", file]);
    expect(result.code, result.stderr).toBe(0);
    const answers = lines(result.stdout);
    expect(answers.map((a) => [a.equivalent, a.reason])).toEqual([
      [true, "string:percent-as-fraction"],
      [false, "numeric"],
      [false, "numeric"],
      [true, "string:ordered-tuple"],
      [true, "string:equation-value-side"],
      [true, "string:unordered-list"],
    ]);
    const bad = path.join(scratch, "bad-problem.jsonl");
    await writeFile(bad, `${JSON.stringify({ gold: "1", pred: "1" })}\n${JSON.stringify({ gold: "1", pred: "1", problem: 7 })}\n`);
    const refused = await runCli(["grade", "--jsonl", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/bad-problem\.jsonl.*2.*problem/s);
    expect(refused.stdout).toBe("");
  });

  it("names the rule that found an unboxed answer, and reads only boxes and answer phrases with --mode boxed", async () => {
    const pred = "Therefore, the length of the red rope is 20 centimeters.";
    const lenient = await runCli(["grade", "--gold", "20", "--pred", pred]);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(jsonOf(lenient)).toEqual({ equivalent: true, gold_extracted: "20", pred_extracted: "20", reason: "string", rule: "concluding-number" });
    const boxed = await runCli(["grade", "--gold", "20", "--pred", pred, "--mode", "boxed"]);
    expect(boxed.code, boxed.stderr).toBe(0);
    expect(jsonOf(boxed)).toEqual({ equivalent: false, gold_extracted: "20", pred_extracted: null, reason: "unparseable", rule: null });
    const bad = await runCli(["grade", "--gold", "20", "--pred", pred, "--mode", "strict"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--mode must be boxed or lenient, got "strict"');
  });

  it("rejects a bad line with file, line and field before printing anything", async () => {
    const file = path.join(scratch, "bad.jsonl");
    await writeFile(file, '{"gold": "1", "pred": "1"}\n{"gold": "2", "pred": 2}\n');
    const result = await runCli(["grade", "--jsonl", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.jsonl:2, field "pred": must be a string');
    expect(result.stdout).toBe("");

    await writeFile(file, '{"gold": "1", "pred": "1"}\nnot json\n');
    const notJson = await runCli(["grade", "--jsonl", file]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("bad.jsonl:2: not valid JSON");
  });

  it("never lets a pathological pair take longer than its time limit", async () => {
    const limit = 500;
    const file = path.join(scratch, "pathological.jsonl");
    const pathological = [
      { gold: "10^{10^{10^{10}}}", pred: "\\boxed{10^{10^{10^{10}}}+1}" },
      { gold: "5", pred: "\\boxed{\\sum_{k=1}^{10^9} k}" },
      { gold: "1", pred: `\\boxed{${Array.from({ length: 5000 }, (_, i) => `${i}x^{${i}}`).join("+")}}` },
      { gold: "2", pred: `\\boxed{${"\\frac{1}{".repeat(300)}2${"}".repeat(300)}}` },
      { gold: "(10^{100})!", pred: "\\boxed{(10^{100})! + 1}" },
      { gold: "3", pred: "\\boxed{3}" },
    ];
    await writeFile(file, pathological.map((p) => JSON.stringify(p)).join("\n"));
    const result = await runCli(["grade", "--jsonl", file, "--time-limit-ms", String(limit), "--details"]);
    expect(result.code, result.stderr).toBe(0);
    const answers = lines(result.stdout);
    expect(answers).toHaveLength(pathological.length);
    for (const answer of answers) expect(answer.elapsed_ms).toBeLessThanOrEqual(limit + 250);
    expect(answers.slice(0, 5).every((a) => !a.equivalent)).toBe(true);
    expect(answers[5]).toMatchObject({ equivalent: true, reason: "string" });
  });
});
