import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { betaCdf, labelConfidenceOptionsSchema, labelConfidences } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, repoRoot, runCli, type CliResult } from "./run-cli";

describe("stepwiser label", () => {
  it("applies each rule to the Q-values given on the command line", async () => {
    const q = ["--q0", "0.5", "--q", "0.5,0.75,0.25,0,0.5"];
    expect(jsonOf(await runCliInProcess(["label", "--rule", "abs-q", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Positive", "Negative", "Positive"],
      first_error: 3,
    });
    // .25/.75 < .7 → Negative at chunk 2
    expect(jsonOf(await runCliInProcess(["label", "--rule", "rel-ratio", "--gamma", "0.7", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Negative", "Negative", "Positive"],
      first_error: 2,
    });
    // chunk 2: .25 + .4 × (.68359375 − .99609375) = .125 > 0 → Positive
    expect(jsonOf(await runCliInProcess(["label", "--rule", "rel-effective", "--alpha", "0.4", "--n", "4", ...q]))).toEqual({
      labels: ["Positive", "Positive", "Positive", "Negative", "Positive"],
      first_error: 3,
    });
    expect(jsonOf(await runCliInProcess(["label", "--rule", "abs-q", "--q0", "1", "--q", "1,0.5"]))).toEqual({
      labels: ["Positive", "Positive"],
      first_error: -1,
    });
  });

  it("names the bad flag on bad input", async () => {
    const notNumber = await runCliInProcess(["label", "--rule", "rel-ratio", "--q0", "0.5", "--q", "0.5,x"]);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('--q: item 2 must be a number, got "x"');
    const outOfRange = await runCliInProcess(["label", "--rule", "abs-q", "--q0", "0.5", "--q", "0.5,1.5"]);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toContain("Q-value 1 is 1.5");
    const unknownRule = await runCliInProcess(["label", "--rule", "rel-magic", "--q", "1"]);
    expect(unknownRule.code).toBe(2);
    expect(unknownRule.stderr).toContain('--rule must be abs-q, rel-ratio or rel-effective, got "rel-magic"');
    const noQ0 = await runCliInProcess(["label", "--rule", "rel-ratio", "--q", "1"]);
    expect(noQ0.code).toBe(2);
    expect(noQ0.stderr).toContain("--q0 is required");
  });
});

interface Confident {
  labels: string[];
  first_error: number;
  confidence: number[];
}

/** The one line `label --counts` prints, parsed; it must be exactly that JSON (numbers as full doubles). */
function confidentOf(result: CliResult): Confident {
  expect(result.code, result.stderr).toBe(0);
  const parsed = jsonOf(result) as Confident;
  expect(result.stdout).toBe(`${JSON.stringify(parsed)}\n`);
  expect(Object.keys(parsed)).toEqual(["labels", "first_error", "confidence"]);
  return parsed;
}

// Reference numbers below were computed independently (SciPy: quad over Q_{i−1}'s Beta posterior of Q_i's survival
// function beyond the rule's threshold, brentq for Rel-Effective's threshold), not with core's code.
describe("stepwiser label --counts (label confidence)", () => {
  it("gives the example: 8/16, 12/16, 9/16 under Rel-Ratio(0.7) are Positive, the second with confidence ≈ 0.6235", async () => {
    const result = confidentOf(await runCliInProcess(["label", "--rule", "rel-ratio", "--gamma", "0.7", "--counts", "8/16,12/16,9/16"]));
    expect(result.labels).toEqual(["Positive", "Positive"]);
    expect(result.first_error).toBe(-1);
    expect(result.confidence).toHaveLength(2);
    expect(result.confidence[0]).toBeGreaterThan(0.99);
    // P(Q_2 > 0.7·Q_1), Q_1 ~ Beta(12.5, 4.5), Q_2 ~ Beta(9.5, 7.5)
    expect(result.confidence[1]).toBeCloseTo(0.6235176603263, 8);
  });

  it("labels the estimates s/m exactly as --q0/--q would, and adds nothing to the --q output", async () => {
    const fromCounts = await runCliInProcess(["label", "--rule", "rel-ratio", "--counts", "4/8,4/8,6/8,2/8,0/8,4/8"]);
    const fromQ = await runCliInProcess(["label", "--rule", "rel-ratio", "--q0", "0.5", "--q", "0.5,0.75,0.25,0,0.5"]);
    const counted = confidentOf(fromCounts);
    expect(jsonOf(fromQ)).toEqual({ labels: counted.labels, first_error: counted.first_error });
    expect(counted.labels).toEqual(["Positive", "Positive", "Negative", "Negative", "Positive"]);
    expect(counted.confidence).toHaveLength(5);
    for (const c of counted.confidence) {
      expect(c).toBeGreaterThanOrEqual(0);
      expect(c).toBeLessThanOrEqual(1);
    }
  });

  it("Abs-Q: a Negative label on 0/16 has confidence P(Q ≤ ε) = betaCdf(ε, ½, 16½); --epsilon moves it; later-prefixes uses every later prefix", async () => {
    const own = await runCliInProcess(["label", "--rule", "abs-q", "--counts", "16/16,0/16,0/16"]);
    const wider = await runCliInProcess(["label", "--rule", "abs-q", "--epsilon", "0.05", "--counts", "16/16,0/16,0/16"]);
    const later = await runCliInProcess(["label", "--rule", "abs-q", "--evidence", "later-prefixes", "--counts", "16/16,0/16,0/16,1/16"]);
    const none = betaCdf(0.01, 0.5, 16.5);
    expect(confidentOf(own)).toEqual({ labels: ["Negative", "Negative"], first_error: 0, confidence: [none, none] });
    expect(none).toBeCloseTo(0.4323786678822837, 12);
    const widerResult = confidentOf(wider);
    expect(widerResult.labels).toEqual(["Negative", "Negative"]);
    expect(widerResult.confidence[0]).toBeCloseTo(0.8033846418940155, 12);
    expect(widerResult.confidence[0]).toBeCloseTo(betaCdf(0.05, 0.5, 16.5), 12);
    const laterResult = confidentOf(later);
    expect(laterResult.labels).toEqual(["Positive", "Positive", "Positive"]);
    // Positive unless every prefix from this one on has Q ≤ ε (1 of 16 → Beta(1.5, 15.5)).
    const lastNone = betaCdf(0.01, 1.5, 15.5);
    expect(laterResult.confidence[0]).toBeCloseTo(1 - none * none * lastNone, 12);
    expect(laterResult.confidence[1]).toBeCloseTo(1 - none * lastNone, 12);
    expect(laterResult.confidence[2]).toBeCloseTo(1 - lastNone, 12);
  });

  it("Rel-Effective(0.8, 4): confidence of each chunk's label from its two prefixes' posteriors", async () => {
    const result = confidentOf(await runCliInProcess(["label", "--rule", "rel-effective", "--counts", "8/16,12/16,9/16,0/16"]));
    expect(result.labels).toEqual(["Positive", "Positive", "Negative"]);
    expect(result.first_error).toBe(2);
    expect(result.confidence[0]).toBeCloseTo(0.999994712444044, 8);
    expect(result.confidence[1]).toBeCloseTo(0.9965879771821082, 8);
    expect(result.confidence[2]).toBeCloseTo(0.9963634812950675, 8);
  });

  it("--prior mixture with the parameters prior fit prints: a prefix with no success can be a sure Negative", async () => {
    const mixture = { zero: 0.3, one: 0.2, a: 2, b: 3, prefixes: 100, logLikelihood: -1, runId: "r" };
    const result = await runCliInProcess(["label", "--rule", "abs-q", "--prior", "mixture", "--mixture", JSON.stringify(mixture), "--counts", "8/16,12/16,0/16"]);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { labels: string[]; confidence: number[] };
    expect(out.labels).toEqual(["Positive", "Negative"]);
    const options = labelConfidenceOptionsSchema.parse({ prior: "mixture", mixture: { zero: 0.3, one: 0.2, a: 2, b: 3 } });
    expect(out.confidence).toEqual(labelConfidences({ rule: "abs-q", evidence: "own-prefix" }, ["Positive", "Negative"], [{ correct: 8, rollouts: 16 }, { correct: 12, rollouts: 16 }, { correct: 0, rollouts: 16 }], options));
    expect(out.confidence[1]).toBeGreaterThan(0.9);
  });

  it("--prior uniform uses Beta(s+1, m−s+1) and changes the numbers", async () => {
    const jeffreys = await runCliInProcess(["label", "--rule", "rel-ratio", "--counts", "8/16,12/16,9/16"]);
    const namedJeffreys = await runCliInProcess(["label", "--rule", "rel-ratio", "--prior", "jeffreys", "--counts", "8/16,12/16,9/16"]);
    const uniform = await runCliInProcess(["label", "--rule", "rel-ratio", "--prior", "uniform", "--counts", "8/16,12/16,9/16"]);
    const byDefault = confidentOf(jeffreys);
    expect(confidentOf(namedJeffreys)).toEqual(byDefault);
    const flat = confidentOf(uniform);
    expect(flat.labels).toEqual(byDefault.labels);
    // P(Q_2 > 0.7·Q_1), Q_1 ~ Beta(13, 5), Q_2 ~ Beta(10, 8)
    expect(flat.confidence[1]).toBeCloseTo(0.6422246495548625, 8);
    expect(flat.confidence[1]).not.toBeCloseTo(byDefault.confidence[1]!, 3);
  });

  it("refuses bad counts and flags with exit code 2, naming the flag and the entry", async () => {
    const cases: [string[], string][] = [
      [["--rule", "abs-q", "--counts", "3-4"], '--counts entry 1 "3-4": must be s/m'],
      [["--rule", "abs-q", "--counts", "8/16,a/b"], '--counts entry 2 "a/b": must be s/m'],
      [["--rule", "abs-q", "--counts", "8/16,3/"], '--counts entry 2 "3/": must be s/m'],
      [["--rule", "abs-q", "--counts", "8/16,,3/4"], '--counts entry 2 "": must be s/m'],
      [["--rule", "abs-q", "--counts", "8/16,0/0"], '--counts entry 2 "0/0": a prefix needs at least one rollout'],
      [["--rule", "abs-q", "--counts", "8/16,5/4"], '--counts entry 2 "5/4": 5 correct is more than its 4 rollouts'],
      [["--rule", "abs-q", "--counts", "8/16,-1/4"], '--counts entry 2 "-1/4": counts cannot be negative'],
      [["--rule", "abs-q", "--counts", "8/16,3/4,2/-4"], '--counts entry 3 "2/-4": counts cannot be negative'],
      [["--rule", "abs-q", "--counts", "8/16,1.5/4"], '--counts entry 2 "1.5/4": counts must be whole numbers'],
      [["--rule", "abs-q", "--counts", "8/16"], "--counts needs at least 2 entries, the bare problem and at least one chunk"],
      [["--rule", "abs-q", "--counts", "8/16,3/4", "--q", "0.5"], "--counts and --q cannot be given together"],
      [["--rule", "rel-ratio", "--counts", "8/16,3/4", "--q0", "0.5", "--q", "0.5"], "--counts and --q0 cannot be given together"],
      [["--rule", "rel-ratio", "--epsilon", "0.1", "--counts", "8/16,3/4"], "--epsilon is not a parameter of rel-ratio"],
      [["--rule", "rel-effective", "--epsilon", "0.1", "--counts", "8/16,3/4"], "--epsilon is not a parameter of rel-effective"],
      [["--rule", "abs-q", "--epsilon", "1", "--counts", "8/16,3/4"], '--epsilon must be between 0 and 1 (both excluded), got "1"'],
      [["--rule", "abs-q", "--epsilon", "0", "--counts", "8/16,3/4"], '--epsilon must be between 0 and 1 (both excluded), got "0"'],
      [["--rule", "abs-q", "--epsilon", "x", "--counts", "8/16,3/4"], '--epsilon must be a number, got "x"'],
      [["--rule", "abs-q", "--prior", "flat", "--counts", "8/16,3/4"], '--prior must be jeffreys, uniform, mixture, got "flat"'],
      [["--rule", "abs-q", "--prior", "mixture", "--counts", "8/16,3/4"], "--prior mixture needs --mixture"],
      [["--rule", "abs-q", "--mixture", '{"zero":0.1,"one":0.1,"a":1,"b":1}', "--counts", "8/16,3/4"], "--mixture is read only with --prior mixture"],
      [["--rule", "abs-q", "--prior", "mixture", "--mixture", "zero=0.1", "--counts", "8/16,3/4"], "--mixture must be a JSON object"],
      [["--rule", "abs-q", "--prior", "mixture", "--mixture", '{"zero":0.7,"one":0.5,"a":1,"b":1}', "--counts", "8/16,3/4"], "--mixture: one: zero + one must be below 1"],
      [["--rule", "abs-q", "--prior", "uniform", "--q", "0.5"], "--prior needs --counts"],
    ];
    const expectRefused = (result: CliResult, [args, message]: [string[], string]) => {
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(message);
      expect(result.stdout).toBe("");
    };
    // Every case through the command line's entry point in this process, and three of them as the real binary.
    for (const entry of cases) expectRefused(await runCliInProcess(["label", ...entry[0]]), entry);
    const spawned = [cases[0]!, cases[4]!, cases[10]!];
    const results = await Promise.all(spawned.map(([args]) => runCli(["label", ...args])));
    results.forEach((result, i) => expectRefused(result, spawned[i]!));
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
    expect(jsonOf(await runCliInProcess(["verdict", "--file", file]))).toEqual({ verdict: "Positive", boxed: "Positive", problem: null });
    // Piped into the executable's stdin, as a shell would.
    expect(jsonOf(await runCli(["verdict", "--file", "-"], { stdin: "It is wrong. \\boxed{negative}" }))).toMatchObject({ verdict: "Negative" });
    expect(jsonOf(await runCliInProcess(["verdict", "--file", "-"], {}, { stdin: "I think it is fine." }))).toEqual({ verdict: "unparseable", boxed: null, problem: "no-boxed" });
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
