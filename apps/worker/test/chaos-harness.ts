import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRng } from "@stepwiser/core";
import type { Db, Run } from "@stepwiser/db";
import type { SimCluster, SimFaultKind } from "@stepwiser/inference/sim";
import { isTerminal } from "@stepwiser/jobs";
import { expect } from "vitest";

/**
 * What the fault suites share: worker processes started and killed like in a
 * deployment, waits on run state, seeded randomness, exact row accounting and
 * the one-line summary each suite prints.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Queue, lease and slot settings short enough that a killed worker's job, units
 * and endpoint slots come back within seconds; every worker and the submitting
 * side read them from the environment, as in a deployment.
 */
export const FAST_RECOVERY_ENV: Record<string, string> = {
  STEPWISER_JOB_EXPIRE_SECONDS: "2",
  STEPWISER_QUEUE_MAINTENANCE_SECONDS: "1",
  STEPWISER_QUEUE_POLL_SECONDS: "0.5",
  STEPWISER_JOB_RETRY_LIMIT: "100",
  STEPWISER_UNIT_LEASE_SECONDS: "3",
  STEPWISER_CAPACITY_LEASE_SECONDS: "2",
  STEPWISER_CAPACITY_REBALANCE_MS: "200",
  STEPWISER_WORKER_HEARTBEAT_SECONDS: "1",
};

/** The suite's seed: CHAOS_SEED when set (to replay a failure), else the given default. */
export function chaosSeed(fallback: number): number {
  const raw = process.env.CHAOS_SEED;
  if (raw === undefined || raw === "") return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`CHAOS_SEED must be an integer, got "${raw}"`);
  return seed;
}

/** Uniform draws in [0, 1) from the project's seeded generator. */
export function seededUniform(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.nextFloat();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}

export async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}

export async function waitForRunEnd(db: Db, runId: string, timeoutMs: number): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (isTerminal(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`${run.kind} run ${runId} still ${run.status} (${run.unitsDone}/${run.unitsTotal} units) after ${timeoutMs} ms`);
    await sleep(200);
  }
}

export interface WorkerProcess {
  /** Its STEPWISER_WORKER_ID: the prefix of every unit claim it makes. */
  id: string;
  child: ChildProcess;
}

/** Writes the child's JSON log lines at level error or fatal to stderr, and drops the rest. */
function forwardErrors(child: ChildProcess): void {
  let pending = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      try {
        const { level } = JSON.parse(line) as { level?: unknown };
        if (level === "error" || level === "fatal") process.stderr.write(`${line}\n`);
      } catch {
        process.stderr.write(`${line}\n`); // not a log line: shown as it is
      }
    }
  });
}

/** Worker processes (apps/worker/src/main.ts) on one database; every one is killed at the end. */
export class WorkerFleet {
  private readonly started: WorkerProcess[] = [];

  constructor(
    private readonly databaseUrl: string,
    private readonly env: Record<string, string>,
  ) {}

  start(id: string): WorkerProcess {
    const everything = process.env.CHAOS_WORKER_LOGS === "1";
    const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
      cwd: repoRoot,
      // CHAOS_WORKER_LOGS=1 shows the workers' own logs, to see what a failing suite's workers did; otherwise only
      // their errors are shown, as they were when workers wrote them to stderr.
      stdio: ["ignore", everything ? "inherit" : "pipe", "inherit"],
      env: { ...process.env, ...this.env, STEPWISER_WORKER_ID: id, DATABASE_URL: this.databaseUrl, ...(everything ? {} : { STEPWISER_LOG_FORMAT: "json" }) },
    });
    if (!everything) forwardErrors(child);
    const worker = { id, child };
    this.started.push(worker);
    return worker;
  }

  async kill(worker: WorkerProcess): Promise<void> {
    worker.child.kill("SIGKILL");
    await exited(worker.child);
  }

  async killAll(): Promise<void> {
    for (const { child } of this.started) child.kill("SIGKILL");
    await Promise.all(this.started.map(({ child }) => exited(child)));
  }
}

/** Whether the worker holds a claimed unit of the run (it is inside the run's work, not starting up). */
export async function isWorkingOn(db: Db, runId: string, worker: WorkerProcess): Promise<boolean> {
  const held = await db.runUnit.count({ where: { runId, claimedBy: { startsWith: `${worker.id}/` } } });
  return held > 0;
}

/**
 * Stored rows against what the run's configuration implies. `stored` counts
 * rows, `distinct` counts their unique keys: lost = expected − distinct,
 * duplicated = stored − distinct.
 */
export class RowLedger {
  private readonly entries: Array<{ what: string; expected: number; stored: number; distinct: number }> = [];

  record(what: string, expected: number, stored: number, distinct: number): void {
    this.entries.push({ what, expected, stored, distinct });
  }

  get lost(): number {
    return this.entries.reduce((sum, e) => sum + Math.max(0, e.expected - e.distinct), 0);
  }

  get duplicated(): number {
    return this.entries.reduce((sum, e) => sum + (e.stored - e.distinct) + Math.max(0, e.distinct - e.expected), 0);
  }

  get rows(): number {
    return this.entries.reduce((sum, e) => sum + e.stored, 0);
  }

  /** Every recorded table holds exactly the expected rows, once each. */
  expectExact(): void {
    const actual = this.entries.map((e) => `${e.what}: ${e.stored} stored, ${e.distinct} distinct`);
    const wanted = this.entries.map((e) => `${e.what}: ${e.expected} stored, ${e.expected} distinct`);
    expect(actual).toEqual(wanted);
  }
}

/**
 * An annotate run's rows, into the ledger: one rollout per (prefix, sample),
 * one value per prefix (each chunk's and the empty one of each solution), one
 * label per chunk and rule.
 */
export async function recordAnnotateRows(
  db: Db,
  ledger: RowLedger,
  runId: string,
  expected: { chunks: number; solutions: number; rollouts: number },
): Promise<void> {
  const { chunks, solutions, rollouts: perPrefix } = expected;
  const rollouts = await db.rollout.findMany({ where: { runId }, select: { segmentationId: true, prefixLength: true, sampleIndex: true } });
  ledger.record("rollouts", chunks * perPrefix, rollouts.length, new Set(rollouts.map((r) => `${r.segmentationId}:${r.prefixLength}:${r.sampleIndex}`)).size);
  const values = await db.chunkValue.findMany({ where: { runId }, select: { segmentationId: true, prefixLength: true } });
  ledger.record("chunk values", chunks + solutions, values.length, new Set(values.map((v) => `${v.segmentationId}:${v.prefixLength}`)).size);
  const labels = await db.chunkLabel.findMany({ where: { runId }, select: { chunkId: true, rule: true, paramsKey: true } });
  ledger.record("labels", chunks * 3, labels.length, new Set(labels.map((l) => `${l.chunkId}:${l.rule}:${l.paramsKey}`)).size);
}

/** Injected faults by kind, summed over the cluster's replicas. */
export function injectedFaults(cluster: SimCluster): Record<SimFaultKind, number> {
  const total = {} as Record<SimFaultKind, number>;
  for (const replica of cluster.replicas) {
    for (const [kind, count] of Object.entries(replica.metrics().faults) as Array<[SimFaultKind, number]>) total[kind] = (total[kind] ?? 0) + count;
  }
  return total;
}

export interface ChaosSummary {
  suite: string;
  seed?: number;
  faults?: Partial<Record<SimFaultKind, number>>;
  kills: number;
  restarts?: number;
  runsCompleted: number;
  ledger: RowLedger;
  extra?: string;
}

/** The suite's one line on stderr, read by people scanning CI output. */
export function printChaosSummary(summary: ChaosSummary): void {
  const faults = summary.faults && Object.keys(summary.faults).length > 0
    ? Object.entries(summary.faults).map(([kind, n]) => `${kind} ${n}`).join(", ")
    : "none";
  const parts = [
    ...(summary.seed !== undefined ? [`seed ${summary.seed}`] : []),
    `faults injected: ${faults}`,
    `kills ${summary.kills}`,
    ...(summary.restarts !== undefined ? [`database restarts ${summary.restarts}`] : []),
    `runs completed ${summary.runsCompleted}`,
    `rows checked ${summary.ledger.rows}`,
    `rows lost = ${summary.ledger.lost}`,
    `rows duplicated = ${summary.ledger.duplicated}`,
    ...(summary.extra ? [summary.extra] : []),
  ];
  console.error(`${summary.suite}: ${parts.join("; ")}`);
}
