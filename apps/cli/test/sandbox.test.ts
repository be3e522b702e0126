import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sandboxAvailability } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, runCli } from "./run-cli";

const availability = await sandboxAvailability();
let folder = "";
/** A PATH folder with python3 (the system's) but no bwrap: the sandbox is refused there. */
let pathWithoutBwrap = "";

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-sandbox-"));
  await chmod(folder, 0o755);
  pathWithoutBwrap = path.join(folder, "bin");
  await writeFile(path.join(folder, "hello.py"), "import sys\nprint(sum(range(10)))\nprint('to stderr', file=sys.stderr)\n");
  await writeFile(path.join(folder, "fails.py"), "import sys\nprint('half', flush=True)\nsys.exit(3)\n");
  await writeFile(path.join(folder, "sleeps.py"), "import time\nprint('started', flush=True)\ntime.sleep(30)\n");
  await writeFile(path.join(folder, "escapes.py"), "import socket\nsocket.create_connection(('127.0.0.1', 5432), timeout=1)\n");
  await mkdir(pathWithoutBwrap, { mode: 0o755 });
  await symlink("/usr/bin/python3", path.join(pathWithoutBwrap, "python3"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const file = (name: string) => path.join(folder, name);

describe("stepwiser sandbox run", () => {
  if (!availability.available) {
    if (process.env.CI) it("has a sandbox on this CI machine", () => expect.fail(availability.reason));
    else it.skip(`not run: ${availability.reason}`, () => {});
    return;
  }

  it("runs a block and prints its output as one JSON object, exit 0", async () => {
    const result = await runCliInProcess(["sandbox", "run", "--file", file("hello.py")]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(Object.keys(jsonOf(result) as object)).toEqual(["stdout", "stderr", "exitCode", "timedOut"]);
    expect(jsonOf(result)).toEqual({ stdout: "45\n", stderr: "to stderr\n", exitCode: 0, timedOut: false });
  });

  it("exits 0 whatever the block did: its exit code, a refused connection, a time-out", async () => {
    expect(jsonOf(await runCliInProcess(["sandbox", "run", "--file", file("fails.py")]))).toEqual({ stdout: "half\n", stderr: "", exitCode: 3, timedOut: false });
    const escaped = await runCliInProcess(["sandbox", "run", "--file", file("escapes.py")]);
    expect(escaped.code).toBe(0);
    expect(jsonOf(escaped)).toMatchObject({ exitCode: 1, timedOut: false, stderr: expect.stringContaining("PermissionError: [Errno 1] Operation not permitted") });
    const started = Date.now();
    const slow = await runCliInProcess(["sandbox", "run", "--file", file("sleeps.py"), "--timeout-s", "0.5"]);
    expect(slow.code).toBe(0);
    expect(jsonOf(slow)).toEqual({ stdout: "started\n", stderr: "[sandbox: stopped at the time limit of 500 ms]", exitCode: null, timedOut: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("applies --memory-mb", async () => {
    await writeFile(file("big.py"), "x = bytearray(200 * 1024 * 1024)\nprint('allocated')\n");
    expect(jsonOf(await runCliInProcess(["sandbox", "run", "--file", file("big.py")]))).toMatchObject({ stdout: "allocated\n", exitCode: 0 });
    const small = jsonOf(await runCliInProcess(["sandbox", "run", "--file", file("big.py"), "--memory-mb", "64"])) as { stderr: string; exitCode: number };
    expect(small.exitCode).toBe(1);
    expect(small.stderr).toMatch(/MemoryError\n$/);
  });

  it("reads the block from stdin with --file -", async () => {
    expect(jsonOf(await runCliInProcess(["sandbox", "run", "--file", "-"], {}, { stdin: "print(6 * 7)\n" }))).toMatchObject({ stdout: "42\n", exitCode: 0 });
  });
});

describe("stepwiser sandbox run: usage and refusals", () => {
  it("exits 2 naming the problem for a missing or unreadable file and bad flags", async () => {
    expect(await runCliInProcess(["sandbox", "run"])).toEqual({ code: 2, stdout: "", stderr: "stepwiser: --file is required (a python block; - for stdin)\n" });
    const missing = await runCliInProcess(["sandbox", "run", "--file", file("no-such-block.py")]);
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `stepwiser: cannot read ${file("no-such-block.py")}: no such file\n` });
    expect((await runCliInProcess(["sandbox", "run", "--file", folder])).stderr).toBe(`stepwiser: cannot read ${folder}: is a directory\n`);
    expect((await runCliInProcess(["sandbox", "run", "--file", file("hello.py"), "--timeout-s", "120"])).stderr).toBe(
      'stepwiser: --timeout-s must be a number from 0.1 to 60, got "120"\n',
    );
    expect((await runCliInProcess(["sandbox", "run", "--file", file("hello.py"), "--memory-mb", "lots"])).code).toBe(2);
  });

  it("exits 1 with the reason where code execution is refused", async () => {
    const refused = await runCliInProcess(["sandbox", "run", "--file", file("hello.py")], { PATH: pathWithoutBwrap });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      "stepwiser: code execution is refused on this machine: code execution needs bubblewrap (bwrap) on the worker's PATH to isolate code blocks; none found: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap)\n",
    );
  });
});

describe("stepwiser sandbox check", () => {
  it.runIf(availability.available)("prints the isolation in force, verified by a probe block", async () => {
    const result = await runCliInProcess(["sandbox", "check"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(jsonOf(result)).toMatchObject({
      available: true,
      tool: expect.stringMatching(/^bubblewrap \d/),
      namespaces: ["user", "mount", "pid", "network", "ipc", "uts", "cgroup"],
      uid: { inside: 65534 },
      seccomp: { on: true, deniedSyscalls: expect.arrayContaining(["unshare", "mount", "ptrace", "socket"]) },
      rlimits: { cpuSeconds: 5, addressSpaceMb: 512, processes: 32, coreBytes: 0 },
      budget: { maxConcurrent: 2, memoryBudgetMb: 2048 },
    });
    const budget = jsonOf(await runCliInProcess(["sandbox", "check"], { STEPWISER_SANDBOX_MAX_CONCURRENT: "4" })) as { budget: object };
    expect(budget.budget).toEqual({ maxConcurrent: 4, memoryBudgetMb: 2048 });
  });

  it("prints the refusal and exits 1 where code execution is refused", async () => {
    const refused = await runCliInProcess(["sandbox", "check"], { PATH: pathWithoutBwrap });
    expect(refused.code).toBe(1);
    expect(jsonOf(refused)).toEqual({ available: false, reason: expect.stringContaining("code execution needs bubblewrap (bwrap)") });
    expect(refused.stderr).toMatch(/^stepwiser: code execution is refused on this machine: code execution needs bubblewrap \(bwrap\)/);
  });

  it.runIf(availability.available)("works from the built executable", async () => {
    const result = await runCli(["sandbox", "check"]);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ available: true });
  });
});
