import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";
import { startBenchEnvironment } from "./bench-environment";
import { bestOfNKind, chunkResetKind, createSimWorldDataset, executeRun, UNIT_RUN_KINDS } from "../src";

/** The judge at inference time on the simulated world: chunk-reset and best-of-N, per judge quality. */
const JUDGES = ["arith-checker", "sim-judge-weak", "sim-judge-medium", "sim-judge-strong", "sim-judge-correlated"];
/** Judges also run with votes: the same noise, with and without systematic errors. */
const VOTED = ["sim-judge-medium", "sim-judge-correlated"];
const VOTES = 5;
const voted = (judge: string) => `${judge}, ${VOTES} votes at temperature 1`;
/** World problems decoded with chunk-reset; problems and candidates per problem of best-of-N. */
const RESET_PROBLEMS = atProfile({ full: 300, quick: 30 });
const BON_PROBLEMS = atProfile({ full: 200, quick: 16 });
const BON_CANDIDATES = 8;

/** What the simulated judges know and how their errors arise; shared by both pages. */
const JUDGES_LIMITS =
  "The simulated judges know the world's truth for every chunk (`truthOfSolution`: whether the step applies the problem's next operation to the true running value and gets the true result). sim-judge-strong, -medium and -weak hide it behind independent noise only: each prompt and each sample draws its own error (at temperature 0 one fixed draw per prompt), so a regenerated chunk, being a new prompt, gets a fresh draw, and votes and retries average the errors out. sim-judge-correlated has medium's noise plus two systematic errors, the same on every sample, vote and retry: it calls every step that correctly continues from an earlier wrong value Positive and every right recheck Negative, so once a mistake gets past it, it accepts the steps built on it and rejects the recheck that would fix it. The arith-checker is deterministic and checks only that each equation holds, so it is systematically blind to wrong inputs and wrong operations. The policy's mistakes are simulated too (small off-by results and confused operations, drawn independently of any judge).";

/** Makes `judge`'s rows, plus the voted run's for the judges in VOTED. */
async function perJudge<T>(each: (judge: string, votes: number) => Promise<T>, row: (result: T) => string) {
  const rows = [];
  for (const judge of JUDGES) {
    rows.push({ metric: judge, value: row(await each(judge, 1)) });
    if (VOTED.includes(judge)) rows.push({ metric: voted(judge), value: row(await each(judge, VOTES)) });
  }
  return rows;
}
const env = await startBenchEnvironment({ "sim-policy": { errorRate: 0.25 } });
const { db, cluster, endpoints } = env;

async function run(kind: "chunk_reset" | "best_of_n", config: object) {
  const handler = kind === "chunk_reset" ? chunkResetKind : bestOfNKind;
  const parsed = handler.submitSchema.parse(config);
  const snapshot = await (handler.snapshot as (d: typeof db, c: typeof parsed) => Promise<object>)(db, parsed);
  const created = await db.run.create({ data: { kind, config: snapshot, datasetId: (parsed as { datasetId: string }).datasetId } });
  await executeRun(db, created.id, UNIT_RUN_KINDS, { endpoints });
  const done = await db.run.findUniqueOrThrow({ where: { id: created.id } });
  if (done.status !== "completed") throw new Error(`${kind} ended ${done.status}: ${done.error}`);
  return done.summary as Record<string, unknown>;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

try {
  for (const model of ["sim-policy", ...JUDGES]) {
    await db.endpoint.create({ data: { name: model, model, role: model === "sim-policy" ? "policy" : "judge", baseUrls: [...cluster.urls], maxConcurrency: 256 } });
  }
  const problems = await createSimWorldDataset(db, { name: "reset", problems: RESET_PROBLEMS, seed: 7000, errorRate: 0.25 });
  const resetRows = await perJudge(
    async (judge, votes) =>
      (await run("chunk_reset", { datasetId: problems.datasetId, policyEndpoint: "sim-policy", judgeEndpoint: judge, judgeSamples: votes, seed: 1, concurrency: 64 })) as {
        accuracy: { chunkReset: number; plain: number };
        tokens: { accepted: number; rejected: number; plain: number };
        resetsPerProblem: number;
      },
    (summary) =>
      `plain ${pct(summary.accuracy.plain)} → chunk-reset ${pct(summary.accuracy.chunkReset)} · tokens accepted ${summary.tokens.accepted}, rejected ${summary.tokens.rejected} (plain ${summary.tokens.plain}) · ${summary.resetsPerProblem.toFixed(2)} resets/problem`,
  );
  writeBenchmarkReport({
    name: "chunk-reset",
    bench: "inference-time",
    title: "Chunk-reset decoding on the simulated world",
    method: `${RESET_PROBLEMS} world problems; sim-policy with a 25 % step error rate writes chunk by chunk (stop \`</chunk>\`); the judge checks each chunk (one greedy verdict, or ${VOTES} samples at temperature 1 where the row says votes, kept when more than half accept it) and a rejected one is regenerated from the same prefix, up to 5 attempts (keep the last). Plain sampling uses the same first-attempt seeds without a judge. Accuracy is the share of final answers equal to the reference.`,
    limits: `${JUDGES_LIMITS} So the gap between sim-judge-medium and sim-judge-correlated (same accuracy on every other chunk) is what two systematic blind spots cost chunk-reset here, and the voted rows show what votes can and cannot repair. The numbers show how this decoding turns a judge's per-chunk errors into final accuracy when those errors are of the kinds simulated; they do not predict the gain with a real judge or policy, whose errors are correlated with one another in ways no setting here models (a real judge that misses the mistake a policy makes most often misses it on every retry).`,
    rows: resetRows,
  });

  const candidates = await createSimWorldDataset(db, { name: "bon", problems: BON_PROBLEMS, solutionsPerProblem: BON_CANDIDATES, seed: 9000, errorRate: 0.25 });
  const bonRows = await perJudge(
    async (judge, votes) =>
      (await run("best_of_n", { datasetId: candidates.datasetId, judgeEndpoint: judge, samples: votes, temperature: votes > 1 ? 1 : 0, seed: 1, concurrency: 64 })) as { accuracy: Record<string, number> },
    ({ accuracy: a }) => `mean ${pct(a.mean!)} · min ${pct(a.min!)} · last ${pct(a.last!)} · majority vote ${pct(a.majority!)} · random ${pct(a.random!)} · oracle ${pct(a.oracle!)}`,
  );
  writeBenchmarkReport({
    name: "best-of-n",
    bench: "inference-time",
    title: "Best-of-N selection on the simulated world",
    method: `${BON_PROBLEMS} world problems × ${BON_CANDIDATES} sim-policy solutions (25 % step error rate). The judge scores every chunk (one greedy verdict, or the share of Positive among ${VOTES} samples at temperature 1 where the row says votes); a solution's score aggregates its chunk scores (mean, min or last) and the best-scored solution is picked. Compared with majority vote over the final answers, a seeded random pick, and the oracle (any solution correct); these three do not use the judge.`,
    limits: `${JUDGES_LIMITS} The ${BON_CANDIDATES} candidates of a problem are independent samples of that policy, so a judge's systematic error hurts only the candidates that contain the kind of chunk it misjudges (here: a recheck, or steps after an uncaught mistake). The gap between sim-judge-medium and sim-judge-correlated is what those blind spots cost the selection here, and the voted rows show what votes can and cannot repair. The numbers cannot say how a real judge ranks real solutions, whose errors share causes with the policy's (the same misreading of a problem in several candidates) and with one another in ways not modelled here.`,
    rows: bonRows,
  });
} finally {
  await env.close();
}
