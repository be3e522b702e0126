import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonOf, repoRoot, runCli } from "./run-cli";

describe("stepwiser label", () => {
  it("applies each rule to the Q-values given on the command line", async () => {
    const q = ["--q0", "0.5", "--q", "0.5,0.75,0.25,0,0.5"];
    expect(jsonOf(await runCli(["label", "--rule", "abs-q", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Positive", "Negative", "Positive"],
      first_error: 3,
    });
    // .25/.75 < .7 → Negative at chunk 2
    expect(jsonOf(await runCli(["label", "--rule", "rel-ratio", "--gamma", "0.7", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Negative", "Negative", "Positive"],
      first_error: 2,
    });
    // chunk 2: .25 + .4 × (.68359375 − .99609375) = .125 > 0 → Positive
    expect(jsonOf(await runCli(["label", "--rule", "rel-effective", "--alpha", "0.4", "--n", "4", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Positive", "Negative", "Positive"],
      first_error: 3,
    });
    expect(jsonOf(await runCli(["label", "--rule", "abs-q", "--q0", "1", "--q", "1,0.5"]))).toEqual({
      labels: ["Positive", "Positive"],
      first_error: -1,
    });
  });

  it("names the bad flag on bad input", async () => {
    const notNumber = await runCli(["label", "--rule", "rel-ratio", "--q0", "0.5", "--q", "0.5,x"]);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('--q: item 2 must be a number, got "x"');
    const outOfRange = await runCli(["label", "--rule", "abs-q", "--q0", "0.5", "--q", "0.5,1.5"]);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toContain("Q-value 1 is 1.5");
    const unknownRule = await runCli(["label", "--rule", "rel-magic", "--q", "1"]);
    expect(unknownRule.code).toBe(2);
    expect(unknownRule.stderr).toContain('--rule must be abs-q, rel-ratio or rel-effective, got "rel-magic"');
    const noQ0 = await runCli(["label", "--rule", "rel-ratio", "--q", "1"]);
    expect(noQ0.code).toBe(2);
    expect(noQ0.stderr).toContain("--q0 is required");
  });
});

describe("stepwiser verdict", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-verdict-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("parses a judge output file, and stdin with --file -", async () => {
    const file = path.join(scratch, "judge.txt");
    await writeFile(file, "The chunk computes 4 + 4 = 8 correctly.\nFinal Judgment: \\boxed{Positive}\n");
    expect(jsonOf(await runCli(["verdict", "--file", file]))).toEqual({ verdict: "Positive", boxed: "Positive", problem: null });
    expect(jsonOf(await runCli(["verdict", "--file", "-"], { stdin: "It is wrong. \\boxed{negative}" }))).toMatchObject({ verdict: "Negative" });
    expect(jsonOf(await runCli(["verdict", "--file", "-"], { stdin: "I think it is fine." }))).toEqual({ verdict: "unparseable", boxed: null, problem: "no-boxed" });
  });

  it("runs as `corepack pnpm --silent stepwiser` from the repository root", () => {
    const result = spawnSync("corepack", ["pnpm", "--silent", "stepwiser", "verdict", "--file", "-"], {
      cwd: repoRoot,
      input: "\\boxed{Negative}",
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ verdict: "Negative" });
  });
});
