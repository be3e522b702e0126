import { readFileSync } from "node:fs";
import path from "node:path";
import { IMPORT_FORMATS } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "../src/cli";
import { ENDPOINT_ACTIONS } from "../src/commands/endpoint";
import { EXPORT_KINDS } from "../src/commands/export";
import { RUN_ACTIONS } from "../src/commands/run";
import { HELP, USAGE } from "../src/help";
import { runCliInProcess } from "./in-process-cli";
import { repoRoot, runCli } from "./run-cli";

/** Nothing listens there: a command that touched the database would fail, not print help. */
const NO_DATABASE = { DATABASE_URL: "postgresql://stepwiser:none@127.0.0.1:1/unreachable?connect_timeout=1" };

/** Every command and subcommand: the dispatch map's names and the help table's (where the subcommands are listed). */
const ALL_COMMANDS = [...new Set([...COMMAND_NAMES, ...Object.keys(HELP)])].sort();

const VERSION = (JSON.parse(readFileSync(path.join(repoRoot, "apps/cli/package.json"), "utf8")) as { version: string }).version;

describe("stepwiser <command> --help", () => {
  it("knows every command and subcommand", () => {
    for (const name of COMMAND_NAMES) expect(HELP, `help for "${name}"`).toHaveProperty([name]);
    for (const format of IMPORT_FORMATS) expect(ALL_COMMANDS).toContain(`import ${format}`);
    for (const kind of EXPORT_KINDS) expect(ALL_COMMANDS).toContain(`export ${kind}`);
    for (const action of RUN_ACTIONS) expect(ALL_COMMANDS).toContain(`run ${action}`);
    for (const action of ENDPOINT_ACTIONS) expect(ALL_COMMANDS).toContain(`endpoint ${action}`);
    expect(ALL_COMMANDS).toEqual(
      expect.arrayContaining([
        ...["cancel", "resume", "status", "predictions", "relabel"].map((action) => `run ${action}`),
        "batch export",
        "batch import",
        ...["training-set", "labels", "predictions"].map((kind) => `export ${kind}`),
        ...["processbench", "prm800k", "math-shepherd", "jsonl"].map((format) => `import ${format}`),
        ...["list", "add", "update", "remove", "test"].map((action) => `endpoint ${action}`),
        "plan annotate",
        "prior fit",
        "sim dataset",
        "sim run-batch",
        "processbench score",
        "chunks check",
        "sandbox run",
        "sandbox check",
        "label",
        "grade",
        "verdict",
        "segment",
        "sim-cluster",
      ]),
    );
  });

  it.each(ALL_COMMANDS)("%s: --help, -h and `help` print its usage and exit 0 without a database", async (name) => {
    const words = name.split(" ");
    const help = await runCliInProcess([...words, "--help"], NO_DATABASE);
    expect(help.stderr).toBe("");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: /);
    expect(help.stdout).toContain(`stepwiser ${name}`);
    expect(help.stdout).toMatch(/\nflags:\n( {2}.+\n)+\nexample:\n {2}stepwiser \S/);
    // Before any flag validation: unknown and missing flags around it do not matter.
    expect(await runCliInProcess([...words, "--no-such-flag", "-h"], NO_DATABASE)).toEqual(help);
    expect(await runCliInProcess(["help", ...words], NO_DATABASE)).toEqual(help);
  });

  it("picks the subcommand's help after its arguments, and the command's for a run kind", async () => {
    expect((await runCliInProcess(["run", "relabel", "RUN", "--rule", "abs-q", "--help"], NO_DATABASE)).stdout).toBe(
      (await runCliInProcess(["run", "relabel", "--help"])).stdout,
    );
    expect((await runCliInProcess(["run", "annotate", "--config", "x.json", "--help"], NO_DATABASE)).stdout).toBe(
      (await runCliInProcess(["run", "--help"])).stdout,
    );
    // After `--`, --help is an argument, not a request for help.
    expect((await runCliInProcess(["verdict", "--", "--help"])).code).toBe(2);
  });

  it("`help` alone prints the top-level usage; an unknown command in `help` exits 2", async () => {
    expect(await runCliInProcess(["help"])).toEqual({ code: 0, stdout: USAGE, stderr: "" });
    expect(await runCliInProcess(["--help"])).toEqual({ code: 0, stdout: USAGE, stderr: "" });
    const unknown = await runCliInProcess(["help", "no-such-command"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain('unknown command "no-such-command"');
  });

  it("--version and -V print the CLI's package version", async () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-V"]) expect(await runCliInProcess([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("the executable: `help run relabel` is `run relabel --help`, and --version, without a database", async () => {
    const [help, flag, version] = await Promise.all([
      runCli(["help", "run", "relabel"], { env: NO_DATABASE }),
      runCli(["run", "relabel", "--help"], { env: NO_DATABASE }),
      runCli(["--version"], { env: NO_DATABASE }),
    ]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain("usage: stepwiser run relabel <runId>");
    expect(help).toEqual(flag);
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  }, 60_000);
});
