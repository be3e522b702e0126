import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";

/**
 * `stepwiser grade --jsonl` on a short and a long file of pairs, timed end to
 * end as a user runs it (`corepack pnpm --silent stepwiser …`, process start-up
 * included), plus the slowest single pair of a pathological set against its
 * time limit.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const readCorpus = (files: readonly string[]) =>
  files.flatMap((file) =>
    readFileSync(path.join(root, "packages/core/test/grading", file), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { gold: string; pred: string }),
  );
/** The notation-family pairs this benchmark has always cycled: the target compares with earlier runs. */
const familyCorpus = readCorpus(["equivalence-corpus.jsonl"]);
/** The whole grading corpus, Math-Verify's cases and real final paragraphs included: harder, reported beside it. */
const fullCorpus = readCorpus(["equivalence-corpus.jsonl", "corpus/math-verify.jsonl", "corpus/real-outputs.jsonl"]);

// Half the predictions arrive as whole responses, as policy outputs do.
const pairsOf = (count: number, corpus = familyCorpus) =>
  Array.from({ length: count }, (_, i) => {
    const { gold, pred } = corpus[i % corpus.length]!;
    return i % 2 === 0 ? { gold, pred } : { gold, pred: `We work through the problem step by step.\n\nTherefore, the final answer is $\\boxed{${pred}}$.` };
  });
/** The short and the long file: the difference of their wall times cancels process start-up. */
const FEW_PAIRS = atProfile({ full: 1000, quick: 200 });
const MANY_PAIRS = atProfile({ full: 10_000, quick: 2_000 });
/** Copies of the pathological set graded in one file. */
const PATHOLOGICAL_COPIES = atProfile({ full: 5, quick: 1 });
const pairs = pairsOf(FEW_PAIRS);
const n = (value: number) => value.toLocaleString("en");

const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-bench-"));
function timeGrade(lines: object[], extra: string[]): { seconds: number; answers: Array<{ elapsed_ms: number; reason: string }> } {
  const file = path.join(scratch, "pairs.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
  const started = performance.now();
  const run = spawnSync("corepack", ["pnpm", "--silent", "stepwiser", "grade", "--jsonl", file, "--details", ...extra], { cwd: root, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`grade failed (${run.status}): ${run.stderr}`);
  return { seconds, answers: run.stdout.trim().split("\n").map((l) => JSON.parse(l)) };
}

try {
  const ordinary = timeGrade(pairs, []);
  const slowest = Math.max(...ordinary.answers.map((a) => a.elapsed_ms));
  const many = timeGrade(pairsOf(MANY_PAIRS), []);
  const endToEnd = MANY_PAIRS / many.seconds;
  // The difference between the two runs cancels process start-up: what a long file sustains.
  const sustained = (MANY_PAIRS - FEW_PAIRS) / (many.seconds - ordinary.seconds);
  const fullOrdinary = timeGrade(pairsOf(FEW_PAIRS, fullCorpus), []);
  const fullMany = timeGrade(pairsOf(MANY_PAIRS, fullCorpus), []);
  const fullSustained = (MANY_PAIRS - FEW_PAIRS) / (fullMany.seconds - fullOrdinary.seconds);
  const fullSlowest = Math.max(...fullOrdinary.answers.map((a) => a.elapsed_ms), ...fullMany.answers.map((a) => a.elapsed_ms));

  const limit = 1000;
  const pathological = [
    { gold: "10^{10^{10^{10}}}", pred: "10^{10^{10^{10}}}+1" },
    { gold: "5", pred: "\\sum_{k=1}^{10^9} k" },
    { gold: "7", pred: "\\prod_{k=1}^{10^7} k" },
    { gold: "(10^{100})!", pred: "(10^{100})!+1" },
    { gold: "1", pred: Array.from({ length: 5000 }, (_, i) => `${i}x^{${i}}`).join("+") },
    { gold: "2", pred: `${"\\frac{1}{".repeat(300)}2${"}".repeat(300)}` },
    { gold: "2^{2^{2^{2^{2}}}}", pred: "2^{65536}" },
  ];
  const hard = timeGrade(Array.from({ length: PATHOLOGICAL_COPIES }, () => pathological).flat(), ["--time-limit-ms", String(limit)]);
  const hardSlowest = Math.max(...hard.answers.map((a) => a.elapsed_ms));

  writeBenchmarkReport({
    name: "grade-jsonl",
    title: "Answer grading: `stepwiser grade --jsonl`",
    method:
      `${n(FEW_PAIRS)} pairs cycled from the notation-family corpus (\`packages/core/test/grading/equivalence-corpus.jsonl\`, ${familyCorpus.length} pairs, the mix earlier runs of this benchmark used), every second prediction wrapped in a whole response, graded by the real command line on 2 worker threads, and the same for ${n(MANY_PAIRS)} pairs; wall time includes process start-up. The same again with the whole grading corpus (${fullCorpus.length} pairs: ours, Math-Verify's test cases and real ProcessBench final paragraphs). Then ${PATHOLOGICAL_COPIES * pathological.length} pathological pairs (exponent towers, a billion-term sum, huge factorials, a 5,000-term polynomial, 300 nested fractions) under a ${n(limit)} ms per-pair limit.`,
    limits:
      "Cycling a corpus repeats each pair many times, so the mix is the corpus's, not a real run's: real rollouts are mostly boxed integers, cheaper than either mix; the whole corpus is CAS-heavier (equations, relations, matrices) than the family corpus. The machine's two cores are shared by the two grading threads and the command's main thread, and repeated runs vary by about ±10 %. Elapsed time per pair is measured inside the grading thread; the hard limit is enforced by the pool on the wall clock.",
    rows: [
      { metric: `${n(FEW_PAIRS)} pairs, wall time`, value: `${ordinary.seconds.toFixed(2)} s`, target: "< 10 s", met: ordinary.seconds < 10 },
      { metric: `${n(MANY_PAIRS)} pairs, wall time`, value: `${many.seconds.toFixed(2)} s` },
      { metric: "answer-equivalence pairs/s", value: `${endToEnd.toFixed(0)} end to end (${n(MANY_PAIRS)} pairs) · ${sustained.toFixed(0)} sustained (${n(FEW_PAIRS)} → ${n(MANY_PAIRS)}, start-up cancelled)`, target: "≥ 2,000 sustained", met: sustained >= 2000 },
      { metric: "slowest ordinary pair", value: `${slowest.toFixed(1)} ms`, target: "≤ 200 ms", met: slowest <= 200 },
      { metric: "whole corpus: pairs/s", value: `${(MANY_PAIRS / fullMany.seconds).toFixed(0)} end to end (${n(MANY_PAIRS)} pairs) · ${fullSustained.toFixed(0)} sustained` },
      { metric: "whole corpus: slowest pair", value: `${fullSlowest.toFixed(1)} ms`, target: "≤ 200 ms", met: fullSlowest <= 200 },
      { metric: "pathological pairs, wall time", value: `${hard.seconds.toFixed(2)} s` },
      { metric: "slowest pathological pair", value: `${hardSlowest.toFixed(1)} ms`, target: `≤ ${limit} ms (limit)`, met: hardSlowest <= limit },
      { metric: "pathological outcomes", value: Object.entries(hard.answers.reduce<Record<string, number>>((acc, a) => ({ ...acc, [a.reason]: (acc[a.reason] ?? 0) + 1 }), {})).map(([k, v]) => `${k} ${v}`).join(", ") },
    ],
  });
  console.log(`grade-jsonl: ${endToEnd.toFixed(0)} pairs/s end to end, ${sustained.toFixed(0)} sustained, worst ordinary ${slowest.toFixed(0)} ms, worst pathological ${hardSlowest.toFixed(0)} ms of ${limit} ms${process.exitCode ? " — target missed" : " — all targets met"}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
