import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { gradeAnswer, warmUpCas } from "@stepwiser/core";
import { writeBenchmarkReport } from "@stepwiser/config/bench";

/**
 * Agreement of the answer grader with ProcessBench's own correctness flags on
 * real model solutions: every solution of ProcessBench's GSM8K, MATH and
 * OlympiadBench subsets whose problem matches a reference answer (2,386 of
 * 2,400), graded whole against that reference as `stepwiser grade` grades it
 * (lenient extraction). Math-Verify's verdicts on the same pairs, from its
 * source (corpus/run-math-verify.py), are read from a file beside the corpus.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const corpusDir = path.join(root, "packages/core/test/grading/corpus");

interface RealPair {
  subset: "gsm8k" | "math" | "olympiadbench";
  id: string;
  gold: string;
  pred: string;
  problem: string;
  equivalent: boolean;
}

const pairs = gunzipSync(readFileSync(path.join(corpusDir, "grading-real.jsonl.gz")))
  .toString("utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as RealPair);
const mvFile = path.join(corpusDir, "grading-real.math-verify.jsonl");
const mathVerify = new Map<string, boolean>();
if (existsSync(mvFile)) {
  for (const line of readFileSync(mvFile, "utf8").trim().split("\n")) {
    const row = JSON.parse(line) as { id: string; equivalent: boolean };
    mathVerify.set(row.id, row.equivalent);
  }
}
if (mathVerify.size !== pairs.length) throw new Error(`${mvFile} has ${mathVerify.size} verdicts for ${pairs.length} pairs: run corpus/run-math-verify.py first`);

warmUpCas();
interface Tally {
  n: number;
  agree: number;
  falseEqual: number;
  missedEqual: number;
}
const empty = (): Tally => ({ n: 0, agree: 0, falseEqual: 0, missedEqual: 0 });
const ours = new Map<string, Tally>();
const theirs = new Map<string, Tally>();
const answersOnly = empty();
const disagreements: string[] = [];
const count = (tallies: Map<string, Tally>, key: string, verdict: boolean, truth: boolean) => {
  const t = tallies.get(key) ?? empty();
  tallies.set(key, t);
  t.n += 1;
  if (verdict === truth) t.agree += 1;
  else if (verdict) t.falseEqual += 1;
  else t.missedEqual += 1;
};
let slowest = 0;
const inProcess: boolean[] = [];
for (const pair of pairs) {
  // As `stepwiser grade --jsonl` grades a line with its `problem`, and a line without one.
  const result = gradeAnswer(pair.gold, pair.pred, { timeLimitMs: 2000, problem: pair.problem });
  const alone = gradeAnswer(pair.gold, pair.pred, { timeLimitMs: 2000 });
  slowest = Math.max(slowest, result.elapsedMs, alone.elapsedMs);
  inProcess.push(result.equivalent);
  answersOnly.n += 1;
  if (alone.equivalent === pair.equivalent) answersOnly.agree += 1;
  else if (alone.equivalent) answersOnly.falseEqual += 1;
  else answersOnly.missedEqual += 1;
  const mv = mathVerify.get(pair.id)!;
  for (const key of [pair.subset, "all"]) {
    count(ours, key, result.equivalent, pair.equivalent);
    count(theirs, key, mv, pair.equivalent);
  }
  if (result.equivalent !== pair.equivalent) {
    disagreements.push(
      JSON.stringify({ id: pair.id, truth: pair.equivalent, mathVerify: mv, gold: pair.gold, goldExtracted: result.gold.extracted, predExtracted: result.pred.extracted, reason: result.reason, reading: result.reading ?? null, rule: result.pred.rule }),
    );
  }
}
// For whoever studies the misses: every disagreement, one JSON line each (not part of the report).
if (process.env.STEPWISER_GRADING_REAL_DISAGREEMENTS) writeFileSync(process.env.STEPWISER_GRADING_REAL_DISAGREEMENTS, `${disagreements.join("\n")}\n`);

// The same pairs through the command line's contract, `stepwiser grade --jsonl` with each line's problem.
const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-grading-real-"));
let contractDiffers = -1;
try {
  const file = path.join(scratch, "pairs.jsonl");
  writeFileSync(file, pairs.map((p) => JSON.stringify({ gold: p.gold, pred: p.pred, problem: p.problem })).join("\n") + "\n");
  const run = spawnSync("corepack", ["pnpm", "--silent", "stepwiser", "grade", "--jsonl", file], { cwd: root, encoding: "utf8", maxBuffer: 256 * 2 ** 20 });
  if (run.status !== 0) throw new Error(`stepwiser grade --jsonl failed (${run.status}): ${run.stderr.slice(0, 2000)}`);
  const verdicts = run.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { equivalent: boolean }).equivalent);
  if (verdicts.length !== pairs.length) throw new Error(`stepwiser grade --jsonl printed ${verdicts.length} answers for ${pairs.length} pairs`);
  contractDiffers = verdicts.filter((v, i) => v !== inProcess[i]).length;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const pct = (t: Tally) => `${((100 * t.agree) / t.n).toFixed(1)} %`;
const rows = ["all", "gsm8k", "math", "olympiadbench"].flatMap((key) => {
  const o = ours.get(key)!;
  const m = theirs.get(key)!;
  return [
    { metric: `${key} (${o.n} pairs): agreement, this grader / Math-Verify`, value: `${pct(o)} / ${pct(m)}` },
    { metric: `${key}: false "equal", this grader / Math-Verify`, value: `${o.falseEqual} / ${m.falseEqual}` },
    { metric: `${key}: missed "equal", this grader / Math-Verify`, value: `${o.missedEqual} / ${m.missedEqual}` },
  ];
});
const all = ours.get("all")!;
writeBenchmarkReport({
  name: "grading-real",
  title: "Answer grading on real model solutions, beside Math-Verify",
  method:
    `Every ProcessBench solution of the GSM8K, MATH and OlympiadBench subsets whose problem matches a public reference answer (${pairs.length} of 2,400; corpus/build-grading-real.py names each source and commit), the whole solution graded against the reference with the default (lenient) settings of \`stepwiser grade\`, 2 s per pair, each line with its problem's text (\`problem\`) and, for the last rows, without it. ` +
    "The truth is ProcessBench's own `final_answer_correct` flag. Math-Verify 5d148cf (latex2sympy2_extended 02999f5, sympy 1.14) graded the same pairs from its source with its defaults, `verify(parse('$' + gold + '$'), parse(solution))` (corpus/run-math-verify.py). " +
    "The same lines, with their problems, are then graded by the command line itself (`stepwiser grade --jsonl`, its default 2 threads) and its verdicts compared with the in-process ones.",
  limits:
    "ProcessBench's flag was itself set by a grader and human review and has a few errors of its own (packages/core/test/grading/corpus/README.md lists some); a disagreement is not always the grader's fault. " +
    "The solutions come from a dozen open models of 2024 prompted their own way; other models, prompts and languages, Omni-MATH's answers, proofs and answers needing the problem's own definitions are not covered. " +
    "This corpus is also the one the grader's rules were developed against, so its agreement overstates agreement on unseen outputs.",
  rows: [
    ...rows,
    { metric: "slowest pair", value: `${Math.round(slowest)} ms`, target: "≤ the 2,000 ms per-pair limit", met: slowest <= 2100 },
    { metric: "agreement, all subsets", value: pct(all), target: "≥ 98.0 % with ≤ 11 false \"equal\"", met: all.agree / all.n >= 0.98 && all.falseEqual <= 11 },
    {
      metric: "`stepwiser grade --jsonl` (with `problem`): verdicts differing from the in-process grader",
      value: String(contractDiffers),
      target: "0",
      met: contractDiffers === 0,
    },
    {
      metric: "agreement, all subsets, answers alone (no `problem` given)",
      value: `${pct(answersOnly)} (${answersOnly.falseEqual} false / ${answersOnly.missedEqual} missed "equal")`,
      target: "≥ 98.0 % with ≤ 11 false \"equal\"",
      met: answersOnly.agree / answersOnly.n >= 0.98 && answersOnly.falseEqual <= 11,
    },
  ],
});
