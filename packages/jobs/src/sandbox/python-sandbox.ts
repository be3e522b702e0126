import { spawn } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, chmod, chown, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { InputError } from "@stepwiser/core";
import type { SandboxLimits } from "./limits";

/**
 * Runs a model-written python block (GenPRM's "[Code Output]") in a subprocess that cannot reach the network and is
 * bounded in wall time, CPU time, memory, processes, file size and output. Never in-process.
 *
 * The chain is `unshare --user --map-root-user --net --pid --fork --kill-child python3 -I -c INIT ... block.py`:
 * - a new user namespace (no privileges are needed to make the others) with a network namespace in which only a
 *   downed loopback exists, and a PID namespace so that every process the block starts dies with it;
 * - INIT, a few lines of python running as the namespace's PID 1, sets the resource limits (hard = soft, so the block
 *   cannot raise them), then forks the block's own `python3 -I block.py` and waits for it, reporting how it ended on
 *   a private pipe (fd 3) that the block does not inherit. Limits are set inside the namespace rather than by
 *   `prlimit` around `unshare` because RLIMIT_NPROC counts the processes of a user in its user namespace: set inside,
 *   the bound is "N processes of this block", set outside it would count every process the worker user owns.
 */

export type SandboxStatus = "ok" | "error" | "timeout" | "killed" | "refused";

export interface SandboxResult {
  status: SandboxStatus;
  /** The block's stdout, at most SANDBOX_OUTPUT_LIMIT_BYTES (then a truncation note). */
  stdout: string;
  /** The block's stderr (tracebacks), bounded the same way; notes from the sandbox itself are appended here. */
  stderr: string;
  /** The block's exit code; null when it was killed by a signal, stopped at the deadline, or not run. */
  exitCode: number | null;
  durationMs: number;
}

export type SandboxAvailability = { available: true; python: string; unshare: string } | { available: false; reason: string };

/** Bytes kept of each of stdout and stderr. */
export const SANDBOX_OUTPUT_LIMIT_BYTES = 16 * 1024;
/** Processes (and threads) the block's user may have in its namespace, INIT included. */
export const SANDBOX_MAX_PROCESSES = 32;
/** Largest file the block may write. */
export const SANDBOX_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The uid and gid blocks run as when the worker runs as root (`nobody`). */
export const SANDBOX_NOBODY = 65534;
/** Open files per process. */
export const SANDBOX_MAX_OPEN_FILES = 64;

const NO_PYTHON = "code execution needs python3 on the worker's PATH; none found";

/** PID 1 of the namespace: limits, then the block in a child, then how it ended on fd 3. argv: cpu as nproc fsize nofile python block. */
const INIT = `
import os, resource, signal, sys
cpu, mem, nproc, fsize, nofile = (int(a) for a in sys.argv[1:6])
python, block = sys.argv[6], sys.argv[7]
for which, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (mem, mem)), (resource.RLIMIT_CORE, (0, 0)),
                     (resource.RLIMIT_NPROC, (nproc, nproc)), (resource.RLIMIT_FSIZE, (fsize, fsize)), (resource.RLIMIT_NOFILE, (nofile, nofile))):
    resource.setrlimit(which, value)
report = os.fdopen(3, "w")
child = os.fork()
if child == 0:
    os.close(3)
    os.execv(python, [python, "-I", block])
while True:
    pid, status = os.wait()
    if pid == child:
        break
if os.WIFSIGNALED(status):
    report.write("signal %d %s" % (os.WTERMSIG(status), signal.Signals(os.WTERMSIG(status)).name))
else:
    report.write("exit %d" % os.waitstatus_to_exitcode(status))
report.close()
`;

const NAMESPACE_FLAGS = ["--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"];

let availability: Promise<SandboxAvailability> | undefined;

/** Whether this worker can run code blocks: python3 on PATH and unprivileged user+network+PID namespaces. Checked once. */
export function sandboxAvailability(): Promise<SandboxAvailability> {
  availability ??= checkSandboxAvailability();
  return availability;
}

/** A submission's check: a run that asks for `executeCode` is refused, naming the field, where this worker cannot sandbox. */
export async function refuseCodeExecutionWithoutSandbox(
  options: { executeCode: boolean },
  field = "protocolOptions.executeCode",
  sandbox: Promise<SandboxAvailability> = sandboxAvailability(),
): Promise<void> {
  if (!options.executeCode) return;
  const found = await sandbox;
  if (!found.available) throw new InputError(`code execution is not available on this worker: ${found.reason}`, { field });
}

/** The uncached check behind sandboxAvailability, against a given PATH. */
export async function checkSandboxAvailability(pathVariable = process.env.PATH ?? ""): Promise<SandboxAvailability> {
  const identity = sandboxIdentity();
  let python = "";
  let failure = "";
  for (const onPath of await findAllOnPath("python3", pathVariable)) {
    // Shims (pyenv and the like) need their own environment; the sandbox runs the interpreter they resolve to.
    const resolved = await runPlain(onPath, ["-I", "-c", "import sys; print(sys.executable)"], { ...process.env, PATH: pathVariable }, identity);
    python = resolved.code === 0 ? resolved.stdout.trim() : "";
    if (python) break;
    failure ||= `${onPath} did not start${identity ? ` as uid ${identity.uid}` : ""}: ${resolved.stderr.trim() || `exit ${resolved.code}`}`;
  }
  if (!python) return { available: false, reason: failure ? `${NO_PYTHON} that runs (${failure})` : NO_PYTHON };
  const [unshare] = await findAllOnPath("unshare", pathVariable);
  if (!unshare) return { available: false, reason: "code execution needs unshare (util-linux) on the worker's PATH to cut the network; none found" };
  const probe = await runPlain(unshare, [...NAMESPACE_FLAGS, python, "-I", "-c", "import socket; print(len(socket.if_nameindex()))"], minimalEnv(tmpdir(), python), identity);
  if (probe.code !== 0 || probe.stdout.trim() !== "1") {
    return {
      available: false,
      reason: `code execution needs unprivileged user and network namespaces, which this worker cannot create (${probe.stderr.trim() || `unshare exited ${probe.code}`}); code blocks are refused rather than run with network`,
    };
  }
  return { available: true, python, unshare };
}

/** Runs one python block under `limits`; never throws for anything the block does. */
export async function runPythonSandboxed(code: string, limits: SandboxLimits, options: { signal?: AbortSignal } = {}): Promise<SandboxResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const sandbox = await sandboxAvailability();
  if (!sandbox.available) return { status: "refused", stdout: "", stderr: sandbox.reason, exitCode: null, durationMs: elapsed() };
  if (options.signal?.aborted) return { status: "killed", stdout: "", stderr: "[sandbox: cancelled before it started]", exitCode: null, durationMs: elapsed() };

  const dir = await mkdtemp(join(tmpdir(), "stepwiser-sandbox-"));
  try {
    const identity = sandboxIdentity();
    const block = join(dir, "block.py");
    await writeFile(block, code);
    if (identity) {
      await chown(dir, identity.uid, identity.gid);
      await chown(block, identity.uid, identity.gid);
    }
    const args = [
      ...NAMESPACE_FLAGS,
      sandbox.python,
      "-I",
      "-c",
      INIT,
      String(limits.cpuSeconds),
      String(limits.memoryMb * 1024 * 1024),
      String(SANDBOX_MAX_PROCESSES),
      String(SANDBOX_MAX_FILE_BYTES),
      String(SANDBOX_MAX_OPEN_FILES),
      sandbox.python,
      block,
    ];
    const child = spawn(sandbox.unshare, args, { cwd: dir, env: minimalEnv(dir, sandbox.python), stdio: ["ignore", "pipe", "pipe", "pipe"], detached: true, ...identity });
    const stdout = new BoundedText(SANDBOX_OUTPUT_LIMIT_BYTES);
    const stderr = new BoundedText(SANDBOX_OUTPUT_LIMIT_BYTES);
    let report = "";
    child.stdout!.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.add(chunk));
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => (report += chunk.toString("utf8")));

    let stoppedBy: "timeout" | "cancelled" | undefined;
    const killGroup = (why: "timeout" | "cancelled") => {
      stoppedBy ??= why;
      try {
        // The whole process group; the PID namespace takes any process that left it when its PID 1 dies.
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const deadline = setTimeout(() => killGroup("timeout"), limits.timeLimitMs);
    const onAbort = () => killGroup("cancelled");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, spawnError: error }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
    clearTimeout(deadline);
    options.signal?.removeEventListener("abort", onAbort);

    const result = (status: SandboxStatus, exitCode: number | null, note?: string): SandboxResult => {
      const errors = stderr.text();
      const separator = errors && !errors.endsWith("\n") ? "\n" : "";
      return { status, stdout: stdout.text(), stderr: note ? `${errors}${separator}[sandbox: ${note}]` : errors, exitCode, durationMs: elapsed() };
    };
    if (stoppedBy === "timeout") return result("timeout", null, `stopped at the time limit of ${limits.timeLimitMs} ms`);
    if (stoppedBy === "cancelled") return result("killed", null, "cancelled");
    if (ended.spawnError) return result("error", null, `could not start: ${ended.spawnError.message}`);
    const exit = /^exit (-?\d+)$/.exec(report.trim());
    if (exit) {
      const exitCode = Number(exit[1]);
      return result(exitCode === 0 ? "ok" : "error", exitCode);
    }
    const killed = /^signal (\d+) (\w+)$/.exec(report.trim());
    if (killed) return result("killed", null, `killed by ${killed[2]}${signalCause(killed[2]!, limits)}`);
    return result("error", ended.code, `the sandbox itself failed (unshare ${ended.signal ? `killed by ${ended.signal}` : `exited ${ended.code}`})`);
  } finally {
    await removeTree(dir);
  }
}

function signalCause(name: string, limits: SandboxLimits): string {
  if (name === "SIGXCPU") return ` (CPU limit of ${limits.cpuSeconds} s)`;
  if (name === "SIGKILL") return ` (CPU limit of ${limits.cpuSeconds} s, or out of memory)`;
  if (name === "SIGXFSZ") return ` (file size limit of ${SANDBOX_MAX_FILE_BYTES / 1024 / 1024} MB)`;
  return "";
}

/** PATH (the interpreter's folder and the system's) and HOME/TMPDIR in the block's own folder: nothing of the worker's environment. */
function minimalEnv(dir: string, python: string): NodeJS.ProcessEnv {
  // A cast, not an annotation: an app may declare variables every ProcessEnv has (NODE_ENV), and the block gets none of them.
  return { PATH: [dirname(python), "/usr/local/bin", "/usr/bin", "/bin"].join(delimiter), HOME: dir, TMPDIR: dir } as unknown as NodeJS.ProcessEnv;
}

/**
 * Who the block runs as. A worker running as root hands the block to `nobody`: the kernel never applies RLIMIT_NPROC
 * to root's processes (whatever their namespace), and root's files are not the block's to read or write.
 */
function sandboxIdentity(): { uid: number; gid: number } | undefined {
  return process.getuid?.() === 0 ? { uid: SANDBOX_NOBODY, gid: SANDBOX_NOBODY } : undefined;
}

async function findAllOnPath(name: string, pathVariable: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of pathVariable.split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      await access(candidate, fsConstants.X_OK);
      if (!found.includes(candidate)) found.push(candidate);
    } catch {
      // not here
    }
  }
  return found;
}

function runPlain(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  identity: { uid: number; gid: number } | undefined,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd: tmpdir(), stdio: ["ignore", "pipe", "pipe"], timeout: 10_000, ...identity });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", (error) => resolve({ code: null, stdout, stderr: error.message }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
class BoundedText {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  constructor(private readonly limit: number) {}
  add(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }
  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0 ? `${text}\n[output truncated: ${this.dropped} more bytes not kept]` : text;
  }
}

/** Removes the block's folder even where the block took away its own permissions on parts of it. */
async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    return;
  } catch {
    await restorePermissions(dir);
  }
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

async function restorePermissions(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await restorePermissions(join(dir, entry.name));
  }
}
