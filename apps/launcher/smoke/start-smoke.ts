import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `npm start` as a newcomer runs it, on the machine's own Node (STEPWISER_HOST_NODE,
 * which the bootstrap records when it re-runs itself under the pinned Node; else
 * the `node` on PATH): the bootstrap must reach the pinned Node, the studio must
 * answer /api/health, and Ctrl-C (SIGINT to the terminal's process group) must stop
 * every process it started, PostgreSQL included, which runs in a group of its own.
 * Prints one summary line; exits 1 with the launcher's output when any of it fails.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const hostNode = process.env.STEPWISER_HOST_NODE ?? "node";
const pinned = readFileSync(path.join(root, ".node-version"), "utf8").trim();
const marker = randomUUID();
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Every process that carries this run's marker in its environment: all the launcher started. */
function markedProcesses(): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, "latin1").includes(`STEPWISER_SMOKE_MARKER=${marker}`)) continue;
      found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").join(" ").trim() });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const scratch = mkdtempSync(path.join(tmpdir(), "stepwiser-start-smoke-"));
  chmodSync(scratch, 0o755); // the postgres OS user must be able to enter it
  const port = await freePort();
  // The machine's PATH as a newcomer's shell has it: without the pinned Node's folder, without the bootstrap's marks.
  const pathDirs = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes(`${path.sep}node-${pinned}${path.sep}`));
  if (hostNode.includes(path.sep)) pathDirs.unshift(path.dirname(hostNode));
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|PNPM_|VITEST|NODE_OPTIONS$|DATABASE_URL$|STEPWISER_)/i.test(name)),
  );
  Object.assign(env, {
    PATH: pathDirs.join(path.delimiter),
    STEPWISER_SMOKE_MARKER: marker,
    STEPWISER_DATA_DIR: path.join(scratch, "data"),
    PORT: String(port),
    STEPWISER_PUBLIC_URL: `http://localhost:${port}`,
    STEPWISER_DEMO_DATA: "0",
    STEPWISER_ADMIN_PASSWORD: "start-smoke-password",
  });

  const started = Date.now();
  // Its own process group, as a terminal's foreground job: Ctrl-C is SIGINT to the whole group.
  const child = spawn(hostNode, ["apps/launcher/bootstrap.mjs", "start"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));

  const failure = async (why: string) => {
    if (exitCode === undefined) process.kill(-child.pid!, "SIGKILL");
    for (const leftover of markedProcesses()) process.kill(leftover.pid, "SIGKILL");
    process.stderr.write(`${output}\n✖ launcher smoke: ${why}\n`);
    rmSync(scratch, { recursive: true, force: true });
    return 1;
  };

  const hostVersion = (await new Promise<string>((resolve) => {
    const probe = spawn(hostNode, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
    let text = "";
    probe.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
    probe.once("exit", () => resolve(text.trim()));
  })) || "unknown";

  let healthy = false;
  while (Date.now() - started < START_TIMEOUT_MS && exitCode === undefined) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (response.ok) {
        healthy = true;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  if (!healthy) return failure(exitCode === undefined ? `/api/health did not answer within ${START_TIMEOUT_MS / 1000} s` : `npm start exited (code ${exitCode}) before /api/health answered`);
  const upSeconds = (Date.now() - started) / 1000;

  const processes = markedProcesses();
  const runtimes = new Set(processes.filter((p) => p.command.includes(`node-${pinned}`)).map((p) => p.pid));
  const isOld = !hostVersion.startsWith(`v${pinned.split(".")[0]}.`);
  if (isOld && !output.includes(`running under Node ${pinned}`)) return failure(`on ${hostVersion} the bootstrap did not say it runs under Node ${pinned}`);
  if (isOld && runtimes.size === 0) return failure(`no process runs the pinned Node ${pinned}: ${processes.map((p) => p.command).join("; ")}`);

  const stopping = Date.now();
  process.kill(-child.pid!, "SIGINT");
  const stopped = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!stopped) return failure(`npm start was still running ${STOP_TIMEOUT_MS / 1000} s after Ctrl-C`);
  // What the launcher started may take a moment longer to be reaped.
  let left = markedProcesses();
  for (let wait = 0; left.length > 0 && wait < 20; wait++) {
    await sleep(250);
    left = markedProcesses();
  }
  if (left.length > 0) return failure(`Ctrl-C left ${left.length} processes behind: ${left.map((p) => `${p.pid} ${p.command}`).join("; ")}`);
  const stopSeconds = (Date.now() - stopping) / 1000;
  rmSync(scratch, { recursive: true, force: true });

  process.stderr.write(
    `✔ launcher smoke: \`npm start\` on the machine's Node ${hostVersion}${isOld ? ` ran under Node ${pinned} (bootstrap)` : ""}; /api/health answered after ${upSeconds.toFixed(1)} s; Ctrl-C stopped all ${processes.length} processes (exit ${exitCode}) in ${stopSeconds.toFixed(1)} s\n`,
  );
  return 0;
}

process.exit(await main());
