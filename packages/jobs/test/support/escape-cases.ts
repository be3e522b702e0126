import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sandboxLimitsSchema } from "../../src/sandbox/limits";
import { runPythonSandboxed, type SandboxResult } from "../../src/sandbox/python-sandbox";
import { seccompArch, syscallNumber } from "../../src/sandbox/seccomp";

/**
 * The escape corpus: blocks that try to get out of the sandbox, each run by `run` in the calling process (the
 * worker) and returning what the block and the host saw, as JSON. The checks live in sandbox-escape.test.ts; this
 * module also runs in a child process under another uid (escape-runner.ts), where vitest is not loaded.
 */

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../../../..");
/** A file of the repository the blocks try to append to (this module's own sandbox implementation). */
export const SANDBOX_SOURCE = resolve(here, "../../src/sandbox/python-sandbox.ts");

const limits = sandboxLimitsSchema.parse({ timeLimitMs: 3000, cpuSeconds: 3 });

/** A block's result with stdout parsed as JSON where it is (the blocks print one JSON object). */
export interface Ran {
  status: SandboxResult["status"];
  exitCode: number | null;
  durationMs: number;
  stderr: string;
  stdout: string;
  printed?: unknown;
}

async function run(code: string, overrides: Partial<typeof limits> = {}): Promise<Ran> {
  const result = await runPythonSandboxed(code, { ...limits, ...overrides });
  let printed: unknown;
  try {
    printed = JSON.parse(result.stdout);
  } catch {
    printed = undefined;
  }
  return { status: result.status, exitCode: result.exitCode, durationMs: result.durationMs, stderr: result.stderr.slice(0, 2000), stdout: result.stdout.slice(0, 2000), printed };
}

/** Python: `attempt(f)` is "ok:<value>" or the errno's name (or the exception's). */
const ATTEMPT = `
import errno, json, os, sys
def attempt(action):
    try:
        value = action()
        return "ok:" + (value if isinstance(value, str) else repr(value))[:80]
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    except Exception as error:
        return type(error).__name__
`;

async function temporaryFolder(mode = 0o700): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "stepwiser-escape-"));
  await chmod(folder, mode);
  return folder;
}

function sha256(text: Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Processes on this machine whose command line holds `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes(marker)) found.push(Number(pid));
  }
  return found;
}

async function listening(server: Server, ...args: unknown[]): Promise<void> {
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    (server.listen as (...a: unknown[]) => void)(...args, () => done());
  });
}

function counting(): { server: Server; connections: () => number } {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  return { server, connections: () => count };
}

export type EscapeCase = { name: string; run: () => Promise<Record<string, unknown>> };

export const ESCAPE_CASES: readonly EscapeCase[] = [
  {
    name: "a benign block runs and prints",
    run: async () => ({ ran: await run("import json, math\nprint(json.dumps({'sum': sum(range(10)), 'pi': round(math.pi, 4)}))") }),
  },
  {
    name: "reads no host file: a 0600 secret of the worker, a 0644 file, the repository, /etc",
    run: async () => {
      const secretFolder = await temporaryFolder();
      const publicFolder = await temporaryFolder(0o755);
      try {
        const secret = join(secretFolder, "secret.txt");
        const open = join(publicFolder, "world-readable.txt");
        await writeFile(secret, `secret-${randomUUID()}`, { mode: 0o600 });
        await writeFile(open, `public-${randomUUID()}`, { mode: 0o644 });
        await chmod(open, 0o644);
        const targets = [secret, open, join(REPO_ROOT, "package.json"), SANDBOX_SOURCE, "/etc/passwd", "/etc/hostname", "/root/.bashrc", tmpdir()];
        const hostReads = Object.fromEntries(await Promise.all(targets.map(async (path) => [path, await readFile(path).then(() => true, () => false)])));
        const code = `${ATTEMPT}
targets = ${JSON.stringify(targets)}
print(json.dumps({path: [attempt(lambda: open(path).read()), attempt(lambda: os.listdir(path)), os.path.exists(path)] for path in targets}))`;
        return { targets, hostReads, ran: await run(code) };
      } finally {
        await rm(secretFolder, { recursive: true, force: true });
        await rm(publicFolder, { recursive: true, force: true });
      }
    },
  },
  {
    name: "writes nothing outside its folder: the repository, the host's /tmp, the worker's folders",
    run: async () => {
      const folder = await temporaryFolder(0o777);
      const marker = `stepwiser-escape-${randomUUID()}`;
      try {
        const hostTmpFile = join("/tmp", marker);
        const workerFile = join(folder, "written-by-block.txt");
        const repoFile = join(REPO_ROOT, `${marker}.txt`);
        const before = sha256(await readFile(SANDBOX_SOURCE));
        const code = `${ATTEMPT}
def append(path):
    with open(path, "a") as f:
        f.write("# escaped\\n")
    return "appended"
def create(path):
    with open(path, "w") as f:
        f.write("escaped")
    return "created"
print(json.dumps({
    "appendSource": attempt(lambda: append(${JSON.stringify(SANDBOX_SOURCE)})),
    "createInRepo": attempt(lambda: create(${JSON.stringify(repoFile)})),
    "createInHostTmp": attempt(lambda: create(${JSON.stringify(hostTmpFile)})),
    "createInWorkerFolder": attempt(lambda: create(${JSON.stringify(workerFile)})),
    "createInUsr": attempt(lambda: create("/usr/${marker}")),
    "createInRoot": attempt(lambda: create("/${marker}")),
}))`;
        const ran = await run(code);
        const after = sha256(await readFile(SANDBOX_SOURCE));
        return {
          ran,
          host: {
            sourceUnchanged: before === after,
            hostTmpFileExists: existsSync(hostTmpFile),
            workerFileExists: existsSync(workerFile),
            repoFileExists: existsSync(repoFile),
            usrFileExists: existsSync(`/usr/${marker}`),
            rootFileExists: existsSync(`/${marker}`),
          },
        };
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  },
  {
    name: "sees no host process",
    run: async () => {
      const code = `${ATTEMPT}
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print(json.dumps({"pids": pids, "cmdlines": [attempt(lambda: open("/proc/%d/cmdline" % pid).read().replace("\\0", " ")) for pid in pids],
                  "hostPid": attempt(lambda: open("/proc/${process.pid}/cmdline").read())}))`;
      return { workerPid: process.pid, ran: await run(code) };
    },
  },
  {
    name: "reaches no host Unix socket, on the file system or abstract",
    run: async () => {
      const folder = await temporaryFolder(0o755);
      const onDisk = counting();
      const abstract = counting();
      const path = join(folder, "host.sock");
      const name = `stepwiser-escape-${randomUUID()}`;
      try {
        await listening(onDisk.server, path);
        await chmod(path, 0o777);
        await listening(abstract.server, `\0${name}`);
        const hostSeesAbstract = (await readFile("/proc/net/unix", "utf8")).includes(`@${name}`);
        const code = `${ATTEMPT}
import socket
def connect(address):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(address)
    return "connected"
print(json.dumps({
    "fileSocket": attempt(lambda: connect(${JSON.stringify(path)})),
    "fileSocketVisible": os.path.exists(${JSON.stringify(path)}),
    "abstractSocket": attempt(lambda: connect("\\0${name}")),
    "abstractListed": "@${name}" in open("/proc/net/unix").read(),
    "unixSocketsInNamespace": len(open("/proc/net/unix").read().splitlines()) - 1,
}))`;
        const ran = await run(code);
        return { hostSeesAbstract, ran, connections: onDisk.connections() + abstract.connections() };
      } finally {
        onDisk.server.close();
        abstract.server.close();
        await rm(folder, { recursive: true, force: true });
      }
    },
  },
  {
    name: "reaches no host TCP port, on loopback or the machine's address",
    run: async () => {
      const loopback = counting();
      const external = counting();
      const address = Object.values(networkInterfaces())
        .flat()
        .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;
      try {
        await listening(loopback.server, 0, "127.0.0.1");
        const targets: [string, number][] = [["127.0.0.1", (loopback.server.address() as { port: number }).port]];
        if (address) {
          await listening(external.server, 0, address);
          targets.push([address, (external.server.address() as { port: number }).port]);
        }
        const code = `${ATTEMPT}
import socket
def connect(host, port):
    socket.create_connection((host, port), timeout=2).close()
    return "connected"
print(json.dumps({"connect": [attempt(lambda: connect(host, port)) for host, port in ${JSON.stringify(targets)}],
                  "interfaces": [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]],
                  "tcpInNamespace": len(open("/proc/net/tcp").read().splitlines()) - 1}))`;
        const ran = await run(code);
        return { targets, ran, connections: loopback.connections() + external.connections() };
      } finally {
        loopback.server.close();
        external.server.close();
      }
    },
  },
  {
    name: "reads none of the worker's environment secrets",
    run: async () => {
      const secrets = { STEPWISER_AUTH_SECRET: `auth-${randomUUID()}`, DATABASE_URL: `postgresql://stepwiser:${randomUUID()}@db.internal/stepwiser` };
      const previous = Object.fromEntries(Object.keys(secrets).map((key) => [key, process.env[key]]));
      Object.assign(process.env, secrets);
      try {
        const code = `${ATTEMPT}
seen = {"environ": dict(os.environ)}
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["self"]:
    for what in ("environ", "cmdline"):
        seen["%s/%s" % (pid, what)] = attempt(lambda: open("/proc/%s/%s" % (pid, what), "rb").read().decode("utf8", "replace"))
print(json.dumps(seen))`;
        const ran = await run(code);
        const leaked = Object.values(secrets).filter((value) => ran.stdout.includes(value) || ran.stderr.includes(value));
        return { ran, leaked, keys: Object.keys((ran.printed as { environ?: object } | undefined)?.environ ?? {}).sort() };
      } finally {
        for (const [key, value] of Object.entries(previous)) {
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
        }
      }
    },
  },
  {
    name: "a fork bomb ends at the time limit and leaves no process behind",
    run: async () => {
      const marker = `stepwiser-escape-bomb-${randomUUID()}`;
      const bomb = "import os\\nwhile True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        pass";
      const code = `import os, sys\nos.execv(sys.executable, [sys.executable, "-c", "${bomb}", "${marker}"])`;
      const timeLimitMs = 1500;
      const ran = await run(code, { timeLimitMs });
      const survivorsAtOnce = (await processesWith(marker)).length;
      const hostSpawns = spawnSync("/bin/sh", ["-c", "echo spawned"], { encoding: "utf8" }).stdout.trim();
      return { ran, timeLimitMs, survivorsAtOnce, hostSpawns };
    },
  },
  {
    name: "filling the disk stops at its folder's and /tmp's caps",
    run: async () => {
      const marker = `stepwiser-escape-fill-${randomUUID()}`;
      const code = `${ATTEMPT}
chunk = b"x" * (1024 * 1024)
report = {}
for folder in ("/sandbox", "/tmp", "/dev/shm"):
    written, files, last = 0, 0, None
    while last is None or last == "EFBIG":
        path = "%s/${marker}-%d" % (folder, files)
        files += 1
        last = None
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(chunk)
                    f.flush()
                    written += len(chunk)
        except OSError as error:
            last = errno.errorcode.get(error.errno, str(error.errno))
        if files > 100:
            break
    report[folder] = {"written": written, "files": files, "stoppedBy": last}
print(json.dumps(report))`;
      const ran = await run(code);
      const hostFiles = [...(await readdir("/tmp")), ...(await readdir(tmpdir()))].filter((name) => name.startsWith(marker));
      return { ran, hostFiles };
    },
  },
  {
    name: "a 1 GB stdout is cut off promptly without the worker's memory growing",
    run: async () => {
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
      try {
        const code = "import sys\nchunk = b'x' * (1024 * 1024)\nfor _ in range(1024):\n    sys.stdout.buffer.write(chunk)\nprint('all written', file=sys.stderr)";
        const result = await runPythonSandboxed(code, { ...limits, timeLimitMs: 20_000 });
        peak = Math.max(peak, process.memoryUsage().rss);
        return {
          status: result.status,
          durationMs: result.durationMs,
          stdoutLength: result.stdout.length,
          stderr: result.stderr,
          rssGrowthMb: Math.round((peak - baseline) / 1024 / 1024),
        };
      } finally {
        clearInterval(sampler);
      }
    },
  },
  {
    name: "the seccomp filter refuses namespace, mount, tracing, keyring, BPF and io_uring calls",
    run: async () => {
      const on = seccompArch();
      if (!on) return { skipped: `no seccomp numbers for ${process.arch}` };
      const number = (name: Parameters<typeof syscallNumber>[0]) => syscallNumber(name, on)!;
      const code = `${ATTEMPT}
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result == 0 and nr == ${number("clone")}:
        os._exit(0)
    if result == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return "returned %d" % result
CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x10000000, 0x40000000, 17
print(json.dumps({
    "getppid": libc.getppid(),
    "unshare(CLONE_NEWUSER)": call(${number("unshare")}, CLONE_NEWUSER),
    "unshare(CLONE_NEWNET)": call(${number("unshare")}, CLONE_NEWNET),
    "clone(CLONE_NEWUSER)": call(${number("clone")}, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0),
    "clone3": call(${number("clone3")}, 0, 0),
    "mount": call(${number("mount")}, b"none", b"/tmp", b"tmpfs", 0, 0),
    "ptrace(PTRACE_TRACEME)": call(${number("ptrace")}, 0, 0, 0, 0),
    "ptrace(PTRACE_ATTACH, 1)": call(${number("ptrace")}, 16, 1, 0, 0),
    "add_key": call(${number("add_key")}, b"user", b"escape", b"x", 1, -3),
    "keyctl": call(${number("keyctl")}, 0, -3, 0),
    "bpf": call(${number("bpf")}, 0, 0, 0),
    "perf_event_open": call(${number("perf_event_open")}, 0, 0, -1, -1, 0),
    "userfaultfd": call(${number("userfaultfd")}, 0),
    "io_uring_setup": call(${number("io_uring_setup")}, 4, ctypes.create_string_buffer(120)),
    "setns": call(${number("setns")}, 0, 0),
    "socket(AF_INET)": call(${number("socket")}, 2, 1, 0),
    "socket(AF_NETLINK)": call(${number("socket")}, 16, 3, 0),
}))`;
      return { ran: await run(code) };
    },
  },
  {
    name: "runs as an unprivileged uid with no capabilities",
    run: async () => {
      const code = `${ATTEMPT}
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
print(json.dumps({
    "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid()], "groups": os.getgroups(),
    "capabilities": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "noNewPrivs": status["NoNewPrivs"].strip(),
    "setuid(0)": attempt(lambda: os.setuid(0)),
    "hostname": os.uname().nodename,
}))`;
      return { ran: await run(code) };
    },
  },
];
