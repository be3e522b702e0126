import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { sandboxLimitsSchema } from "../src/sandbox/limits";
import {
  checkSandboxAvailability,
  refuseCodeExecutionWithoutSandbox,
  runPythonSandboxed,
  SANDBOX_MAX_PROCESSES,
  SANDBOX_OUTPUT_LIMIT_BYTES,
  sandboxAvailability,
} from "../src/sandbox/python-sandbox";

const availability = await sandboxAvailability();
const limits = sandboxLimitsSchema.parse({});

async function sandboxFolders(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith("stepwiser-sandbox-"));
}

/** Processes on this machine whose command line holds `marker`, wherever they run. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes(marker)) found.push(Number(pid));
  }
  return found;
}

describe("python sandbox", () => {
  if (!availability.available) {
    it.skip(`code blocks were not run: ${availability.reason}`, () => {});
    return;
  }

  it("runs a computation and returns what it prints", async () => {
    const result = await runPythonSandboxed("from fractions import Fraction\nprint(sum(Fraction(1, k) for k in range(1, 11)))", limits);
    expect(result).toMatchObject({ status: "ok", stdout: "7381/2520\n", stderr: "", exitCode: 0 });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("stops a block that loops forever at its CPU limit", async () => {
    const result = await runPythonSandboxed("while True: pass", { ...limits, cpuSeconds: 1 });
    expect(result.exitCode).toBeNull();
    // On a machine too busy to give the block one CPU second within the 5 s of wall time, the deadline stops it first.
    if (result.status === "timeout") expect(result.stderr).toContain("stopped at the time limit of 5000 ms");
    else expect(result).toMatchObject({ status: "killed", stderr: "[sandbox: killed by SIGXCPU (CPU limit of 1 s)]" });
    expect(result.durationMs).toBeLessThan(6000);
  });

  it("stops a block that sleeps past the wall-time limit, with every process it started", async () => {
    const marker = `sandbox-sleeper-${randomUUID()}`;
    const code = `import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '${marker}'], start_new_session=True)\nprint('started', flush=True)\ntime.sleep(60)`;
    const result = await runPythonSandboxed(code, { ...limits, timeLimitMs: 800 });
    expect(result.status).toBe("timeout");
    expect(await processesWith(marker)).toEqual([]);
    expect(result.stdout).toBe("started\n");
    expect(result.stderr).toContain("stopped at the time limit of 800 ms");
    expect(result.durationMs).toBeLessThan(3000);
  });

  it("has no network: loopback is down and the outside is unreachable", async () => {
    const code = [
      "import socket",
      "for host in ('127.0.0.1', '1.1.1.1'):",
      "    try:",
      "        socket.create_connection((host, 80), timeout=2)",
      "        print(host, 'connected')",
      "    except OSError as error:",
      "        print(host, error.strerror)",
      "print(socket.if_nameindex())",
    ].join("\n");
    const result = await runPythonSandboxed(code, limits);
    expect(result.status).toBe("ok");
    expect(result.stdout).toBe("127.0.0.1 Network is unreachable\n1.1.1.1 Network is unreachable\n[(1, 'lo')]\n");
  });

  it("refuses a memory bomb with MemoryError", async () => {
    const result = await runPythonSandboxed("x = bytearray(2 * 1024 ** 3)\nprint('allocated')", limits);
    expect(result.status).toBe("error");
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/\nMemoryError\n$/);
  });

  it("bounds a fork bomb to the process limit", async () => {
    const code = [
      "import os, time",
      "children = 0",
      "failure = None",
      "for _ in range(500):",
      "    try:",
      "        if os.fork() == 0:",
      "            os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', sys.argv[-1]])",
      "            os._exit(0)",
      "        children += 1",
      "    except OSError as error:",
      "        failure = type(error).__name__",
      "        break",
      "print(children, failure, flush=True)",
    ].join("\n");
    const marker = `sandbox-fork-${randomUUID()}`;
    const result = await runPythonSandboxed(`import sys\nsys.argv.append('${marker}')\n${code}`, limits);
    // The block ends at once: its sleeping children die with the namespace's PID 1 rather than holding the run open.
    expect(result.status).toBe("ok");
    const [children, failure] = result.stdout.trim().split(" ");
    expect(Number(children)).toBeLessThan(SANDBOX_MAX_PROCESSES);
    expect(failure).toBe("BlockingIOError");
    expect(await processesWith(marker)).toEqual([]);
    expect(result.durationMs).toBeLessThan(5000);
  });

  it("leaves no file behind: its working folder is removed", async () => {
    const before = await sandboxFolders();
    const code = "import os\nos.makedirs('deep/er', exist_ok=True)\nopen('deep/er/out.txt', 'w').write('x' * 1000)\nos.chmod('deep', 0)\nprint(os.getcwd())";
    const result = await runPythonSandboxed(code, limits);
    expect(result.status).toBe("ok");
    const folder = result.stdout.trim();
    expect(folder.startsWith(tmpdir())).toBe(true);
    expect(existsSync(folder)).toBe(false);
    expect(await sandboxFolders()).toEqual(before);
  });

  it("does not see the worker's environment", async () => {
    process.env.STEPWISER_SANDBOX_TEST_SECRET = "s3cr3t-value";
    try {
      const code = "import os\nprint(os.environ.get('STEPWISER_SANDBOX_TEST_SECRET'))\nprint(sorted(k for k in os.environ if k not in ('LC_CTYPE',)))";
      const result = await runPythonSandboxed(code, limits);
      expect(result.status).toBe("ok");
      expect(result.stdout).toBe("None\n['HOME', 'PATH', 'TMPDIR']\n");
      expect(result.stdout).not.toContain("s3cr3t-value");
    } finally {
      delete process.env.STEPWISER_SANDBOX_TEST_SECRET;
    }
  });

  it("truncates huge output", async () => {
    const result = await runPythonSandboxed("import sys\nfor _ in range(1000):\n    sys.stdout.write('y' * 1000)", limits);
    expect(result.status).toBe("ok");
    const [kept, note] = result.stdout.split("\n");
    expect(kept).toBe("y".repeat(SANDBOX_OUTPUT_LIMIT_BYTES));
    expect(note).toBe(`[output truncated: ${1000 * 1000 - SANDBOX_OUTPUT_LIMIT_BYTES} more bytes not kept]`);
  });

  it("returns the stderr of a syntax error", async () => {
    const result = await runPythonSandboxed("def f(:\n    return 1\n", limits);
    expect(result.status).toBe("error");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("SyntaxError");
    expect(result.stderr).toContain("def f(:");
  });

  it("stops a block and the processes it started when the run is cancelled", async () => {
    const marker = `sandbox-cancelled-${randomUUID()}`;
    const code = `import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '${marker}'], start_new_session=True)\ntime.sleep(60)`;
    const controller = new AbortController();
    const running = runPythonSandboxed(code, { ...limits, timeLimitMs: 30_000 }, { signal: controller.signal });
    const seenBy = Date.now() + 10_000;
    while ((await processesWith(marker)).length === 0 && Date.now() < seenBy) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await processesWith(marker)).toHaveLength(1);
    controller.abort();
    const result = await running;
    expect(result.status).toBe("killed");
    expect(result.stderr).toContain("[sandbox: cancelled]");
    expect(result.durationMs).toBeLessThan(10_000);
    expect(await processesWith(marker)).toEqual([]);
  });

  it("lets a submission with executeCode through where the sandbox is available", async () => {
    await expect(refuseCodeExecutionWithoutSandbox({ executeCode: true })).resolves.toBeUndefined();
  });
});

describe("sandbox limits", () => {
  it("default to GenPRM's 5 s, 5 CPU seconds and 512 MB, and bound the wall time at 60 s", () => {
    expect(sandboxLimitsSchema.parse({})).toEqual({ timeLimitMs: 5000, cpuSeconds: 5, memoryMb: 512 });
    const tooLong = sandboxLimitsSchema.safeParse({ timeLimitMs: 120_000 });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.path).toEqual(["timeLimitMs"]);
  });

});

describe("where the worker has no python3", () => {
  it("refuses blocks and submissions that ask for executeCode, naming the field, and lets the others through", async () => {
    const missing = await checkSandboxAvailability(join(tmpdir(), "stepwiser-sandbox-test-no-such-folder"));
    expect(missing).toEqual({ available: false, reason: "code execution needs python3 on the worker's PATH; none found" });
    const refusal = refuseCodeExecutionWithoutSandbox({ executeCode: true }, "protocolOptions.executeCode", Promise.resolve(missing));
    await expect(refusal).rejects.toBeInstanceOf(InputError);
    await expect(refusal).rejects.toThrow(
      `field "protocolOptions.executeCode": code execution is not available on this worker: code execution needs python3 on the worker's PATH; none found`,
    );
    await expect(refuseCodeExecutionWithoutSandbox({ executeCode: false }, "protocolOptions.executeCode", Promise.resolve(missing))).resolves.toBeUndefined();
  });
});
