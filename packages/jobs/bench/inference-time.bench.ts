import path from "node:path";
import { writeBenchmarkReport } from "@stepwiser/config/bench";
import { startBenchEnvironment } from "./bench-environment";
import { bestOfNHandler, chunkResetHandler, createSimWorldDataset, executeRun, RUN_HANDLERS } from "../src";

/** The judge at inference time on the simulated world: chunk-reset and best-of-N, per judge quality. */
const JUDGES = ["arith-checker", "sim-judge-weak", "sim-judge-medium", "sim-judge-strong"];
const env = await startBenchEnvironment({ "sim-policy": { errorRate: 0.25 } });
const { db, cluster, endpoints } = env;

async function run(kind: "chunk_reset" | "best_of_n", config: object) {
  const handler = kind === "chunk_reset" ? chunkResetHandler : bestOfNHandler;
  const parsed = handler.configSchema.parse(config);
  const snapshot = await (handler.snapshot as (d: typeof db, c: typeof parsed) => Promise<object>)(db, parsed);
  const created = await db.run.create({ data: { kind, config: snapshot, datasetId: (parsed as { datasetId: string }).datasetId } });
  await executeRun(db, created.id, RUN_HANDLERS, { endpoints });
  const done = await db.run.findUniqueOrThrow({ where: { id: created.id } });
  if (done.status !== "completed") throw new Error(`${kind} ended ${done.status}: ${done.error}`);
  return done.summary as Record<string, unknown>;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

try {
  for (const model of ["sim-policy", ...JUDGES]) {
    await db.endpoint.create({ data: { name: model, model, role: model === "sim-policy" ? "policy" : "judge", baseUrls: [...cluster.urls], maxConcurrency: 256 } });
  }
  const problems = await createSimWorldDataset(db, { name: "reset", problems: 300, seed: 7000, errorRate: 0.25 });
  const resetRows = [];
  for (const judge of JUDGES) {
    const summary = (await run("chunk_reset", { datasetId: problems.datasetId, policyEndpoint: "sim-policy", judgeEndpoint: judge, seed: 1, concurrency: 64 })) as {
      accuracy: { chunkReset: number; plain: number };
      tokens: { accepted: number; rejected: number; plain: number };
      resetsPerProblem: number;
    };
    resetRows.push({
      metric: judge,
      value: `plain ${pct(summary.accuracy.plain)} → chunk-reset ${pct(summary.accuracy.chunkReset)} · tokens accepted ${summary.tokens.accepted}, rejected ${summary.tokens.rejected} (plain ${summary.tokens.plain}) · ${summary.resetsPerProblem.toFixed(2)} resets/problem`,
    });
  }
  writeBenchmarkReport({
    name: "chunk-reset",
    bench: "inference-time",
    title: "Chunk-reset decoding on the simulated world",
    method:
      "300 world problems; sim-policy with a 25 % step error rate writes chunk by chunk (stop `</chunk>`); the judge checks each chunk and a rejected one is regenerated from the same prefix, up to 5 attempts (keep the last). Plain sampling uses the same first-attempt seeds without a judge. Accuracy is the share of final answers equal to the reference.",
    rows: resetRows,
  });

  const candidates = await createSimWorldDataset(db, { name: "bon", problems: 200, solutionsPerProblem: 8, seed: 9000, errorRate: 0.25 });
  const bonRows = [];
  for (const judge of JUDGES) {
    const summary = (await run("best_of_n", { datasetId: candidates.datasetId, judgeEndpoint: judge, seed: 1, concurrency: 64 })) as { accuracy: Record<string, number> };
    const a = summary.accuracy;
    bonRows.push({ metric: judge, value: `mean ${pct(a.mean!)} · min ${pct(a.min!)} · last ${pct(a.last!)} · majority vote ${pct(a.majority!)} · random ${pct(a.random!)} · oracle ${pct(a.oracle!)}` });
  }
  writeBenchmarkReport({
    name: "best-of-n",
    bench: "inference-time",
    title: "Best-of-N selection on the simulated world",
    method:
      "200 world problems × 8 sim-policy solutions (25 % step error rate). The judge scores every chunk; a solution's score aggregates its chunk scores (mean, min or last) and the best-scored solution is picked. Compared with majority vote over the final answers, a seeded random pick, and the oracle (any solution correct).",
    rows: bonRows,
  });
} finally {
  await env.close();
}
