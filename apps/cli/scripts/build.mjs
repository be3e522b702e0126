// Builds the command line to plain JavaScript in apps/cli/dist (esbuild, ES modules
// with one chunk per lazily loaded command), so `bin/stepwiser` compiles no
// TypeScript when it runs. Plain JavaScript: bin/stepwiser imports it to rebuild
// a missing or stale build before running it.
//
// What is bundled: the workspace's own sources (@stepwiser/*, the generated Prisma
// client). What is not: every installed package, imported from the exact file
// node_modules resolves it to (pnpm gives the CLI no access to its packages'
// own dependencies by name), as a path relative to the build, so the checkout can move.
// Each workspace source keeps the location it had: its `import.meta.url` becomes
// its own source file's URL, computed from the built file's, so code that finds
// files next to itself (seed data, migrations, package.json) finds the same files.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(cliDir, "../..");
export const distDir = path.join(cliDir, "dist");
const stampFile = path.join(distDir, "build-inputs.json");

/** Files outside the bundle's inputs whose change makes a build stale: installs, the build itself. */
const EXTRA_INPUTS = ["pnpm-lock.yaml", "node_modules/.modules.yaml", "apps/cli/scripts/build.mjs", "apps/cli/package.json"];

const posix = (file) => file.split(path.sep).join("/");
const relativeImport = (fromDir, file) => {
  const relative = posix(path.relative(fromDir, file));
  return relative.startsWith(".") ? relative : `./${relative}`;
};

/**
 * Whether dist holds a build of the current sources: every input it was built from
 * (esbuild's list, kept beside it) is unchanged since, and so are the installs.
 * A few hundred stat calls: a few milliseconds.
 */
export function buildIsCurrent() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8"));
  } catch {
    return false;
  }
  for (const file of [...stamp.inputs, ...EXTRA_INPUTS]) {
    let mtime;
    try {
      mtime = statSync(path.join(repoRoot, file)).mtimeMs;
    } catch {
      return false;
    }
    if (mtime > stamp.builtAt) return false;
  }
  return true;
}

/** Builds dist from scratch into a staging folder, then swaps it in (a concurrent run sees the old build or the new one). */
export async function buildCli({ quiet = false } = {}) {
  // esbuild is the CLI's dev dependency: resolved from here, not from wherever the caller is.
  const esbuild = createRequire(path.join(cliDir, "package.json"))("esbuild");
  const started = Date.now();
  const staging = `${distDir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const gradingPool = path.join(repoRoot, "packages/jobs/src/grading/grading-pool.ts");

  const workspaceSources = {
    name: "workspace-sources",
    setup(build) {
      // Installed packages stay outside the bundle, imported by the path they resolve to.
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith("node:") || args.path.startsWith("@stepwiser/")) return undefined;
        const builtin = createRequire(import.meta.url)("node:module").isBuiltin(args.path);
        if (builtin) return { path: args.path, external: true };
        const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { resolving: true } });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (!resolved.path.includes(`${path.sep}node_modules${path.sep}`)) return resolved;
        return { path: relativeImport(staging, resolved.path), external: true };
      });
      // A workspace source's import.meta.url is its own file's, as when it runs from source.
      build.onLoad({ filter: /\.(ts|tsx|mts|js|mjs)$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        let contents = readFileSync(args.path, "utf8");
        if (!contents.includes("import.meta.url")) return undefined;
        const own = `new URL(${JSON.stringify(relativeImport(staging, args.path))}, import.meta.url).href`;
        contents = contents.replaceAll("import.meta.url", `(${own})`);
        const ext = path.extname(args.path).slice(1);
        return { contents, loader: ext === "tsx" ? "tsx" : ext === "ts" || ext === "mts" ? "ts" : "js", resolveDir: path.dirname(args.path) };
      });
    },
  };

  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: {
      cli: path.join(cliDir, "src/cli.ts"),
      "grading-thread": path.join(repoRoot, "packages/jobs/src/grading/grading-thread-body.ts"),
    },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    sourcemap: "linked",
    metafile: true,
    logLevel: quiet ? "error" : "warning",
    // The grading pool starts its threads on the built thread entry, not on the TypeScript one.
    define: { STEPWISER_BUILT_GRADING_THREAD: JSON.stringify(relativeImport(path.dirname(gradingPool), path.join(distDir, "grading-thread.js"))) },
    banner: { js: "// Built by apps/cli/scripts/build.mjs from the workspace's sources; do not edit." },
    plugins: [workspaceSources],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.includes("node_modules/"));
  writeFileSync(path.join(staging, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  writeFileSync(
    path.join(staging, "build-inputs.json"),
    `${JSON.stringify({ builtAt: started, inputs: inputs.map(posix) }, null, 1)}\n`,
  );
  const old = `${distDir}.old-${process.pid}`;
  if (existsSync(distDir)) renameSync(distDir, old);
  mkdirSync(path.dirname(distDir), { recursive: true });
  renameSync(staging, distDir);
  rmSync(old, { recursive: true, force: true });
  if (!quiet) process.stderr.write(`» built the command line (apps/cli/dist, ${inputs.length} sources) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
}
