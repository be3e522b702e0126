import { spawn } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import { access, lstat, readFile, readlink, realpath } from "node:fs/promises";
import { delimiter, dirname, join, sep } from "node:path";
import type { Readable, Writable } from "node:stream";
import { InputError } from "@stepwiser/core";
import { sandboxLimitsSchema, type SandboxLimits } from "./limits";
import { SECCOMP_DENIED_SYSCALLS, seccompArch, seccompProgram } from "./seccomp";

/**
 * Runs a model-written python block (GenPRM's "[Code Output]") under bubblewrap (`bwrap`), never in-process:
 *
 * - every namespace of its own (`--unshare-all` with `--unshare-user`): mount, PID, network, IPC, UTS, cgroup, user;
 *   the network namespace holds a downed loopback only, so the block reaches no TCP port and no abstract Unix
 *   socket of the machine; `--disable-userns` and the seccomp filter stop it from making namespaces of its own;
 * - a root file system of its own: a read-only tmpfs holding read-only binds of /usr, the /bin, /sbin and /lib*
 *   entries (symlinks on a merged-/usr system), /etc/ld.so.cache and the interpreter's prefix when it lives outside
 *   /usr; a fresh /proc (its own PIDs only), a minimal /dev (read-only, with a small /dev/shm), and size-bounded
 *   tmpfs mounts for /tmp and its working folder /sandbox, where the block's code is a read-only file. No host path
 *   holding data (home folders, /root, /tmp, /work, the repository, /etc beyond the loader cache) is visible;
 * - uid and gid 65534 inside; a worker running as root starts bwrap as uid and gid 65534 (no supplementary groups)
 *   too, so the block is nobody outside as well; no capabilities (`--cap-drop ALL`), no new privileges, its own
 *   session (`--new-session`, no terminal to inject into) and it dies with the worker (`--die-with-parent`);
 * - a seccomp filter (seccomp.ts) refusing namespace, mount, tracing, keyring, BPF, io_uring, module, clock and
 *   socket calls;
 * - an environment of PATH, HOME, TMPDIR, LANG and PWD only (`--clearenv`), and no file descriptor but stdin,
 *   stdout and stderr (INIT closes any the worker inherited without close-on-exec);
 * - limits set by a few lines of python (INIT) that run first inside the sandbox, hard equal to soft so the block
 *   cannot raise them: CPU seconds, address space, processes, file size, open files, no core files. They are set
 *   inside the user namespace because the process count is kept per user namespace: the bound is "this block's
 *   processes", not every process of the worker's user. INIT then forks the block and reports how it ended on a
 *   private pipe (fd 3) the block does not inherit;
 * - a wall-clock deadline, enforced from outside by killing the sandbox's PID 1, which takes every process of the
 *   sandbox with it; stdout and stderr each kept to SANDBOX_OUTPUT_LIMIT_BYTES, and the block killed once it writes
 *   SANDBOX_OUTPUT_KILL_MARGIN_BYTES more than that, so a block printing forever costs the worker nothing;
 * - at most STEPWISER_SANDBOX_MAX_CONCURRENT blocks at once per worker, whose memory limits add up to at most
 *   STEPWISER_SANDBOX_MEMORY_BUDGET_MB; a block waits for room (and stops waiting when its run is cancelled).
 *
 * The interpreter is the first python3 on PATH whose installation lives under /usr (a system python); when none
 * does (a pyenv or venv interpreter only), the first that starts is used and its prefix alone is bound read-only.
 * Where bwrap is missing or the machine refuses unprivileged user namespaces, code execution is refused with what
 * is missing and how to enable it; it never falls back to weaker isolation.
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

/** The isolation a worker's sandbox provides, as its availability check verified it. */
export interface SandboxIsolation {
  /** "bubblewrap 0.8.0" */
  tool: string;
  bwrap: string;
  python: string;
  namespaces: readonly string[];
  /** The uid and gid blocks run as inside, and as seen by the machine. */
  uid: { inside: number; gid: number; outside: number; outsideGid: number };
  seccomp: { on: true; architectures: readonly string[]; deniedSyscalls: readonly string[]; cloneNamespaces: "refused"; clone3: "ENOSYS" };
  capabilities: "none";
  noNewPrivileges: true;
  filesystem: { readOnlyBinds: readonly string[]; tmpfs: Readonly<Record<string, number>>; workingFolder: string };
  environment: readonly string[];
  /** Per block, hard = soft; memory and CPU are the defaults, a run's `sandbox` limits may set others. */
  rlimits: { cpuSeconds: number; addressSpaceMb: number; processes: number; fileSizeBytes: number; openFiles: number; coreBytes: 0 };
  outputLimitBytes: number;
}

export type SandboxAvailability =
  | { available: true; python: string; bwrap: string; isolation: SandboxIsolation }
  | { available: false; reason: string };

/** Bytes kept of each of stdout and stderr. */
export const SANDBOX_OUTPUT_LIMIT_BYTES = 16 * 1024;
/** Bytes a block may write to a stream beyond what is kept before it is killed. */
export const SANDBOX_OUTPUT_KILL_MARGIN_BYTES = 1024 * 1024;
/** Processes (and threads) the block's user may have in its namespace, INIT included. */
export const SANDBOX_MAX_PROCESSES = 32;
/** Largest file the block may write. */
export const SANDBOX_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Sizes of the block's writable tmpfs mounts. */
export const SANDBOX_FOLDER_BYTES = 32 * 1024 * 1024;
export const SANDBOX_TMP_BYTES = 32 * 1024 * 1024;
export const SANDBOX_SHM_BYTES = 4 * 1024 * 1024;
/** The uid and gid blocks run as inside the sandbox, and outside when the worker runs as root (`nobody`). */
export const SANDBOX_NOBODY = 65534;
/** Open files per process. */
export const SANDBOX_MAX_OPEN_FILES = 64;
/** The block's working folder (and HOME) inside the sandbox. */
export const SANDBOX_FOLDER = "/sandbox";
/** Defaults of the per-worker budget. */
export const SANDBOX_DEFAULT_MAX_CONCURRENT = 2;
export const SANDBOX_DEFAULT_MEMORY_BUDGET_MB = 2048;

const BLOCK_PATH = `${SANDBOX_FOLDER}/block.py`;
const NAMESPACES = ["user", "mount", "pid", "network", "ipc", "uts", "cgroup"] as const;
/** Entries of the host's root the sandbox's root mirrors: a symlink stays a symlink, a folder is bound read-only. */
const SYSTEM_ROOT_ENTRIES = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
/** Files of /etc the interpreter and the C library read. */
const ETC_FILES = ["/etc/ld.so.cache"];
const INSTALL_BWRAP = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap)";
const NO_PYTHON = "code execution needs python3 on the worker's PATH; none found";
const NO_BWRAP = `code execution needs bubblewrap (bwrap) on the worker's PATH to isolate code blocks; none found: ${INSTALL_BWRAP}`;
const NEVER_WEAKER = "code blocks are refused rather than run with weaker isolation";

/** PID 2 of the sandbox (bwrap's reaper is PID 1): limits, then the block in a child, then how it ended on fd 3. */
const INIT = `
import os, resource, signal, sys
# Descriptors the worker inherited from whatever started it (not close-on-exec) must not reach the block.
os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
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

/** The availability probe: a block that reports what it can see and do, checked by verifyIsolation. */
const PROBE = `
import json, os, resource, socket
def opened(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as error:
        return error.errno
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
facts = {
    "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid()],
    "groups": os.getgroups(),
    "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "interfaces": [line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:]],
    "unixSockets": len(open("/proc/net/unix").read().splitlines()) - 1,
    "root": sorted(os.listdir("/")),
    "fds": [fd for fd in sorted(int(f) for f in os.listdir("/proc/self/fd")) if opened(fd)],
    "seccomp": status.get("Seccomp", "").strip(),
    "capabilities": [status.get(k, "").strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "noNewPrivs": status.get("NoNewPrivs", "").strip(),
    "socket": attempt(lambda: socket.socket(socket.AF_UNIX)),
    "writeRoot": attempt(lambda: open("/probe", "w")),
    "writeFolder": attempt(lambda: open("probe", "w").close()),
    "environment": sorted(k for k in os.environ if k != "LC_CTYPE"),
    "cwd": os.getcwd(),
    "rlimits": {name: list(resource.getrlimit(getattr(resource, "RLIMIT_" + name))) for name in ("CPU", "AS", "NPROC", "FSIZE", "NOFILE", "CORE")},
}
print(json.dumps(facts))
`;

// ---------------------------------------------------------------------------------------------------------------
// Availability

interface Interpreter {
  /** The path the sandbox runs (the same path inside). */
  executable: string;
  /** Folders outside /usr it needs, bound read-only at the same path. */
  binds: string[];
}

interface Sandbox {
  bwrap: string;
  tool: string;
  python: Interpreter;
  seccomp: Buffer;
  /** The host's /bin, /lib … as the sandbox mirrors them. */
  rootEntries: { name: string; symlink?: string }[];
}

const availabilityByPath = new Map<string, Promise<{ availability: SandboxAvailability; sandbox?: Sandbox }>>();

function checked(pathVariable: string): Promise<{ availability: SandboxAvailability; sandbox?: Sandbox }> {
  let found = availabilityByPath.get(pathVariable);
  if (!found) {
    found = probeSandbox(pathVariable);
    availabilityByPath.set(pathVariable, found);
  }
  return found;
}

/** Whether this worker can run code blocks: python3 and bwrap on PATH and a sandbox verified by a probe block. Checked once per PATH. */
export async function sandboxAvailability(): Promise<SandboxAvailability> {
  return (await checked(process.env.PATH ?? "")).availability;
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
  return (await probeSandbox(pathVariable)).availability;
}

async function probeSandbox(pathVariable: string): Promise<{ availability: SandboxAvailability; sandbox?: Sandbox }> {
  const refused = (reason: string) => ({ availability: { available: false as const, reason } });
  const identity = sandboxIdentity();
  const python = await findInterpreter(pathVariable, identity);
  if ("failure" in python) return refused(python.failure);
  const [bwrap] = await findAllOnPath("bwrap", pathVariable);
  if (!bwrap) return refused(NO_BWRAP);
  const seccomp = seccompProgram();
  const arch = seccompArch();
  if (!seccomp || !arch) {
    return refused(`code execution needs a seccomp filter for this machine's architecture (${process.arch}), which the sandbox does not have (x86_64 and aarch64 only); ${NEVER_WEAKER}`);
  }
  const version = await runPlain(bwrap, ["--version"], { PATH: pathVariable }, identity);
  const tool = version.code === 0 ? version.stdout.trim() : "";
  if (!tool) return refused(`${bwrap} --version failed (${version.stderr.trim() || `exit ${version.code}`}): ${INSTALL_BWRAP}`);
  const sandbox: Sandbox = { bwrap, tool, python, seccomp, rootEntries: await systemRootEntries() };

  const limits = sandboxLimitsSchema.parse({ timeLimitMs: 10_000 });
  const probe = await runInSandbox(sandbox, PROBE, limits, {});
  if (probe.status !== "ok") {
    if (probe.sandboxFailure !== undefined) {
      if (NAMESPACE_FAILURE.test(probe.sandboxFailure)) return refused(namespaceFailureReason(probe.sandboxFailure, await hostFacts()));
      return refused(`the sandbox could not be set up (${probe.sandboxFailure}); ${NEVER_WEAKER}`);
    }
    return refused(`the sandbox's probe block did not run (${probe.status}: ${probe.stderr.trim() || `exit ${probe.exitCode}`}); ${NEVER_WEAKER}`);
  }
  let facts: ProbeFacts;
  try {
    facts = JSON.parse(probe.stdout) as ProbeFacts;
  } catch {
    return refused(`the sandbox's probe block printed something unexpected (${probe.stdout.slice(0, 200)}); ${NEVER_WEAKER}`);
  }
  const wrong = verifyIsolation(facts, sandbox, limits);
  if (wrong.length > 0) return refused(`the sandbox started but does not isolate code blocks as required (${wrong.join("; ")}); ${NEVER_WEAKER}`);
  const outside = identity ?? { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
  const isolation: SandboxIsolation = {
    tool,
    bwrap,
    python: python.executable,
    namespaces: NAMESPACES,
    uid: { inside: SANDBOX_NOBODY, gid: SANDBOX_NOBODY, outside: outside.uid, outsideGid: outside.gid },
    seccomp: { on: true, architectures: ["x86_64", "aarch64"], deniedSyscalls: SECCOMP_DENIED_SYSCALLS, cloneNamespaces: "refused", clone3: "ENOSYS" },
    capabilities: "none",
    noNewPrivileges: true,
    filesystem: {
      readOnlyBinds: ["/usr", ...sandbox.rootEntries.filter((entry) => !entry.symlink).map((entry) => `/${entry.name}`), ...ETC_FILES, ...python.binds],
      tmpfs: { [SANDBOX_FOLDER]: SANDBOX_FOLDER_BYTES, "/tmp": SANDBOX_TMP_BYTES, "/dev/shm": SANDBOX_SHM_BYTES },
      workingFolder: SANDBOX_FOLDER,
    },
    environment: facts.environment,
    rlimits: {
      cpuSeconds: limits.cpuSeconds,
      addressSpaceMb: limits.memoryMb,
      processes: SANDBOX_MAX_PROCESSES,
      fileSizeBytes: SANDBOX_MAX_FILE_BYTES,
      openFiles: SANDBOX_MAX_OPEN_FILES,
      coreBytes: 0,
    },
    outputLimitBytes: SANDBOX_OUTPUT_LIMIT_BYTES,
  };
  return { availability: { available: true, python: python.executable, bwrap, isolation }, sandbox };
}

interface ProbeFacts {
  ids: number[];
  groups: number[];
  pids: number[];
  interfaces: string[];
  unixSockets: number;
  root: string[];
  fds: number[];
  seccomp: string;
  capabilities: string[];
  noNewPrivs: string;
  socket: string | number;
  writeRoot: string | number;
  writeFolder: string | number;
  environment: string[];
  cwd: string;
  rlimits: Record<string, [number, number]>;
}

const EPERM = 1;
/** bwrap's messages when the kernel or a policy refuses it a namespace or its uid map. */
const NAMESPACE_FAILURE = /namespace|uid map|gid map|setgroups|Operation not permitted|Permission denied/i;

/** What is wrong with a probe's view of its sandbox; empty when it is isolated as required. */
function verifyIsolation(facts: ProbeFacts, sandbox: Sandbox, limits: SandboxLimits): string[] {
  const wrong: string[] = [];
  const expectSame = (what: string, seen: unknown, wanted: unknown) => {
    if (JSON.stringify(seen) !== JSON.stringify(wanted)) wrong.push(`${what} is ${JSON.stringify(seen)}, expected ${JSON.stringify(wanted)}`);
  };
  expectSame("uid, euid, gid, egid", facts.ids, [SANDBOX_NOBODY, SANDBOX_NOBODY, SANDBOX_NOBODY, SANDBOX_NOBODY]);
  // PID 1 bwrap's reaper, PID 2 INIT, PID 3 the block.
  if (facts.pids.length > 3 || facts.pids.some((pid) => pid > 3)) wrong.push(`/proc shows processes ${facts.pids.join(", ")} (expected the sandbox's own 1 to 3)`);
  expectSame("network interfaces", facts.interfaces, ["lo"]);
  expectSame("Unix sockets in the network namespace", facts.unixSockets, 0);
  const expectedRoot = new Set(["dev", "etc", "proc", "sandbox", "tmp", "usr", ...sandbox.rootEntries.map((entry) => entry.name), ...sandbox.python.binds.map((bind) => bind.split(sep)[1]!)]);
  const unexpected = facts.root.filter((name) => !expectedRoot.has(name));
  if (unexpected.length > 0) wrong.push(`the root shows ${unexpected.map((name) => `/${name}`).join(", ")}`);
  expectSame("open file descriptors", facts.fds, [0, 1, 2]);
  expectSame("seccomp mode", facts.seccomp, "2");
  if (facts.capabilities.some((mask) => !/^0+$/.test(mask))) wrong.push(`capabilities are ${facts.capabilities.join("/")}`);
  expectSame("no_new_privs", facts.noNewPrivs, "1");
  expectSame("socket()", facts.socket, EPERM);
  if (facts.writeRoot === "allowed") wrong.push("the root is writable");
  expectSame("writing in the working folder", facts.writeFolder, "allowed");
  expectSame("environment", facts.environment, ["HOME", "LANG", "PATH", "PWD", "TMPDIR"]);
  expectSame("working folder", facts.cwd, SANDBOX_FOLDER);
  expectSame("limits", facts.rlimits, {
    CPU: [limits.cpuSeconds, limits.cpuSeconds + 1],
    AS: [limits.memoryMb * 1024 * 1024, limits.memoryMb * 1024 * 1024],
    NPROC: [SANDBOX_MAX_PROCESSES, SANDBOX_MAX_PROCESSES],
    FSIZE: [SANDBOX_MAX_FILE_BYTES, SANDBOX_MAX_FILE_BYTES],
    NOFILE: [SANDBOX_MAX_OPEN_FILES, SANDBOX_MAX_OPEN_FILES],
    CORE: [0, 0],
  });
  return wrong;
}

/** Facts of the machine that explain why it refuses user namespaces, read where the kernel exposes them. */
export interface HostNamespaceFacts {
  /** /proc/sys/kernel/unprivileged_userns_clone (Debian and older Ubuntu kernels), absent elsewhere. */
  unprivilegedUsernsClone?: string;
  /** /proc/sys/user/max_user_namespaces */
  maxUserNamespaces?: string;
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns (Ubuntu 23.10 and later). */
  apparmorRestrictUnprivilegedUserns?: string;
  /** The worker's own seccomp mode (/proc/self/status): "2" under a filter, as in a container's default profile. */
  seccompMode?: string;
}

async function hostFacts(): Promise<HostNamespaceFacts> {
  const read = (path: string) => readFile(path, "utf8").then((text) => text.trim(), () => undefined);
  const status = (await read("/proc/self/status")) ?? "";
  return {
    unprivilegedUsernsClone: await read("/proc/sys/kernel/unprivileged_userns_clone"),
    maxUserNamespaces: await read("/proc/sys/user/max_user_namespaces"),
    apparmorRestrictUnprivilegedUserns: await read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
    seccompMode: /^Seccomp:\s*(\d)/m.exec(status)?.[1],
  };
}

/** The refusal for a bwrap that could not build its sandbox: its message, then what to change on this machine. */
export function namespaceFailureReason(bwrapMessage: string, facts: HostNamespaceFacts): string {
  const hints: string[] = [];
  if (facts.unprivilegedUsernsClone === "0") hints.push("enable unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1");
  if (facts.maxUserNamespaces === "0") hints.push("allow user namespaces: sysctl -w user.max_user_namespaces=10000");
  if (facts.apparmorRestrictUnprivilegedUserns === "1") {
    hints.push("AppArmor restricts unprivileged user namespaces: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile granting bwrap `userns`");
  }
  if (facts.seccompMode === "2") {
    hints.push(
      "the worker runs under a seccomp filter (a container's default profile blocks the clone/unshare bwrap needs): run the worker's container with --security-opt seccomp=<a profile allowing clone, unshare and setns with namespace flags> or seccomp=unconfined",
    );
  }
  if (hints.length === 0) {
    hints.push(
      "the kernel, a sysctl or a container runtime refuses unprivileged user namespaces: check kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, kernel.apparmor_restrict_unprivileged_userns=0, and that the container's seccomp profile allows clone/unshare (--security-opt seccomp=…)",
    );
  }
  const message = bwrapMessage.trim().split("\n").slice(-3).join(" ") || "bwrap failed without a message";
  return `code execution needs unprivileged user namespaces for bubblewrap, which this machine refuses (${message}); to enable: ${hints.join("; ")}; ${NEVER_WEAKER}`;
}

/** The python3 the sandbox runs: the first on PATH installed under /usr, else the first that starts (its prefix bound). */
async function findInterpreter(pathVariable: string, identity: Identity | undefined): Promise<Interpreter | { failure: string }> {
  const describe = "import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]))";
  let fallback: Interpreter | undefined;
  let failure = "";
  for (const onPath of await findAllOnPath("python3", pathVariable)) {
    // Shims (pyenv and the like) need their own environment to say which interpreter they start.
    const resolved = await runPlain(onPath, ["-I", "-c", describe], { ...process.env, PATH: pathVariable }, identity);
    let paths: string[] | undefined;
    try {
      paths = resolved.code === 0 ? (JSON.parse(resolved.stdout) as string[]) : undefined;
    } catch {
      paths = undefined;
    }
    if (!paths?.[0]) {
      failure ||= `${onPath} did not start${identity ? ` as uid ${identity.uid}` : ""}: ${resolved.stderr.trim() || `exit ${resolved.code}`}`;
      continue;
    }
    const executable = paths[0];
    const folders = await Promise.all([dirname(executable), ...paths.slice(1)].map((path) => realpath(path).catch(() => path)));
    const outside = folders.filter((folder) => !isUnder(folder, "/usr"));
    const binds = [...new Set(outside)].filter((folder, _, all) => !all.some((other) => other !== folder && isUnder(folder, other)));
    if (binds.length === 0) return { executable, binds: [] };
    fallback ??= { executable, binds };
  }
  if (fallback) return fallback;
  return { failure: failure ? `${NO_PYTHON} that runs (${failure})` : NO_PYTHON };
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

async function systemRootEntries(): Promise<{ name: string; symlink?: string }[]> {
  const entries: { name: string; symlink?: string }[] = [];
  for (const name of SYSTEM_ROOT_ENTRIES) {
    const stats = await lstat(`/${name}`).catch(() => undefined);
    if (!stats) continue;
    if (stats.isSymbolicLink()) entries.push({ name, symlink: await readlink(`/${name}`) });
    else if (stats.isDirectory()) entries.push({ name });
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------------------------
// The per-worker budget

export interface SandboxBudget {
  maxConcurrent: number;
  memoryBudgetMb: number;
}

/** The budget from STEPWISER_SANDBOX_MAX_CONCURRENT and STEPWISER_SANDBOX_MEMORY_BUDGET_MB; throws naming a bad value. */
export function sandboxBudget(env: NodeJS.ProcessEnv = process.env): SandboxBudget {
  const read = (name: string, fallback: number, minimum: number): number => {
    const given = env[name]?.trim();
    if (!given) return fallback;
    const value = Number(given);
    if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be a whole number of at least ${minimum}, got "${given}"`);
    return value;
  };
  return {
    maxConcurrent: read("STEPWISER_SANDBOX_MAX_CONCURRENT", SANDBOX_DEFAULT_MAX_CONCURRENT, 1),
    memoryBudgetMb: read("STEPWISER_SANDBOX_MEMORY_BUDGET_MB", SANDBOX_DEFAULT_MEMORY_BUDGET_MB, 32),
  };
}

interface Waiter {
  memoryMb: number;
  grant: () => void;
}

const load = { running: 0, memoryMb: 0, waiting: [] as Waiter[] };

/** The blocks running and waiting in this worker now, and the memory the running ones may use. */
export function sandboxLoad(): { running: number; waiting: number; memoryMb: number } {
  return { running: load.running, waiting: load.waiting.length, memoryMb: load.memoryMb };
}

function grantWaiters(budget: SandboxBudget): void {
  // First come, first served: a large block at the head is not overtaken by smaller ones behind it.
  while (load.waiting.length > 0) {
    const head = load.waiting[0]!;
    if (load.running >= budget.maxConcurrent || load.memoryMb + head.memoryMb > budget.memoryBudgetMb) return;
    load.waiting.shift();
    load.running += 1;
    load.memoryMb += head.memoryMb;
    head.grant();
  }
}

/** Waits for room for a block of `memoryMb`; resolves to its release, or to undefined when `signal` aborts first. */
function reserve(memoryMb: number, budget: SandboxBudget, signal: AbortSignal | undefined): Promise<(() => void) | undefined> {
  return new Promise((resolve) => {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      load.running -= 1;
      load.memoryMb -= memoryMb;
      grantWaiters(sandboxBudgetOrDefault());
    };
    const waiter: Waiter = {
      memoryMb,
      grant: () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(release);
      },
    };
    const onAbort = () => {
      const index = load.waiting.indexOf(waiter);
      if (index >= 0) load.waiting.splice(index, 1);
      resolve(undefined);
      grantWaiters(sandboxBudgetOrDefault());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    load.waiting.push(waiter);
    grantWaiters(budget);
  });
}

function sandboxBudgetOrDefault(): SandboxBudget {
  try {
    return sandboxBudget();
  } catch {
    return { maxConcurrent: SANDBOX_DEFAULT_MAX_CONCURRENT, memoryBudgetMb: SANDBOX_DEFAULT_MEMORY_BUDGET_MB };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Running a block

/** Runs one python block under `limits`; never throws for anything the block does. */
export async function runPythonSandboxed(code: string, limits: SandboxLimits, options: { signal?: AbortSignal } = {}): Promise<SandboxResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const notRun = (status: SandboxStatus, stderr: string): SandboxResult => ({ status, stdout: "", stderr, exitCode: null, durationMs: elapsed() });
  const { availability, sandbox } = await checked(process.env.PATH ?? "");
  if (!availability.available || !sandbox) return notRun("refused", availability.available ? "the sandbox is not available" : availability.reason);
  if (options.signal?.aborted) return notRun("killed", "[sandbox: cancelled before it started]");
  let budget: SandboxBudget;
  try {
    budget = sandboxBudget();
  } catch (error) {
    return notRun("refused", `the sandbox budget is misconfigured: ${(error as Error).message}`);
  }
  if (limits.memoryMb > budget.memoryBudgetMb) {
    return notRun(
      "refused",
      `the block's memory limit of ${limits.memoryMb} MB is more than this worker's sandbox memory budget of ${budget.memoryBudgetMb} MB (STEPWISER_SANDBOX_MEMORY_BUDGET_MB)`,
    );
  }
  const release = await reserve(limits.memoryMb, budget, options.signal);
  if (!release) return notRun("killed", "[sandbox: cancelled while waiting for room in the worker's sandbox budget]");
  try {
    const result = await runInSandbox(sandbox, code, limits, options);
    const { sandboxFailure: _sandboxFailure, ...rest } = result;
    return { ...rest, durationMs: elapsed() };
  } finally {
    release();
  }
}

type Identity = { uid: number; gid: number };

/**
 * Who bwrap runs as. A worker running as root hands the sandbox to `nobody`: root's files are not the block's,
 * and the kernel never applies the process limit to root's processes.
 */
function sandboxIdentity(): Identity | undefined {
  return process.getuid?.() === 0 ? { uid: SANDBOX_NOBODY, gid: SANDBOX_NOBODY } : undefined;
}

function bwrapArguments(sandbox: Sandbox, limits: SandboxLimits): string[] {
  const env = { PATH: [...new Set([dirname(sandbox.python.executable), "/usr/local/bin", "/usr/bin", "/bin"])].join(delimiter), HOME: SANDBOX_FOLDER, TMPDIR: "/tmp", LANG: "C.UTF-8" };
  const root: string[] = ["--ro-bind", "/usr", "/usr"];
  for (const entry of sandbox.rootEntries) {
    if (entry.symlink) root.push("--symlink", entry.symlink, `/${entry.name}`);
    else root.push("--ro-bind", `/${entry.name}`, `/${entry.name}`);
  }
  for (const file of ETC_FILES) root.push("--ro-bind-try", file, file);
  for (const folder of sandbox.python.binds) root.push("--ro-bind", folder, folder);
  return [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--uid",
    String(SANDBOX_NOBODY),
    "--gid",
    String(SANDBOX_NOBODY),
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    ...Object.entries(env).flatMap(([name, value]) => ["--setenv", name, value]),
    ...root,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(SANDBOX_SHM_BYTES),
    "--tmpfs",
    "/dev/shm",
    "--size",
    String(SANDBOX_TMP_BYTES),
    "--tmpfs",
    "/tmp",
    "--size",
    String(SANDBOX_FOLDER_BYTES),
    "--tmpfs",
    SANDBOX_FOLDER,
    "--ro-bind-data",
    "6",
    BLOCK_PATH,
    "--remount-ro",
    "/dev",
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_FOLDER,
    "--info-fd",
    "4",
    "--seccomp",
    "5",
    "--",
    sandbox.python.executable,
    "-I",
    "-c",
    INIT,
    String(limits.cpuSeconds),
    String(limits.memoryMb * 1024 * 1024),
    String(SANDBOX_MAX_PROCESSES),
    String(SANDBOX_MAX_FILE_BYTES),
    String(SANDBOX_MAX_OPEN_FILES),
    sandbox.python.executable,
    BLOCK_PATH,
  ];
}

/** One block through bwrap, outside the budget; `sandboxFailure` is bwrap's own message when it could not build the sandbox. */
async function runInSandbox(sandbox: Sandbox, code: string, limits: SandboxLimits, options: { signal?: AbortSignal }): Promise<SandboxResult & { sandboxFailure?: string }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (options.signal?.aborted) return { status: "killed", stdout: "", stderr: "[sandbox: cancelled before it started]", exitCode: null, durationMs: elapsed() };
  const identity = sandboxIdentity();
  // fd 3: INIT's report; 4: bwrap's info (the sandbox's PID 1 as the machine sees it); 5: the seccomp program; 6: the block.
  const child = spawn(sandbox.bwrap, bwrapArguments(sandbox, limits), {
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", "pipe", "pipe"],
    detached: true,
    ...identity,
  });
  const stdout = new BoundedText(SANDBOX_OUTPUT_LIMIT_BYTES);
  const stderr = new BoundedText(SANDBOX_OUTPUT_LIMIT_BYTES);
  let report = "";
  let info = "";
  let exited = false;
  let stoppedBy: "timeout" | "cancelled" | "output" | undefined;

  const sandboxPid = () => Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1] ?? 0);
  const kill = (why: "timeout" | "cancelled" | "output") => {
    stoppedBy ??= why;
    if (exited) return;
    const pid = sandboxPid();
    try {
      // The sandbox's PID 1: every process of its PID namespace dies with it, and bwrap, its parent, then exits.
      if (pid > 0) process.kill(pid, "SIGKILL");
      // Before bwrap has said who that is: bwrap's process group, which PID 1 belongs to until it is told otherwise.
      else process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const onOutput = (into: BoundedText) => (chunk: Buffer) => {
    into.add(chunk);
    if (into.droppedBytes > SANDBOX_OUTPUT_KILL_MARGIN_BYTES) kill("output");
  };
  child.stdout!.on("data", onOutput(stdout));
  child.stderr!.on("data", onOutput(stderr));
  (child.stdio[3] as Readable).on("data", (chunk: Buffer) => (report += chunk.toString("utf8")));
  (child.stdio[4] as Readable).on("data", (chunk: Buffer) => {
    info += chunk.toString("utf8");
    if (stoppedBy) kill(stoppedBy);
  });
  for (const [fd, data] of [
    [5, sandbox.seccomp],
    [6, Buffer.from(code, "utf8")],
  ] as const) {
    const stream = (child.stdio as unknown as (Readable | Writable | null)[])[fd] as Writable;
    // bwrap reads these once at start-up; one that died first makes the write fail, which its exit reports.
    stream.on("error", () => undefined);
    stream.end(data);
  }
  child.once("exit", () => (exited = true));

  const deadline = setTimeout(() => kill("timeout"), limits.timeLimitMs);
  const onAbort = () => kill("cancelled");
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
  if (stoppedBy === "output") return result("killed", null, `stopped after writing more than ${SANDBOX_OUTPUT_LIMIT_BYTES + SANDBOX_OUTPUT_KILL_MARGIN_BYTES} bytes to one stream`);
  if (ended.spawnError) return { ...result("error", null, `could not start bwrap: ${ended.spawnError.message}`), sandboxFailure: ended.spawnError.message };
  const exit = /^exit (-?\d+)$/.exec(report.trim());
  if (exit) {
    const exitCode = Number(exit[1]);
    return result(exitCode === 0 ? "ok" : "error", exitCode);
  }
  const killed = /^signal (\d+) (\w+)$/.exec(report.trim());
  if (killed) return result("killed", null, `killed by ${killed[2]}${signalCause(killed[2]!, limits)}`);
  // No report from INIT: bwrap could not build the sandbox (or INIT could not start in it); its own message is on stderr.
  const how = ended.signal ? `killed by ${ended.signal}` : `exited ${ended.code}`;
  return { ...result("error", ended.code, `the sandbox could not be set up (bwrap ${how})`), sandboxFailure: stderr.text().trim() || `bwrap ${how}` };
}

function signalCause(name: string, limits: SandboxLimits): string {
  if (name === "SIGXCPU") return ` (CPU limit of ${limits.cpuSeconds} s)`;
  if (name === "SIGKILL") return ` (CPU limit of ${limits.cpuSeconds} s, or out of memory)`;
  if (name === "SIGXFSZ") return ` (file size limit of ${SANDBOX_MAX_FILE_BYTES / 1024 / 1024} MB)`;
  return "";
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

function runPlain(command: string, args: string[], env: NodeJS.ProcessEnv, identity: Identity | undefined): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd: "/", stdio: ["ignore", "pipe", "pipe"], timeout: 10_000, ...identity });
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
  get droppedBytes(): number {
    return this.dropped;
  }
  add(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room > 0) {
      // A copy: the kept bytes must not hold the whole chunk's buffer alive.
      const part = Buffer.from(chunk.subarray(0, room));
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
