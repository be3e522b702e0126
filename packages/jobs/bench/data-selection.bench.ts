import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";
import { bootstrapCI, clusterBootstrapMeanCI, pairedBootstrapCI, SOLUTION_AGGREGATIONS, type BootstrapInterval, type SolutionAggregation } from "@stepwiser/core";
import { parseWorldChunk } from "@stepwiser/inference/sim";
import { startBenchEnvironment } from "./bench-environment";
import { createSimWorldDataset, executeRun, judgeKind, OTHER_RUNS, UNIT_RUN_KINDS } from "../src";
import { selectionExportSchema } from "../src/kinds/export/sft/options";
import { selectionRows, type SelectionResult } from "../src/kinds/export/sft/selection";

/**
 * Stepwise data selection (paper §4.4, Table 8) on the simulated world: among a problem's
 * responses with a correct final answer, the judge's best (selectionRows) vs a random one
 * (the outcome-only baseline). Measured: the share of kept responses that contain a true
 * error (the world's first error index is not -1), per judge, over the same problems.
 */
const PROBLEMS = atProfile({ full: 300, quick: 20 });
const SOLUTIONS_PER_PROBLEM = atProfile({ full: 8, quick: 4 });
const ERROR_RATE = 0.25;
const RECOVERY_RATE = 0.1;
const VOTES = 5;
/** One greedy verdict per chunk, plus medium with votes. */
const JUDGES: Array<{ endpoint: string; samples: number }> = [
  { endpoint: "sim-judge-strong", samples: 1 },
  { endpoint: "sim-judge-medium", samples: 1 },
  { endpoint: "sim-judge-medium", samples: VOTES },
  { endpoint: "sim-judge-correlated", samples: 1 },
];
const judgeName = ({ endpoint, samples }: { endpoint: string; samples: number }) => (samples > 1 ? `${endpoint}, ${samples} votes at temperature 1` : endpoint);
const SELECTION_SEED = 0;
const RESAMPLES = 2000;

const env = await startBenchEnvironment({ "sim-policy": { errorRate: ERROR_RATE } });
const { db, cluster, endpoints } = env;

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const pp = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} pp`;
const withInterval = (i: BootstrapInterval, format: (x: number) => string) => `${format(i.estimate)} [${format(i.lower)}, ${format(i.upper)}]`;
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);

async function judgeRun(datasetId: string, endpoint: string, samples: number): Promise<string> {
  const config = judgeKind.submitSchema.parse({
    datasetId,
    segmentationMethod: "self-segmented",
    judgeEndpoint: endpoint,
    samples,
    temperature: samples > 1 ? 1 : 0,
    stopAtFirstNegative: false,
    seed: 1,
    concurrency: 64,
  });
  const created = await db.run.create({ data: { kind: "judge", config: (await judgeKind.snapshot(db, config)) as object, datasetId } });
  await executeRun(db, created.id, UNIT_RUN_KINDS, { endpoints });
  const done = await db.run.findUniqueOrThrow({ where: { id: created.id } });
  if (done.status !== "completed") throw new Error(`judge run with ${endpoint} ended ${done.status}: ${done.error}`);
  return created.id;
}

const select = (runId: string, aggregate: SolutionAggregation, baseline?: "outcome") =>
  selectionRows(db, selectionExportSchema.parse({ runId, aggregate, ...(baseline ? { baseline } : {}), seed: SELECTION_SEED, format: "chat-jsonl", heldOutFraction: 0 }), OTHER_RUNS);

const skipped = ({ counts: c }: SelectionResult) => `skipped ${c.noCorrectCandidate} without a correct response, ${c.noJudgedChunk} with no judged chunk, ${c.tagInText} with a tag in the text`;

try {
  for (const model of ["sim-policy", ...new Set(JUDGES.map((j) => j.endpoint))]) {
    await db.endpoint.create({ data: { name: model, model, role: model === "sim-policy" ? "policy" : "judge", baseUrls: [...cluster.urls], maxConcurrency: 256 } });
  }
  const started = performance.now();
  const { datasetId } = await createSimWorldDataset(db, {
    name: "data-selection",
    problems: PROBLEMS,
    solutionsPerProblem: SOLUTIONS_PER_PROBLEM,
    seed: 11_000,
    errorRate: ERROR_RATE,
    recoveryRate: RECOVERY_RATE,
  });

  // The world's truth, per solution: whether it contains a true error.
  const solutions = await db.solution.findMany({
    where: { datasetId },
    select: {
      id: true,
      problemId: true,
      finalAnswerCorrect: true,
      sourceFirstErrorIndex: true,
      segmentations: { where: { method: "self-segmented" }, select: { chunks: { orderBy: { index: "asc" }, select: { text: true } } } },
    },
  });
  const flawed = new Map<string, boolean>();
  for (const s of solutions) {
    if (s.sourceFirstErrorIndex === null) throw new Error(`solution ${s.id} has no true first error index; the sim world writes one for every solution`);
    flawed.set(s.id, s.sourceFirstErrorIndex !== -1);
  }
  const isFlawed = (solutionId: string) => {
    const value = flawed.get(solutionId);
    if (value === undefined) throw new Error(`selected solution ${solutionId} is not in the dataset`);
    return value ? 1 : 0;
  };
  const correctByProblem = new Map<string, number[]>();
  for (const s of solutions) {
    if (s.finalAnswerCorrect !== true) continue;
    correctByProblem.set(s.problemId, [...(correctByProblem.get(s.problemId) ?? []), isFlawed(s.id)]);
  }
  const correct = [...correctByProblem.values()].flat();
  const correctFlawed = correct.filter((f) => f === 1).length;
  // How this world's correct solutions come to contain an error, and what their last chunk is (for the Limits).
  const kinds = (s: (typeof solutions)[number]) => (s.segmentations[0]?.chunks ?? []).map((c) => parseWorldChunk(c.text)?.kind ?? "unparsed");
  const correctSolutions = solutions.filter((s) => s.finalAnswerCorrect === true);
  const flawedWithRecheck = correctSolutions.filter((s) => isFlawed(s.id) === 1 && kinds(s).includes("recovery")).length;
  const lastIsAnswer = correctSolutions.filter((s) => kinds(s).at(-1) === "answer").length;
  const choiceMatters = [...correctByProblem.values()].filter((fs) => fs.includes(0) && fs.includes(1)).length;
  const allFlawed = [...correctByProblem.values()].filter((fs) => !fs.includes(0)).length;
  if (correctFlawed === 0) {
    process.stderr.write("data-selection: WARNING the simulated world produced no correct solution containing a true error; selection cannot differ in error share\n");
  }
  const baseRate =
    correctByProblem.size > 0 ? clusterBootstrapMeanCI([...correctByProblem.values()], { seed: "data-selection|base-rate", resamples: RESAMPLES }) : null;
  // The best any selection could do: a clean correct response wherever the problem has one.
  const oracle = [...correctByProblem.values()].map((fs) => (fs.includes(0) ? 0 : 1));
  const oracleInterval = oracle.length > 0 ? bootstrapCI(oracle, mean, { seed: "data-selection|oracle", resamples: RESAMPLES }) : null;

  const rows = [
    {
      metric: "dataset",
      value: `${PROBLEMS} problems × ${SOLUTIONS_PER_PROBLEM} solutions; ${correct.length} of ${solutions.length} (${pct(correct.length / solutions.length)}) with a correct final answer; ${correctByProblem.size} problems with at least one`,
    },
    {
      metric: "correct solutions containing a true error (base rate)",
      value:
        correctFlawed === 0
          ? "**none**: the simulated world produced no correct solution with a true error, so no selection can change the error share"
          : `${correctFlawed} of ${correct.length}: ${withInterval(baseRate!, pct)} (interval over problems); ${flawedWithRecheck} of the ${correctFlawed} contain a recheck chunk`,
    },
    {
      metric: "problems where the choice matters",
      value: `${choiceMatters} of ${correctByProblem.size} have both a clean and a flawed correct solution; ${allFlawed} have only flawed ones`,
    },
    { metric: "oracle (a clean correct solution wherever one exists)", value: oracleInterval ? `${withInterval(oracleInterval, pct)} flawed` : "—" },
  ];

  for (const judge of JUDGES) {
    const name = judgeName(judge);
    process.stderr.write(`data-selection: judge run ${name}\n`);
    const runId = await judgeRun(datasetId, judge.endpoint, judge.samples);
    const outcome = await select(runId, "mean", "outcome");
    const outcomeFlaws = new Map(outcome.rows.map((r) => [r.problem_id, isFlawed(r.solution_id)]));
    const outcomeValues = [...outcomeFlaws.values()];
    const outcomeInterval = outcomeValues.length > 0 ? bootstrapCI(outcomeValues, mean, { seed: `data-selection|${name}|outcome`, resamples: RESAMPLES }) : null;
    rows.push({
      metric: `${name}: outcome-only (a random correct solution)`,
      value: `${outcomeInterval ? withInterval(outcomeInterval, pct) : "—"} flawed · ${outcome.counts.rows} problems selected of ${outcome.counts.problems}, ${skipped(outcome)}`,
    });
    for (const aggregate of SOLUTION_AGGREGATIONS) {
      const chosen = await select(runId, aggregate);
      const problems = chosen.rows.map((r) => r.problem_id);
      if (problems.length !== outcomeFlaws.size || problems.some((p) => !outcomeFlaws.has(p))) {
        throw new Error(`${name} ${aggregate}: selected ${problems.length} problems, the outcome baseline ${outcomeFlaws.size}; they should be the same problems`);
      }
      const judged = chosen.rows.map((r) => isFlawed(r.solution_id));
      const baseline = problems.map((p) => outcomeFlaws.get(p)!);
      const value =
        judged.length === 0
          ? `no problem selected · ${skipped(chosen)}`
          : (() => {
              const share = bootstrapCI(judged, mean, { seed: `data-selection|${name}|${aggregate}`, resamples: RESAMPLES });
              const difference = pairedBootstrapCI(judged, baseline, mean, { seed: `data-selection|${name}|${aggregate}|paired`, resamples: RESAMPLES });
              return `${withInterval(share, pct)} flawed · judge − outcome ${withInterval(difference, pp)} · ${chosen.counts.rows} problems selected of ${chosen.counts.problems}, ${skipped(chosen)}`;
            })();
      rows.push({ metric: `${name}: judge, ${aggregate}`, value });
    }
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`data-selection: ${seconds.toFixed(0)} s\n`);

  writeBenchmarkReport({
    name: "data-selection",
    title: "Stepwise data selection on the simulated world",
    method:
      `${PROBLEMS} world problems × ${SOLUTIONS_PER_PROBLEM} sim-policy solutions (${pct(ERROR_RATE)} step error rate, ${pct(RECOVERY_RATE)} recovery rate: from a wrong running value a step rechecks and gets back to the right one with that probability, so a solution can err and still reach the right answer). ` +
      `One judge run per judge on the "self-segmented" segmentations, every chunk judged (\`stopAtFirstNegative: false\`; one greedy verdict per chunk, or ${VOTES} samples at temperature 1 where the row says votes). ` +
      `Then the selection export's rule (\`selectionRows\`, paper §4.4, Table 8): per problem, among the solutions with a correct final answer, the one with the highest aggregate chunk score (mean, min or last; ties to the earliest), or with \`baseline: "outcome"\` a random one (seed ${SELECTION_SEED}, per problem), over the same problems. ` +
      `A kept solution is flawed when the world's true first error index (\`sourceFirstErrorIndex\`) is not -1: some chunk is wrong though the final answer is right. ` +
      `The table gives the share of kept solutions that are flawed, with a 95 % percentile bootstrap interval over problems (${RESAMPLES} resamples, seeded), and the paired difference judge − outcome on the same problems (negative: the judge keeps fewer flawed solutions). ` +
      `The base rate is the share of all correct solutions that are flawed (bootstrap over problems); the oracle keeps a clean correct solution wherever a problem has one, the floor any selection can reach. Wall time of the dataset, judge runs and selections: ${seconds.toFixed(0)} s.`,
    limits:
      "This measures the error share of the selected data, not the accuracy of a policy fine-tuned on it: no training happens here, so it says nothing directly about the paper's result (60.9 → 63.0, a trained policy's accuracy), only about one mechanism that could produce it. " +
      "The simulated judges know each chunk's truth and hide it behind independent noise (sim-judge-strong, -medium); sim-judge-correlated adds two systematic errors, the same on every sample: it calls every step that correctly continues from an earlier wrong value Positive and every right recheck Negative. Both blind spots bear on exactly the solutions measured here, the flawed correct ones, which erred and then rechecked: it passes the steps built on the mistake (hiding the flaw from the score) and fails the recheck (marking the solution down, for the wrong reason); its rows show which of the two wins. " +
      `The policy's mistakes are simulated too (small off-by results and confused operations, drawn independently of any judge), and in this world a wrong running value becomes right again only through an explicit recheck (${flawedWithRecheck} of the ${correctFlawed} flawed correct solutions here contain one); the last chunk is the answer chunk in ${lastIsAnswer} of the ${correctSolutions.length} correct solutions, and an answer chunk stating the right answer is right, so \`last\` carries no information about an earlier flaw beyond whatever the judge's errors on that one chunk happen to carry. ` +
      "Real correct-but-flawed responses (silent self-corrections, lucky guesses, wrong reasoning with a right answer) may be rarer or commoner than here, and a real judge's misses are likely correlated with exactly the flaws that still reach a right answer, which no setting here models.",
    rows,
  });
} finally {
  await env.close();
}
