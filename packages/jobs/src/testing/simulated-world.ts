import { createDb, type Db } from "@stepwiser/db";
import { createDatabaseFromBuiltTemplate, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster } from "@stepwiser/inference/sim";
import { createSimWorldDataset } from "../sim-world/create-dataset";
import { EndpointClients } from "../inference/endpoint-clients";
import { createAndExecuteRun } from "../submit-run";

/**
 * One finished simulated world, built once per test run through the real pipeline
 * (the simulated cluster over HTTP, the run engine, the stores) and kept as a
 * template database that test files clone (`createWorldDatabase`). It is for the
 * many tests that only read finished runs: they clone it in a few hundred
 * milliseconds instead of each running its own annotate and judge runs.
 * A test that launches runs, or needs its own sizes, makes its own world.
 */
export interface SimulatedWorld {
  datasetId: string;
  /** Problems in the dataset; each has SOLUTIONS_PER_PROBLEM sim-policy solutions with their true first error. */
  problems: number;
  solutions: number;
  runs: {
    /** Monte-Carlo labels: sim-policy, M = 4 rollouts per prefix, seed 2. */
    annotate: string;
    /** sim-judge-strong, K = 2 samples at temperature 1. */
    judgeStrong: string;
    /** sim-judge-weak, K = 3 samples at temperature 1. */
    judgeWeak: string;
    /** sim-judge-medium, K = 1 (greedy). */
    judgeMedium: string;
    /** ProcessBench scoring of sim-judge-weak on the self-segmented chunks, 200 bootstrap resamples, seed 1. */
    benchmark: string;
  };
  /** The endpoints the runs used (their URLs pointed at a cluster that no longer runs). */
  endpoints: { policy: "sim-policy"; judges: ["sim-judge-strong", "sim-judge-weak", "sim-judge-medium"] };
}

export const WORLD_PROBLEMS = 12;

/** Builds the world in the (empty, migrated) database at `url`. */
export async function buildSimulatedWorld(url: string): Promise<SimulatedWorld> {
  const db: Db = createDb(url, { poolSize: 5 });
  const cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
  const endpoints = new EndpointClients();
  try {
    for (const [name, role] of [["sim-policy", "policy"], ["sim-judge-strong", "judge"], ["sim-judge-weak", "judge"], ["sim-judge-medium", "judge"]] as const) {
      await db.endpoint.create({ data: { name, model: name, role, baseUrls: [...cluster.urls], maxConcurrency: 32 } });
    }
    const { datasetId, solutions } = await createSimWorldDataset(db, { name: "simulated world", problems: WORLD_PROBLEMS, seed: 31, errorRate: 0.5 });
    const launch = async (kind: "annotate" | "judge" | "benchmark", config: object) =>
      (await createAndExecuteRun(db, { kind, config: { datasetId, ...config } }, { endpoints })).id;
    const runs = {
      annotate: await launch("annotate", { policyEndpoint: "sim-policy", rollouts: 4, seed: 2 }),
      judgeStrong: await launch("judge", { judgeEndpoint: "sim-judge-strong", samples: 2, temperature: 1 }),
      judgeWeak: await launch("judge", { judgeEndpoint: "sim-judge-weak", samples: 3, temperature: 1 }),
      judgeMedium: await launch("judge", { judgeEndpoint: "sim-judge-medium", samples: 1 }),
      benchmark: await launch("benchmark", { judgeEndpoint: "sim-judge-weak", samples: 1, temperature: 1, segmentationMethod: "self-segmented", bootstrap: { resamples: 200, seed: 1 } }),
    };
    const unfinished = await db.run.findMany({ where: { id: { in: Object.values(runs) }, status: { not: "completed" } }, select: { id: true, kind: true, status: true, error: true } });
    if (unfinished.length > 0) throw new Error(`the simulated world's runs did not all complete: ${JSON.stringify(unfinished)}`);
    return { datasetId, problems: WORLD_PROBLEMS, solutions, runs, endpoints: { policy: "sim-policy", judges: ["sim-judge-strong", "sim-judge-weak", "sim-judge-medium"] } };
  } finally {
    await endpoints.close();
    await cluster.stop();
    await db.$disconnect();
  }
}

/** The template database that holds the world on the test run's server. */
export const WORLD_TEMPLATE_DATABASE = "stepwiser_world";

/**
 * A fresh copy of the finished simulated world, and what it holds. The first test
 * file that asks builds it; every later one clones it (see `createDatabaseFromBuiltTemplate`).
 */
export async function createWorldDatabase(adminUrl: string): Promise<TestDatabase & { world: SimulatedWorld }> {
  const { description, ...database } = await createDatabaseFromBuiltTemplate(adminUrl, WORLD_TEMPLATE_DATABASE, buildSimulatedWorld);
  return { ...database, world: description };
}
