#!/usr/bin/env node
// Entry point of `npm start` and `npm test` on a machine that has only Node.js:
// installs what is missing (pnpm through corepack, dependencies, the Prisma
// client), then hands over to the TypeScript launcher or the test runner.
// Plain JavaScript with no dependencies, because nothing is installed yet.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const env = {
  ...process.env,
  COREPACK_ENABLE_DOWNLOAD_PROMPT: "0",
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
};

// turbo and other tools look for a `pnpm` binary on PATH: give them corepack's shim
// from a folder inside the checkout, leaving the machine's global setup alone.
const shimDir = path.join(root, "node_modules", ".cache", "corepack-bin");
if (!existsSync(path.join(shimDir, "pnpm"))) {
  mkdirSync(shimDir, { recursive: true });
  const shim = spawnSync("corepack", ["enable", "pnpm", "--install-directory", shimDir], { env, stdio: "inherit" });
  if (shim.status !== 0) {
    process.stderr.write("✖ could not set up pnpm through corepack (is corepack part of this Node.js?)\n");
    process.exit(1);
  }
}
env.PATH = `${shimDir}${path.delimiter}${env.PATH ?? ""}`;

function step(label, command, args, options = {}) {
  const started = Date.now();
  process.stderr.write(`» ${label}\n`);
  const result = spawnSync(command, args, { cwd: root, env, stdio: "inherit", ...options });
  if (result.error) {
    process.stderr.write(`✖ ${label}: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) {
    process.stderr.write(`✖ ${label} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
const pnpm = (label, args) => step(label, "corepack", ["pnpm", ...args]);

function ensureInstalled() {
  const marker = path.join(root, "node_modules", ".modules.yaml");
  const lockfile = path.join(root, "pnpm-lock.yaml");
  const manifests = [lockfile, path.join(root, "package.json"), path.join(root, "pnpm-workspace.yaml")];
  if (!existsSync(marker) || manifests.some((file) => mtime(file) > mtime(marker))) {
    pnpm("installing dependencies (pnpm via corepack)", ["install", "--frozen-lockfile", "--prefer-offline"]);
  }
  const generated = path.join(root, "packages", "db", "src", "generated", "prisma", "client.ts");
  if (mtime(path.join(root, "prisma", "schema.prisma")) > mtime(generated)) {
    pnpm("generating the Prisma client", ["--silent", "generate"]);
  }
}

const [mode = "start", ...rest] = process.argv.slice(2);
// pg-boss 12 and Vitest 5 need Node.js 22.12 or newer (package.json engines).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`StepWiser Studio needs Node.js 22.12 or newer; this is ${process.version}\n`);
  process.exit(1);
}

ensureInstalled();

if (mode === "start") {
  pnpm("building (turbo; cached when nothing changed)", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
  const launcher = spawn(process.execPath, ["--import", "tsx", "apps/launcher/src/main.ts", ...rest], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  // Ctrl-C reaches the launcher directly (same process group); a signal sent to
  // this process alone is passed on. The launcher stops everything, Postgres last.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => launcher.kill(signal));
  launcher.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (mode === "setup") {
  step("preparing the database in DATABASE_URL", process.execPath, ["--import", "tsx", "apps/launcher/src/setup.ts", ...rest]);
} else if (mode === "web") {
  // One web app process of a deployment: built once (turbo cache), then `next start` on PORT (default 3000).
  pnpm("building (turbo; cached when nothing changed)", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
  const nextBin = path.join(root, "apps", "web", "node_modules", ".bin", "next");
  const web = spawn(nextBin, ["start", "-p", env.PORT ?? "3000", "-H", env.HOST ?? "0.0.0.0", ...rest], { cwd: path.join(root, "apps", "web"), env: { NODE_ENV: "production", ...env }, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => web.kill(signal));
  web.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (mode === "worker") {
  // One worker process of a deployment (DATABASE_URL and the STEPWISER_* settings from the environment).
  const worker = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts", ...rest], { cwd: root, env, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => worker.kill(signal));
  worker.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (mode === "bench") {
  // `pnpm bench [name]` on a fresh clone: install first, then every benchmark (or those matching name).
  step("running the benchmarks", process.execPath, ["--import", "tsx", "packages/config/bench/run-benchmarks.ts", ...rest]);
} else if (mode === "test") {
  step("running every test", process.execPath, ["--import", "tsx", "apps/launcher/src/test-all.ts", ...rest]);
} else {
  process.stderr.write(`unknown mode "${mode}" (expected start, test, bench, setup, web or worker)\n`);
  process.exit(2);
}
