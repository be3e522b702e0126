import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRng, EXTRACTION_MODES, gradeAnswer, warmUpCas, type ExtractionMode } from "@stepwiser/core";
import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";

/**
 * Which extraction mode model rollouts should be graded in. A rollout cut off
 * by its token limit has not stated an answer; graded leniently, its last
 * number may equal the gold answer by accident ("… = 20" when the answer is
 * 20), and the rollout counts as a success it never was. Measured on real
 * model solutions: the 280 ProcessBench solutions of the grading corpus
 * (`corpus/real-outputs.jsonl`, whole solutions from the seed files, with
 * their problems' reference answers and ProcessBench's correctness flags).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface RealPair {
  gold: string;
  equivalent: boolean;
  source: string;
}
interface SeedRecord {
  id: string;
  steps: string[];
  final_answer_correct: boolean;
}

const pairs = readFileSync(path.join(root, "packages/core/test/grading/corpus/real-outputs.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as RealPair);
const seeds = new Map<string, SeedRecord>();
for (const file of ["gsm8k.json", "math.json"]) {
  for (const record of JSON.parse(readFileSync(path.join(root, "packages/db/seed/processbench", file), "utf8")) as SeedRecord[]) seeds.set(record.id, record);
}
const solutions = pairs.map((pair) => {
  const id = /ProcessBench \S+ (\S+)/.exec(pair.source)?.[1];
  const record = id ? seeds.get(id) : undefined;
  if (!record) throw new Error(`no seed record for ${pair.source}`);
  return { gold: pair.gold, correct: record.final_answer_correct, steps: record.steps };
});

/** Seeded random cuts per solution; the cuts after the gold value and the whole solutions are all graded in both profiles. */
const CUTS_PER_SOLUTION = atProfile({ full: 4, quick: 1 });
const rng = createRng(20261126);
/** Cut-off texts: seeded random cuts, and cuts right after the gold value is written, both before the final paragraph. */
const random: Array<{ gold: string; text: string }> = [];
const afterGold: Array<{ gold: string; text: string }> = [];
for (const { gold, steps } of solutions) {
  if (steps.length < 2) continue;
  const body = steps.slice(0, -1).join("\n\n");
  for (let k = 0; k < CUTS_PER_SOLUTION; k++) {
    const at = Math.max(1, Math.floor(body.length * (0.2 + 0.8 * rng.nextFloat())));
    random.push({ gold, text: body.slice(0, at) });
  }
  // "… = 20|": the cut lands right after the reference value, the accident the measurement is about.
  const value = gold.replace(/[{},\\$\s]|\\!/g, "");
  if (!/^-?\d+(?:\.\d+)?$/.test(value)) continue;
  const re = new RegExp(`(?<![\\d.])${value.replace(".", "\\.")}(?![\\d])`, "g");
  for (let m = re.exec(body); m; m = re.exec(body)) afterGold.push({ gold, text: body.slice(0, m.index + m[0].length) });
}

warmUpCas();
const share = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} % (${n} of ${of})`;
const measured = EXTRACTION_MODES.map((mode: ExtractionMode) => {
  const falseRandom = random.filter((c) => gradeAnswer(c.gold, c.text, { mode }).equivalent).length;
  const falseAfterGold = afterGold.filter((c) => gradeAnswer(c.gold, c.text, { mode }).equivalent).length;
  let agree = 0;
  let missed = 0;
  let correctFound = 0;
  for (const s of solutions) {
    const result = gradeAnswer(s.gold, s.steps.join("\n\n"), { mode });
    if (result.equivalent === s.correct) agree += 1;
    if (result.pred.extracted === null) missed += 1;
    if (s.correct && result.equivalent) correctFound += 1;
  }
  return { mode, falseRandom, falseAfterGold, agree, missed, correctFound };
});
const correctTotal = solutions.filter((s) => s.correct).length;
const boxed = measured.find((m) => m.mode === "boxed")!;
const lenient = measured.find((m) => m.mode === "lenient")!;

writeBenchmarkReport({
  name: "grading-truncation",
  title: "Grading cut-off rollouts: false equals by extraction mode",
  method:
    `The ${solutions.length} real model solutions of the grading corpus (ProcessBench gsm8k and math, ${correctTotal} with a correct final answer by ProcessBench's flag), each paired with its problem's reference answer. ` +
    `Cut-off rollouts are imitated by cutting each solution before its final paragraph: ${CUTS_PER_SOLUTION} seeded uniform cuts per solution (${random.length} texts), and a cut right after every place the reference value is written (${afterGold.length} texts, the "… = 20" accident). ` +
    "A cut-off text never stated a final answer, so every one graded equivalent is a false equal. The whole solutions, graded in each mode, show what each mode costs on complete output.",
  limits:
    "These solutions come from several models and prompts of their own; not all were asked to box their answer, so the boxed-mode recall on whole solutions is a lower bound for a policy prompted to box (the studio's policy prompt asks for \\boxed{}). Real rollouts are cut at a token limit, not at a character drawn uniformly; the after-gold cuts are the worst case, not the typical one. The simulated policy always boxes its answer and is not measured here.",
  rows: [
    { metric: "false equals, random cuts, lenient", value: share(lenient.falseRandom, random.length) },
    { metric: "false equals, random cuts, boxed", value: share(boxed.falseRandom, random.length) },
    { metric: "false equals, cut after the gold value, lenient", value: share(lenient.falseAfterGold, afterGold.length) },
    { metric: "false equals, cut after the gold value, boxed", value: share(boxed.falseAfterGold, afterGold.length) },
    { metric: "whole solutions: agreement with ProcessBench's flag, lenient", value: share(lenient.agree, solutions.length) },
    { metric: "whole solutions: agreement with ProcessBench's flag, boxed", value: share(boxed.agree, solutions.length) },
    { metric: "whole correct solutions graded correct, lenient", value: share(lenient.correctFound, correctTotal) },
    { metric: "whole correct solutions graded correct, boxed", value: share(boxed.correctFound, correctTotal) },
    { metric: "whole solutions with no answer found, boxed", value: share(boxed.missed, solutions.length) },
    {
      metric: "default mode for rollouts and generated solutions",
      value: "boxed",
      target: "fewer false equals on cut-off text than lenient",
      met: boxed.falseRandom + boxed.falseAfterGold < lenient.falseRandom + lenient.falseAfterGold,
    },
  ],
});
