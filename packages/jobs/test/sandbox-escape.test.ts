import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_FOLDER_BYTES, SANDBOX_NOBODY, SANDBOX_SHM_BYTES, SANDBOX_TMP_BYTES, sandboxAvailability } from "../src/sandbox/python-sandbox";
import { ESCAPE_CASES, REPO_ROOT, SANDBOX_SOURCE, type Ran } from "./support/escape-cases";

/**
 * The escape corpus (support/escape-cases.ts), each case its own test, run twice: by this process (the worker's
 * user, root on CI machines) and by a child process running as uid 65534 (a non-root worker). Every case but the
 * first tries to get out of the sandbox and must fail; the host is checked afterwards where a case could change it.
 */

const availability = await sandboxAvailability();
const RUNNER = resolve(fileURLToPath(new URL(".", import.meta.url)), "support/escape-runner.ts");
const isRoot = process.getuid?.() === 0;

type Observation = Record<string, unknown> & { ran?: Ran };
const printed = (observation: Observation) => observation.ran?.printed as Record<string, unknown>;
const ok = (value: unknown) => typeof value === "string" && value.startsWith("ok:");

const CHECKS: Record<string, (seen: Observation) => void> = {
  "a benign block runs and prints": (seen) => {
    expect(seen.ran).toMatchObject({ status: "ok", exitCode: 0, stderr: "" });
    expect(printed(seen)).toEqual({ sum: 45, pi: 3.1416 });
  },
  "reads no host file: a 0600 secret of the worker, a 0644 file, the repository, /etc": (seen) => {
    const targets = seen.targets as string[];
    const hostReads = seen.hostReads as Record<string, boolean>;
    // The worker itself can read them: what the block cannot is the sandbox's doing.
    for (const path of [targets[0]!, targets[1]!, join(REPO_ROOT, "package.json"), SANDBOX_SOURCE, "/etc/passwd"]) expect(hostReads[path], path).toBe(true);
    expect(seen.ran?.status).toBe("ok");
    const inside = printed(seen) as Record<string, [string, string, boolean]>;
    for (const path of targets.filter((target) => target !== tmpdir())) expect(inside[path], path).toEqual(["ENOENT", "ENOENT", false]);
    // The block's /tmp is its own, empty tmpfs (or absent, where the worker's tmpdir is elsewhere).
    expect([["EISDIR", "ok:[]", true], ["ENOENT", "ENOENT", false]]).toContainEqual(inside[tmpdir()]);
  },
  "writes nothing outside its folder: the repository, the host's /tmp, the worker's folders": (seen) => {
    const inside = printed(seen);
    for (const attempt of ["appendSource", "createInRepo", "createInWorkerFolder", "createInUsr", "createInRoot"]) {
      expect(["ENOENT", "EROFS", "EACCES"], attempt).toContain(inside[attempt]);
    }
    // /tmp inside is the sandbox's private tmpfs: the write succeeds there and reaches nothing of the host's.
    expect(inside.createInHostTmp).toBe("ok:created");
    expect(seen.host).toEqual({ sourceUnchanged: true, hostTmpFileExists: false, workerFileExists: false, repoFileExists: false, usrFileExists: false, rootFileExists: false });
  },
  "sees no host process": (seen) => {
    const inside = printed(seen) as { pids: number[]; cmdlines: string[]; hostPid: string };
    expect(inside.pids.length).toBeLessThanOrEqual(3);
    expect(inside.pids.every((pid) => pid <= 3)).toBe(true);
    // bwrap's reaper, INIT and the block: nothing of the worker's (node) or the machine's.
    for (const commandLine of inside.cmdlines) expect(commandLine).toMatch(/^ok:\S*\/(bwrap|python3[\d.]*) /);
    expect(inside.pids).not.toContain(seen.workerPid);
    expect(inside.hostPid).toBe("ENOENT");
  },
  "reaches no host Unix socket, on the file system or abstract": (seen) => {
    expect(seen.hostSeesAbstract).toBe(true);
    const inside = printed(seen);
    expect(ok(inside.fileSocket)).toBe(false);
    expect(ok(inside.abstractSocket)).toBe(false);
    expect(inside).toMatchObject({ fileSocketVisible: false, abstractListed: false, unixSocketsInNamespace: 0 });
    expect(seen.connections).toBe(0);
  },
  "reaches no host TCP port, on loopback or the machine's address": (seen) => {
    const inside = printed(seen) as { connect: string[]; interfaces: string[]; tcpInNamespace: number };
    expect(inside.connect).toHaveLength((seen.targets as unknown[]).length);
    for (const attempt of inside.connect) expect(ok(attempt)).toBe(false);
    expect(inside.interfaces).toEqual(["lo"]);
    expect(inside.tcpInNamespace).toBe(0);
    expect(seen.connections).toBe(0);
  },
  "reads none of the worker's environment secrets": (seen) => {
    expect(seen.ran?.status).toBe("ok");
    expect(seen.leaked).toEqual([]);
    expect(seen.keys).toEqual(["HOME", "LANG", "PATH", "PWD", "TMPDIR"]);
  },
  "a fork bomb ends at the time limit and leaves no process behind": (seen) => {
    expect(seen.ran).toMatchObject({ status: "timeout", exitCode: null });
    expect(seen.ran!.durationMs).toBeLessThan((seen.timeLimitMs as number) + 2500);
    expect(seen.survivorsAtOnce).toBe(0);
    expect(seen.hostSpawns).toBe("spawned");
  },
  "filling the disk stops at its folder's and /tmp's caps": (seen) => {
    expect(seen.ran?.status).toBe("ok");
    const inside = printed(seen) as Record<string, { written: number; stoppedBy: string }>;
    for (const [folder, cap] of [["/sandbox", SANDBOX_FOLDER_BYTES], ["/tmp", SANDBOX_TMP_BYTES], ["/dev/shm", SANDBOX_SHM_BYTES]] as const) {
      expect(inside[folder]!.stoppedBy, folder).toBe("ENOSPC");
      expect(inside[folder]!.written, folder).toBeLessThanOrEqual(cap);
      expect(inside[folder]!.written, folder).toBeGreaterThan(0);
    }
    expect(seen.hostFiles).toEqual([]);
  },
  "a 1 GB stdout is cut off promptly without the worker's memory growing": (seen) => {
    expect(seen.status).toBe("killed");
    expect(seen.stderr).toContain("[sandbox: stopped after writing more than");
    expect(seen.stderr).not.toContain("all written");
    expect(seen.stdoutLength).toBeLessThan(20_000);
    expect(seen.durationMs).toBeLessThan(5000);
    expect(seen.rssGrowthMb).toBeLessThan(200);
  },
  "the seccomp filter refuses namespace, mount, tracing, keyring, BPF and io_uring calls": (seen) => {
    if (seen.skipped) return void console.log(`seccomp calls not tried: ${seen.skipped as string}`);
    expect(seen.ran?.status).toBe("ok");
    const { getppid, clone3, ...refused } = printed(seen);
    // A call the filter allows goes through (PID 2, the sandbox's INIT): the refusals below are the filter's.
    expect(getppid).toBe(2);
    expect(clone3).toBe("ENOSYS");
    expect(Object.keys(refused)).toHaveLength(15);
    for (const [call, result] of Object.entries(refused)) expect(result, call).toBe("EPERM");
  },
  "runs as an unprivileged uid with no capabilities": (seen) => {
    expect(printed(seen)).toMatchObject({ ids: [SANDBOX_NOBODY, SANDBOX_NOBODY, SANDBOX_NOBODY, SANDBOX_NOBODY], groups: [], noNewPrivs: "1", hostname: "sandbox" });
    expect((printed(seen).capabilities as string[]).every((mask) => /^0+$/.test(mask))).toBe(true);
    expect(ok(printed(seen)["setuid(0)"])).toBe(false);
  },
};

const held = new Map<string, number>();
const heldBy = (user: string) => held.set(user, (held.get(user) ?? 0) + 1);

interface RunnerOutput {
  uid: number;
  availability: { available: boolean; reason?: string };
  results: Record<string, Observation>;
}

/** The corpus as uid 65534 sees it, run by support/escape-runner.ts in a child process. */
async function runAsNobody(): Promise<RunnerOutput> {
  const identity = { uid: SANDBOX_NOBODY, gid: SANDBOX_NOBODY };
  const access = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(RUNNER)}, require("fs").constants.R_OK)`], { ...identity, cwd: "/", encoding: "utf8" });
  if (access.status !== 0) {
    throw new Error(
      `uid ${SANDBOX_NOBODY} cannot run the escape corpus from ${REPO_ROOT} (node at ${process.execPath} or the repository is not readable by it: ${access.stderr.trim() || access.error?.message}); run the tests from a checkout every user can read, e.g. a fresh clone under /tmp`,
    );
  }
  const home = await mkdtemp(join(tmpdir(), "stepwiser-escape-home-"));
  spawnSync("chown", [`${SANDBOX_NOBODY}:${SANDBOX_NOBODY}`, home]);
  try {
    return await new Promise((done, fail) => {
      const child = spawn(process.execPath, ["--import", "tsx", RUNNER], {
        ...identity,
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmpdir() },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.once("error", fail);
      child.once("close", (code) => {
        try {
          done(JSON.parse(stdout) as RunnerOutput);
        } catch {
          fail(new Error(`the escape runner as uid ${SANDBOX_NOBODY} exited ${code} without its results:\n${stdout.slice(0, 2000)}\n${stderr.slice(0, 4000)}`));
        }
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe("sandbox escape corpus", () => {
  if (!availability.available) {
    // On CI the sandbox must be there: its absence fails the corpus instead of skipping it.
    if (process.env.CI) it("has a sandbox to attack", () => expect.fail(`code execution is refused on this CI machine: ${availability.reason}`));
    else {
      console.log(`sandbox escape corpus: not run: ${availability.reason}`);
      it.skip(`not run: ${availability.reason}`, () => {});
    }
    return;
  }

  let asNobody: Promise<RunnerOutput> | undefined;
  beforeAll(() => {
    // Started at once, so that the child's run overlaps this process's.
    if (isRoot) {
      asNobody = runAsNobody();
      asNobody.catch(() => undefined);
    }
  });
  afterAll(() => {
    const users = [...held.keys()];
    const total = [...held.values()].reduce((sum, count) => sum + count, 0);
    const all = total === ESCAPE_CASES.length * users.length && users.length > 0;
    console.log(
      all
        ? `sandbox escape corpus: ${ESCAPE_CASES.length - 1} cases × ${users.length} users refused, benign block ran (${users.join(", ")})`
        : `sandbox escape corpus: only ${total} of ${ESCAPE_CASES.length} cases × ${users.length || 1} users held (${users.join(", ") || "none"})`,
    );
  });

  const worker = isRoot ? "root" : `uid ${process.getuid?.()}`;
  describe(`as the worker's user (${worker})`, () => {
    for (const escape of ESCAPE_CASES) {
      it(escape.name, async () => {
        const seen = (await escape.run()) as Observation;
        CHECKS[escape.name]!(seen);
        heldBy(worker);
      });
    }
  });

  describe(`as a non-root worker (uid ${SANDBOX_NOBODY})`, () => {
    if (!isRoot) {
      it.skip(`not run: this process (uid ${process.getuid?.()}) cannot start one as uid ${SANDBOX_NOBODY}; the run above is a non-root worker's`, () => {});
      return;
    }
    for (const escape of ESCAPE_CASES) {
      it(escape.name, async () => {
        const output = await asNobody!;
        expect(output.uid).toBe(SANDBOX_NOBODY);
        expect(output.availability, "the sandbox as uid 65534").toMatchObject({ available: true });
        const seen = output.results[escape.name]!;
        expect(seen.error, "the case itself failed").toBeUndefined();
        CHECKS[escape.name]!(seen);
        heldBy(`uid ${SANDBOX_NOBODY}`);
      });
    }
  });
});
