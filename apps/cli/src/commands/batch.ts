import { createReadStream } from "node:fs";
import { parseArgs } from "node:util";
import { readLines } from "@stepwiser/core";
import { batchRequestLines, connectJobQueue, importBatchOutput, QUEUES, resumeRun } from "@stepwiser/jobs";
import { closeLineOutput, lineOutput, readableFile, writeLine } from "../input/line-files";
import { UsageError } from "../usage-error";
import { follow, withDatabase } from "./run";

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * `stepwiser batch export <runId> [-o FILE]` and `stepwiser batch import <runId> <output.jsonl>`:
 * a run's requests as an OpenAI batch file for `vllm run-batch`, and its output back.
 */
export async function batchCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { output: { type: "string", short: "o" } } });
  const runId = positionals[0];
  if (action === "export") {
    if (!runId || positionals.length > 1) throw new UsageError("usage: batch export <runId> [-o FILE]");
    await exportRequests(runId, values.output);
  } else if (action === "import") {
    if (!runId || positionals.length !== 2) throw new UsageError("usage: batch import <runId> <output.jsonl>");
    if (values.output) throw new UsageError("batch import takes no -o");
    await importOutput(runId, positionals[1]!);
  } else {
    throw new UsageError("batch needs export or import");
  }
}

async function exportRequests(runId: string, output: string | undefined): Promise<void> {
  await withDatabase(async (db) => {
    let skippedUnits = 0;
    const lines = batchRequestLines(db, runId, {
      onSkippedUnit: (key, reason) => {
        skippedUnits += 1;
        log(`unit ${key} left out (it would fail online too): ${reason}`);
      },
    });
    // The run is checked before the output file is created, so a refused export leaves no empty file behind.
    let next = await lines.next();
    const out = lineOutput(output);
    let count = 0;
    try {
      for (; !next.done; next = await lines.next()) {
        await writeLine(out, JSON.stringify(next.value));
        count += 1;
      }
    } finally {
      await closeLineOutput(out);
    }
    log(`exported ${count} requests of run ${runId}${output ? ` to ${output}` : ""}${skippedUnits ? ` (${skippedUnits} units left out)` : ""}`);
  });
}

async function importOutput(runId: string, given: string): Promise<void> {
  const file = await readableFile(given);
  await withDatabase(async (db, url) => {
    const result = await importBatchOutput(db, runId, readLines(createReadStream(file), given), given);
    log(`imported ${result.requests} requests (${result.samples} samples) from ${given}; ${result.skipped} lines skipped`);
    const { status } = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    const queue = await connectJobQueue(url);
    try {
      // An offline run was never queued; a cancelled or failed one goes back the way `run resume` sends it.
      if (status === "queued") await queue.send(QUEUES.run, { runId });
      else await resumeRun(db, queue, runId);
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
    await follow(db, url, runId, true);
  });
}
