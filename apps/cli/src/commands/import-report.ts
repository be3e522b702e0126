import { importReportLinesOf } from "@stepwiser/api/services/file";
import { getRunState } from "@stepwiser/api/services/run";
import { InputError } from "@stepwiser/core";
import { closeLineOutput, lineOutput, writeLine } from "../input/line-files";
import { notFoundAt } from "../not-found";
import { UsageError } from "../usage-error";
import { withDatabase } from "../database";
import { parseFlags } from "../input/flags";

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * `stepwiser import report <runId> [-o FILE]`: every record an import left out
 * as invalid or ignored, one JSON object per line (file, line, record, field,
 * reason, kind), to stdout or the file; the count on stderr.
 */
export async function importReportCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags("import report", { args, allowPositionals: true, options: { output: { type: "string", short: "o" } } });
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new UsageError("usage: import report <runId> [-o FILE]");
  await withDatabase(async (db) => {
    const run = await getRunState({ db, input: { id: runId } }).catch(notFoundAt("runId"));
    if (run.kind !== "import") throw new InputError(`run ${runId} is a ${run.kind} run, not an import`, { field: "runId" });
    const out = lineOutput(values.output);
    let entries = 0;
    try {
      for await (const line of await importReportLinesOf({ db, input: { runId } })) {
        await writeLine(out, JSON.stringify(line));
        entries += 1;
      }
    } finally {
      await closeLineOutput(out);
    }
    log(`${entries} report ${entries === 1 ? "entry" : "entries"} of import run ${runId}${values.output ? ` written to ${values.output}` : ""}`);
  });
}
