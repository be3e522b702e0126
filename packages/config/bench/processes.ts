import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export interface ClusterProcess {
  urls: string[];
  pid: number;
  stop(): Promise<void>;
}

/**
 * `stepwiser sim-cluster` in a process of its own, so the simulated GPUs' CPU
 * time never counts against the process being measured. `config` is the
 * command's --config JSON (replicas, timeScale, capacity, …).
 */
export async function startSimClusterProcess(config: object): Promise<ClusterProcess> {
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-bench-cluster-"));
  const file = path.join(scratch, "cluster.json");
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "apps/cli/src/main.ts"), "sim-cluster", "--config", file], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`sim-cluster exited with ${code}`)));
  });
  const urls = (JSON.parse(line) as { replicas: Array<{ url: string }> }).replicas.map((r) => r.url);
  return {
    urls,
    pid: child.pid!,
    stop: async () => {
      await stopProcess(child);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at index 2; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux Node.js runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // exited meanwhile
  }
}

/**
 * CPU seconds of a process and every child it has or had (Linux /proc): its own
 * user + system time, the time of children it has reaped (cutime + cstime), and
 * that of its live children. PostgreSQL's backends are children of the
 * postmaster, so for its pid this is the whole server's CPU; a backend that
 * exits moves its time from the live sum into the postmaster's reaped sum, so
 * the difference of two readings is the time used between them.
 */
export function processTreeCpuSeconds(pid: number): number {
  const own = statFields(pid);
  if (!own) return 0;
  const total = (fields: string[]) => Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  let ticks = total(own);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // Field 4 (ppid) is index 1 after the command name.
    if (fields && Number(fields[1]) === pid) ticks += total(fields);
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** Peak resident set size of a process so far (VmHWM in /proc/<pid>/status), in bytes. */
export function peakResidentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * Waits until the machine's 1-minute load average has fallen below `below` (other work on the machine, such as
 * another benchmark, would otherwise be timed with the requests), for at most `timeoutMs`; returns the load
 * average when timing starts and how long it waited.
 */
export async function waitForQuietMachine(below: number, timeoutMs: number): Promise<{ load: number; waitedMs: number }> {
  const started = performance.now();
  for (;;) {
    const [load] = loadavg();
    const waitedMs = performance.now() - started;
    if (load! < below || waitedMs > timeoutMs) return { load: load!, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
}
