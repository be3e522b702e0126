import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ImportReportCounts } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { runCli } from "./run-cli";

const good = (i: number) => JSON.stringify({ q: `What is ${i} + 2?`, s: [`${i} + 2`, `= ${i + 2}`] });

describe("stepwiser import --on-invalid fail|skip and stepwiser import report", () => {
  let database: TestDatabase;
  let scratch: string;
  let file: string;
  const cli = (args: string[]) => runCliInProcess(args, { DATABASE_URL: database.url });
  const MAP = ["--map", "problem=q,steps=s"];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-policy-"));
    // 30 records: three with steps of the wrong type (lines 4, 9, 27) and one line that is not JSON (line 15).
    const lines = Array.from({ length: 30 }, (_, i) => good(i));
    for (const line of [4, 9, 27]) lines[line - 1] = JSON.stringify({ q: "broken", s: "one step" });
    lines[14] = "{oops";
    file = path.join(scratch, "released.jsonl");
    await writeFile(file, `${lines.join("\n")}\n`);
  });
  afterAll(async () => {
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("without --on-invalid the first bad record fails the file before anything is stored", async () => {
    const before = await database.db.solution.count();
    const result = await cli(["import", "jsonl", file, ...MAP]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('released.jsonl:4, record 3, field "s"');
    expect(await database.db.solution.count()).toBe(before);
    expect(await database.db.run.count({ where: { kind: "import" } })).toBe(0);
  });

  it("skip above the default 5 % bound is refused before anything is stored, naming the share", async () => {
    const result = await cli(["import", "jsonl", file, ...MAP, "--on-invalid", "skip"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("4 of 30 records are invalid (13.3 %), more than the 5 % a skip import accepts");
    expect(await database.db.run.count({ where: { kind: "import" } })).toBe(0);
  });

  it("skip within --max-invalid-share imports the rest, summarises the report, and import report writes it as JSONL", async () => {
    const result = await cli(["import", "jsonl", file, ...MAP, "--on-invalid", "skip", "--max-invalid-share", "0.2", "--name", "released"]);
    expect(result.code, result.stderr).toBe(0);
    const { runs } = JSON.parse(result.stdout) as { runs: Array<{ runId: string; status: string; written: number; datasetId: string; report: ImportReportCounts }> };
    expect(runs[0]).toMatchObject({ status: "completed", written: 26 });
    expect(runs[0]!.report).toMatchObject({ policy: "skip", maxInvalidShare: 0.2, records: 30, readable: 26, invalid: 4, ignored: 0 });
    expect(await database.db.solution.count({ where: { datasetId: runs[0]!.datasetId } })).toBe(26);
    const runId = runs[0]!.runId;
    expect(result.stderr).toContain("released.jsonl: 26 valid records, 4 invalid (to be skipped)");
    expect(result.stderr).toContain("released.jsonl: imported 26 records of 30 (26 written, 0 already in the dataset, 0 replaced)");
    expect(result.stderr).toContain("skipped as invalid: 4 (13.3 %, at most 20.0 % allowed)");
    expect(result.stderr).toMatch(/ {5}3 × s: expected an array of step strings, got string \(mapped to steps\)\n/);
    expect(result.stderr).toMatch(/ {5}1 × not valid JSON/);
    expect(result.stderr).toContain(`full report: stepwiser import report ${runId} -o report.jsonl`);

    const out = path.join(scratch, "report.jsonl");
    const report = await cli(["import", "report", runId, "-o", out]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain(`4 report entries of import run ${runId} written to ${out}`);
    const lines = (await readFile(out, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.file, l.line, l.record, l.field, l.kind])).toEqual([
      ["released.jsonl", 4, 3, "s", "invalid"],
      ["released.jsonl", 9, 8, "s", "invalid"],
      ["released.jsonl", 15, 14, null, "invalid"],
      ["released.jsonl", 27, 26, "s", "invalid"],
    ]);
    expect(lines[0]!.reason).toBe("expected an array of step strings, got string (mapped to steps)");
    expect(lines[2]!.reason).toMatch(/^not valid JSON/);

    // As the executable: without -o the report is the JSON lines on stdout, ready to pipe.
    const toStdout = await runCli(["import", "report", runId], { env: { DATABASE_URL: database.url } });
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(toStdout.stdout.trim().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual(lines);
  });

  it("bad flag values exit 2 naming the flag", async () => {
    const cases: Array<[string[], string]> = [
      [["--on-invalid", "ignore"], '--on-invalid must be one of fail, skip (got "ignore")'],
      [["--on-invalid", "skip", "--max-invalid-share", "5"], '--max-invalid-share must be a number from 0 to 1, e.g. 0.05 for 5 % (got "5")'],
      [["--on-invalid", "skip", "--max-invalid-share", "lots"], "--max-invalid-share must be a number from 0 to 1"],
      [["--max-invalid-share", "0.1"], "--max-invalid-share applies only with --on-invalid skip"],
    ];
    for (const [flags, message] of cases) {
      const result = await cli(["import", "jsonl", file, ...MAP, ...flags]);
      expect(result.code, flags.join(" ")).toBe(2);
      expect(result.stderr).toContain(message);
    }
    const noRun = await cli(["import", "report", "no-such-run"]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain("run no-such-run does not exist");
    const usage = await cli(["import", "report"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: import report <runId> [-o FILE]");
  });
});
