import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseProcessBenchFile } from "@stepwiser/core";
import { createDb } from "@stepwiser/db";
import { openLocalDatabase, resolveDataDir } from "@stepwiser/db/local";
import { applyMigrations } from "@stepwiser/db/migrations";
import { connectJobQueue, isTerminal, startWorker, submitProcessBenchImport } from "@stepwiser/jobs";
import { fromUserCwd, repoRoot } from "../paths";
import { UsageError } from "../usage-error";

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function importProcessBenchCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: "string" }, detach: { type: "boolean", default: false } },
  });
  if (positionals.length === 0) throw new UsageError("import processbench needs at least one file");
  if (values.name && positionals.length > 1) throw new UsageError("--name applies to a single file");

  // Validate every file before touching the database: one bad record rejects its file and nothing is stored.
  const files = await Promise.all(
    positionals.map(async (given) => {
      const file = fromUserCwd(given);
      const content = await readFile(file).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${given}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
      });
      const { records } = parseProcessBenchFile(content.toString("utf8"), path.basename(file));
      return { file, content, records: records.length };
    }),
  );

  const database = await openLocalDatabase({ dataDir: resolveDataDir(repoRoot), log: () => {} });
  try {
    await applyMigrations(database.url);
    const db = createDb(database.url, { poolSize: 4 });
    const queue = await connectJobQueue(database.url);
    const runs = [];
    for (const { file, content, records } of files) {
      const run = await submitProcessBenchImport(db, queue, { fileName: path.basename(file), content, datasetName: values.name });
      log(`queued import run ${run.id}: ${path.basename(file)} (${records} records)`);
      runs.push(run.id);
    }
    await queue.stop({ graceful: false, wait: true });

    if (values.detach) {
      process.stdout.write(`${JSON.stringify({ runs: runs.map((id) => ({ runId: id, status: "queued" })) })}\n`);
      await db.$disconnect();
      return;
    }

    // Work the queue in this process too, so the command also completes when no worker is running.
    const worker = await startWorker({ databaseUrl: database.url, db, log: () => {} });
    const results = [];
    try {
      for (const runId of runs) {
        let lastDone = -1;
        for (;;) {
          const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
          if (run.unitsDone !== lastDone) {
            log(`run ${runId}: ${run.status} ${run.unitsDone}/${run.unitsTotal}`);
            lastDone = run.unitsDone;
          }
          if (isTerminal(run.status)) {
            const trajectories = run.datasetId ? await db.trajectory.count({ where: { datasetId: run.datasetId } }) : 0;
            results.push({ runId, status: run.status, datasetId: run.datasetId, trajectories, error: run.error });
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      await worker.stop();
      await db.$disconnect();
    }
    process.stdout.write(`${JSON.stringify({ runs: results, trajectories: results.reduce((n, r) => n + r.trajectories, 0) })}\n`);
    if (results.some((r) => r.status !== "completed")) process.exitCode = 1;
  } finally {
    await database.release();
  }
}
