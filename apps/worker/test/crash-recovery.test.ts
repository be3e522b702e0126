import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { connectJobQueue, isTerminal, queueSettingsFromEnv, submitProcessBenchImport } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const mathFile = DEMO_PROCESSBENCH_FILES[1]!;

// Every process reads the queue policy from the same environment, as in a deployment.
// Short expiry makes the job of the killed worker come back quickly.
const queueEnv = {
  STEPWISER_JOB_EXPIRE_SECONDS: "3",
  STEPWISER_QUEUE_MAINTENANCE_SECONDS: "1",
  STEPWISER_QUEUE_POLL_SECONDS: "0.5",
};

function startWorkerProcess(databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    stdio: ["ignore", "ignore", "inherit"],
    // Small batches make "mid-import" a wide window.
    env: { ...process.env, ...queueEnv, DATABASE_URL: databaseUrl, STEPWISER_IMPORT_BATCH_SIZE: "10" },
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

describe("worker killed with SIGKILL during an import", () => {
  let database: TestDatabase;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map(exited));
    await database?.drop();
  });

  it("completes after a restart with exactly one copy of each row", { timeout: 180_000 }, async () => {
    const content = await readFile(mathFile);
    const records = JSON.parse(content.toString("utf8")) as Array<{ id: string; steps: string[]; problem: string }>;
    const queue = await connectJobQueue(database.url, queueSettingsFromEnv({ ...process.env, ...queueEnv }));
    const run = await submitProcessBenchImport(database.db, queue, { fileName: "math.json", content });
    await queue.stop({ graceful: false, wait: true });

    const first = startWorkerProcess(database.url);
    children.push(first);
    let doneAtKill = 0;
    for (const deadline = Date.now() + 60_000; ; ) {
      const progress = await database.db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (progress.unitsDone >= 100) {
        first.kill("SIGKILL");
        doneAtKill = progress.unitsDone;
        break;
      }
      if (isTerminal(progress.status) || Date.now() > deadline) throw new Error(`import ended before it could be interrupted: ${progress.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await exited(first);
    const interrupted = await database.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(interrupted.status).toBe("running");
    expect(interrupted.unitsDone).toBeGreaterThanOrEqual(doneAtKill);
    expect(interrupted.unitsDone).toBeLessThan(records.length);

    const second = startWorkerProcess(database.url);
    children.push(second);
    let finished = interrupted;
    for (const deadline = Date.now() + 90_000; !isTerminal(finished.status); ) {
      if (Date.now() > deadline) throw new Error(`run still ${finished.status} after restart`);
      await new Promise((r) => setTimeout(r, 200));
      finished = await database.db.run.findUniqueOrThrow({ where: { id: run.id } });
    }
    expect(finished.status).toBe("completed");
    expect(finished.attempts).toBeGreaterThanOrEqual(2);

    const db = database.db;
    expect(await db.dataset.count()).toBe(1);
    expect(await db.solution.count()).toBe(records.length);
    const distinctIds = await db.solution.groupBy({ by: ["externalId"] });
    expect(distinctIds).toHaveLength(records.length);
    expect(await db.segmentation.count()).toBe(records.length);
    expect(await db.chunk.count()).toBe(records.reduce((n, r) => n + r.steps.length, 0));
    expect(await db.problem.count()).toBe(new Set(records.map((r) => r.problem)).size);
  });
});
