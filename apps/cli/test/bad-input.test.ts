import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, rowChangesSince, tableRowCounts, type TableCounts, type TestDatabase } from "@stepwiser/db/testing";
import { createSimWorldDataset } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RUN_CONFIG_CASES, runConfigBytes } from "@stepwiser/jobs/testing/run-config-corpus";
import { runCliInProcess } from "./in-process-cli";
import { runCli, type CliResult } from "./run-cli";

interface FlagCase {
  name: string;
  args: string[];
  exit: number;
  /** Substrings stderr must hold: what is wrong and where (flag, file, line, field). */
  stderr: string[];
  /** Files to create in the scratch directory first; `<byte:ff>` is a raw byte. */
  files?: Record<string, string>;
  dirs?: string[];
}

const FLAG_CASES = JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures/bad-input/cli-flags.json"), "utf8")) as FlagCase[];

/** The malformed import corpus of the importers, reused here at the command line's boundary. */
const MALFORMED_IMPORTS_DIR = path.join(import.meta.dirname, "../../../packages/core/test/fixtures/imports/malformed");
const MALFORMED_IMPORTS = JSON.parse(readFileSync(path.join(MALFORMED_IMPORTS_DIR, "expected.json"), "utf8")) as {
  file: string;
  format: string;
  mapping?: string;
  line: number;
  field: string | null;
  message: string;
}[];

/** A stack frame line ("    at fn (file:1:2)"): never shown to a user of the command line. */
const STACK_FRAME = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

function bytesOf(text: string): Buffer {
  const parts = text.split(/<byte:([0-9a-f]{2})>/);
  return Buffer.concat(parts.map((part, i) => (i % 2 === 1 ? Buffer.from([parseInt(part, 16)]) : Buffer.from(part, "utf8"))));
}

function expectCleanRefusal(result: CliResult, exit: number): void {
  expect(result.code, `exit code; stderr:\n${result.stderr}`).toBe(exit);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  expect(result.stderr.length, "stderr is one readable message, not a dump").toBeLessThan(6_000);
}

describe("bad input on the command line", () => {
  let database: TestDatabase;
  let scratch: string;
  let datasetId: string;
  const tally = { runConfigs: 0, flags: 0, importFiles: 0, spawned: 0 };
  let rowsChanged = 0;
  let stillAnswering = true;

  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    // Never contacted: every run config below is refused before a request is sent.
    await database.db.endpoint.createMany({
      data: [
        { name: "sim-policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 },
        { name: "sim-judge", model: "sim-judge-strong", role: "judge", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 8 },
      ],
    });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "bad input", problems: 2, seed: 5 }));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-bad-input-"));
  });

  afterAll(async () => {
    const total = tally.runConfigs + tally.flags + tally.importFiles;
    process.stderr.write(
      `bad input (command line): ${total} inputs rejected (run configs ${tally.runConfigs}, flags and files ${tally.flags}, malformed import files ${tally.importFiles}; ${tally.spawned} also as separate processes), ${rowsChanged} rows changed, ${stillAnswering ? "command line still answering" : "command line NOT answering"}\n`,
    );
    await database?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** Row counts before one input, so a leak is blamed on the input that caused it and on no later one. */
  const snapshot = () => tableRowCounts(database.db);

  async function expectNothingStored(countsBefore: TableCounts): Promise<void> {
    const changes = await rowChangesSince(database.db, countsBefore);
    rowsChanged += changes.rows;
    expect(changes.tables).toEqual([]);
  }

  /** The same entry point answers a good command right after a refusal. */
  async function expectStillAnswering(): Promise<void> {
    const good = await runCliInProcess(["label", "--rule", "abs-q", "--q", "0.5,0"]);
    if (good.code !== 0) stillAnswering = false;
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ labels: ["Positive", "Negative"], first_error: 1 });
  }

  it("the corpus covers every run kind and every flag-level command with at least 100 inputs", () => {
    expect(new Set(RUN_CONFIG_CASES.map((c) => c.kind))).toEqual(new Set(["annotate", "generate", "segment", "benchmark", "judge", "chunk_reset", "best_of_n"]));
    expect(RUN_CONFIG_CASES.length + FLAG_CASES.length).toBeGreaterThanOrEqual(100);
  });

  it.each(RUN_CONFIG_CASES)("run config refused: $name", async (entry) => {
    const before = await snapshot();
    const file = path.join(scratch, `${entry.kind}-${RUN_CONFIG_CASES.indexOf(entry)}.json`);
    await writeFile(file, runConfigBytes(entry, datasetId));
    const result = await runCliInProcess(["run", entry.kind.replaceAll("_", "-"), "--config", file, "--detach"], env());
    await expectNothingStored(before);
    expectCleanRefusal(result, 2);
    const name = path.basename(file);
    expect(result.stderr).toContain(entry.line === null ? name : `${name}:${entry.line}`);
    if (entry.field !== null) expect(result.stderr).toContain(`field "${entry.field}"`);
    expect(result.stderr).toContain(entry.message);
    expect(result.stdout).toBe("");
    await expectStillAnswering();
    tally.runConfigs += 1;
  });

  it.each(FLAG_CASES)("refused: $name", async (entry) => {
    const before = await snapshot();
    const dir = await mkdtemp(path.join(scratch, "case-"));
    for (const [name, content] of Object.entries(entry.files ?? {})) await writeFile(path.join(dir, name), bytesOf(content));
    for (const name of entry.dirs ?? []) await mkdir(path.join(dir, name));
    const args = entry.args.map((arg) => arg.replaceAll("{dir}", dir));
    const result = await runCliInProcess(args, env());
    await expectNothingStored(before);
    expectCleanRefusal(result, entry.exit);
    for (const expected of entry.stderr) expect(result.stderr).toContain(expected);
    await expectStillAnswering();
    tally.flags += 1;
  });

  it.each(MALFORMED_IMPORTS)("import refuses the malformed $format file $file at line $line", async (entry) => {
    const before = await snapshot();
    const args = ["import", entry.format, path.join(MALFORMED_IMPORTS_DIR, entry.file), ...(entry.mapping ? ["--map", entry.mapping] : [])];
    const result = await runCliInProcess(args, env());
    await expectNothingStored(before);
    expectCleanRefusal(result, 2);
    expect(result.stderr).toContain(`${entry.file}:${entry.line}`);
    if (entry.field !== null) expect(result.stderr).toContain(`field "${entry.field}"`);
    expect(result.stderr).toContain(entry.message);
    await expectStillAnswering();
    tally.importFiles += 1;
  });

  it("as separate processes, refusals exit with 2 and one message, never a stack trace", async () => {
    const before = await snapshot();
    const config = path.join(scratch, "spawned-config.json");
    await writeFile(config, JSON.stringify({ datasetId, policyEndpoint: "sim-policy", rollouts: 0 }));
    const garbage = path.join(scratch, "spawned-garbage.bin");
    await writeFile(garbage, bytesOf("<byte:00><byte:ff>\n<byte:fe>"));
    const results = await Promise.all([
      runCli(["run", "annotate", "--config", config, "--detach"], { env: env() }),
      runCli(["label", "--rule", "rel-ratio", "--gamma", "abc", "--q0", "0.5", "--q", "0.5"]),
      runCli(["verdict", "--file", garbage]),
    ]);
    await expectNothingStored(before);
    for (const result of results) expectCleanRefusal(result, 2);
    expect(results[0]!.stderr).toMatch(/spawned-config\.json, field "rollouts"/);
    expect(results[1]!.stderr).toContain('--gamma must be a number, got "abc"');
    expect(results[2]!.stderr).toContain("spawned-garbage.bin:1");
    tally.spawned += results.length;
  });
});
