#!/usr/bin/env node
// Entry point of `npm start`, `npm test` and the other root scripts on a machine
// that has only Node.js: makes sure the studio runs on its Node (the version in
// /.node-version, Node 24 LTS), installs what is missing (pnpm, dependencies, the
// Prisma client), then hands over to the TypeScript launcher or the test runner.
// Plain JavaScript with no dependencies, because nothing is installed yet.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const say = (line) => process.stderr.write(`${line}\n`);
const fail = (line, code = 1) => {
  say(`✖ ${line}`);
  process.exit(code);
};

// ---- the runtime -------------------------------------------------------------
// The oldest Node the studio runs on (package.json `engines.node`), and the one it
// is built, tested and deployed on (/.node-version, the Docker image's too).
const MINIMUM = [22, 19];
const pinned = readFileSync(path.join(root, ".node-version"), "utf8").trim();
if (!/^\d+\.\d+\.\d+$/.test(pinned)) fail(`.node-version must hold one exact version such as 24.21.0, not "${pinned}"`);
const [major, minor] = process.versions.node.split(".").map(Number);
const tooOld = major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1]);
const cacheDir = path.join(root, ".cache");

/** Runs an npm install of one registry package into its own folder under .cache, atomically. */
function installFromRegistry(spec, folder, what) {
  const target = path.join(cacheDir, folder);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  say(`» ${what}`);
  const npm = spawnSync("npm", ["install", "--prefix", staging, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", spec], {
    stdio: ["ignore", 2, 2],
  });
  if (npm.error || npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    fail(`could not install ${spec} from the npm registry (${npm.error?.message ?? `npm exit ${npm.status}`}); install Node.js ${pinned} yourself and run this again with it`);
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
  return target;
}

if (tooOld) {
  if (process.env.STEPWISER_BOOTSTRAPPED_NODE) fail(`running under ${process.execPath} (${process.version}), which should have been Node ${pinned}`);
  const arch = { x64: "x64", arm64: "arm64" }[process.arch];
  if (process.platform !== "linux" || !arch) {
    fail(`StepWiser Studio needs Node.js ${MINIMUM.join(".")} or newer (it is built on ${pinned}); this is ${process.version} on ${process.platform}-${process.arch}: install Node.js ${pinned}`);
  }
  const folder = `node-${pinned}`;
  const nodeBin = path.join(cacheDir, folder, "node_modules", `node-linux-${arch}`, "bin");
  if (!existsSync(path.join(nodeBin, "node"))) {
    installFromRegistry(`node-linux-${arch}@${pinned}`, folder, `Node ${process.version} is older than ${MINIMUM.join(".")}: fetching Node ${pinned} (node-linux-${arch} from the npm registry) into .cache/${folder}`);
  }
  // One line says so; the command line (bin/stepwiser) stays quiet about it, its stderr being the command's.
  if (process.argv[2] !== "cli") say(`» Node ${process.version} is older than ${MINIMUM.join(".")}: running under Node ${pinned} from .cache/${folder}`);
  const child = spawn(path.join(nodeBin, "node"), [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: {
      ...process.env,
      // Every `node` the studio starts (Vitest's workers, the worker, the CLI, Next.js) is this one too.
      PATH: `${nodeBin}${path.delimiter}${process.env.PATH ?? ""}`,
      STEPWISER_BOOTSTRAPPED_NODE: pinned,
      // The machine's own Node, for the one test that checks this bootstrap on it.
      STEPWISER_HOST_NODE: process.execPath,
    },
  });
  // Ctrl-C reaches the child directly (same process group): wait for it to stop everything.
  // A signal sent to this process alone is passed on.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}

// ---- the package manager and the workspace -------------------------------------

/** pnpm at the version package.json's `packageManager` pins: corepack's when there is one, else from the registry. */
function setUpPnpm(env) {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const match = /^pnpm@(\d+\.\d+\.\d+)/.exec(manifest.packageManager ?? "");
  if (!match) fail(`package.json's packageManager must pin pnpm (pnpm@X.Y.Z+sha512…), not "${manifest.packageManager}"`);
  const version = match[1];
  // turbo and other tools look for a `pnpm` binary on PATH: a shim in a folder inside the checkout,
  // leaving the machine's global setup alone.
  const shimDir = path.join(root, "node_modules", ".cache", "pnpm-bin");
  const shim = path.join(shimDir, "pnpm");
  const stamp = path.join(shimDir, "version");
  const stamped = existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : "";
  // A shim is kept while it is for this version: corepack's for any Node, the registry's for this Node binary.
  const current = existsSync(shim) && (stamped === `${version} corepack` || stamped === `${version} ${process.execPath}`);
  if (!current) {
    mkdirSync(shimDir, { recursive: true });
    const corepack = spawnSync("corepack", ["--version"], { env, stdio: "ignore" });
    if (!corepack.error && corepack.status === 0) {
      // Corepack checks the pinned hash of what it downloads.
      writeFileSync(shim, `#!/bin/sh\nexec corepack pnpm "$@"\n`);
      writeFileSync(stamp, `${version} corepack\n`);
    } else {
      // Node 25 and newer ship no corepack: the pinned version from the npm registry.
      const folder = `pnpm-${version}`;
      const entry = path.join(cacheDir, folder, "node_modules", "pnpm", "bin", "pnpm.cjs");
      if (!existsSync(entry)) installFromRegistry(`pnpm@${version}`, folder, `this Node has no corepack: fetching pnpm ${version} (pinned in package.json) from the npm registry into .cache/${folder}`);
      writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${entry}" "$@"\n`);
      writeFileSync(stamp, `${version} ${process.execPath}\n`);
    }
    chmodSync(shim, 0o755);
  }
  env.PATH = `${shimDir}${path.delimiter}${env.PATH ?? ""}`;
  return shim;
}

async function main() {
  const env = {
    ...process.env,
    COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
    NEXT_TELEMETRY_DISABLED: "1",
    TURBO_TELEMETRY_DISABLED: "1",
    DO_NOT_TRACK: "1",
  };
  const pnpmBin = setUpPnpm(env);
  let stepOutput = "inherit";

  function step(label, command, args, options = {}) {
    const started = Date.now();
    say(`» ${label}`);
    const result = spawnSync(command, args, { cwd: root, env, stdio: stepOutput, ...options });
    if (result.error) fail(`${label}: ${result.error.message}`);
    if (result.status !== 0) fail(`${label} failed (exit ${result.status ?? result.signal})`, result.status ?? 1);
    say(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
  const pnpm = (label, args) => step(label, pnpmBin, args);

  function ensureInstalled() {
    const marker = path.join(root, "node_modules", ".modules.yaml");
    const lockfile = path.join(root, "pnpm-lock.yaml");
    const manifests = [lockfile, path.join(root, "package.json"), path.join(root, "pnpm-workspace.yaml")];
    if (!existsSync(marker) || manifests.some((file) => mtime(file) > mtime(marker))) {
      pnpm("installing dependencies (pnpm)", ["install", "--frozen-lockfile", "--prefer-offline"]);
    }
    const generated = path.join(root, "packages", "db", "src", "generated", "prisma", "client.ts");
    if (mtime(path.join(root, "prisma", "schema.prisma")) > mtime(generated)) {
      pnpm("generating the Prisma client", ["--silent", "generate"]);
    }
  }

  /** Runs a long-lived child until it exits, passing on a signal sent to this process alone. */
  function supervise(command, args, options) {
    const child = spawn(command, args, { cwd: root, env, stdio: "inherit", ...options });
    // Ctrl-C reaches the child directly (same process group); it stops everything, Postgres last.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
    child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  }

  const [mode = "start", ...rest] = process.argv.slice(2);
  // The command line's stdout is its result (JSON): what the installers print goes to stderr.
  if (mode === "cli") stepOutput = ["inherit", 2, 2];
  ensureInstalled();

  if (mode === "start") {
    pnpm("building (turbo; cached when nothing changed)", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
    supervise(process.execPath, ["--import", "tsx", "apps/launcher/src/main.ts", ...rest]);
  } else if (mode === "setup") {
    step("preparing the database in DATABASE_URL", process.execPath, ["--import", "tsx", "apps/launcher/src/setup.ts", ...rest]);
  } else if (mode === "web") {
    // One web app process of a deployment: built once (turbo cache), then its server (apps/web/server.ts) on PORT (default 3000).
    pnpm("building (turbo; cached when nothing changed)", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
    supervise(process.execPath, ["server.ts", "-p", env.PORT ?? "3000", "-H", env.HOST ?? "0.0.0.0", ...rest], {
      cwd: path.join(root, "apps", "web"),
      env: { NODE_ENV: "production", ...env },
    });
  } else if (mode === "worker") {
    // One worker process of a deployment (DATABASE_URL and the STEPWISER_* settings from the environment).
    supervise(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts", ...rest]);
  } else if (mode === "bench") {
    // `pnpm bench [--quick] [name]` on a fresh clone: install first, then every benchmark (or those matching name).
    step("running the benchmarks", process.execPath, ["--import", "tsx", "packages/config/bench/run-benchmarks.ts", ...rest]);
  } else if (mode === "cli") {
    // bin/stepwiser on an older Node or before the first install: now on the pinned Node and installed,
    // it runs the built command line itself, in the user's directory.
    supervise(process.execPath, [path.join(root, "bin", "stepwiser"), ...rest], { cwd: process.cwd() });
  } else if (mode === "install") {
    // Nothing more: pnpm, the dependencies and the Prisma client are in place (the Docker image's build step).
  } else if (mode === "test") {
    step("running every test", process.execPath, ["--import", "tsx", "apps/launcher/src/test-all.ts", ...rest]);
  } else {
    fail(`unknown mode "${mode}" (expected start, test, bench, setup, web, worker, cli or install)`, 2);
  }
}
