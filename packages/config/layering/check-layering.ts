import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";

/**
 * The one direction imports may point: each layer may import only the layers
 * before it. Apps sit on top and may not import each other. The command line
 * also reads and writes the database only through the API's services: no
 * query of its own (`directQueriesOf`).
 */
export const LAYERS = ["core", "inference", "db", "jobs", "api", "app"] as const;
type Layer = (typeof LAYERS)[number];

const PACKAGE_LAYER: Record<string, Layer> = {
  "@stepwiser/core": "core",
  "@stepwiser/inference": "inference",
  "@stepwiser/db": "db",
  "@stepwiser/jobs": "jobs",
  "@stepwiser/api": "api",
};

/** Build, test and benchmark helpers: any package may use them, in no layer's code path. */
const TOOLING_PACKAGES = new Set(["@stepwiser/config"]);

/** Third-party packages pure domain logic may use: no I/O, no framework. */
export const CORE_ALLOWED_EXTERNALS = new Set(["zod", "@cortex-js/compute-engine", "@noble/hashes"]);

export interface SourceFile {
  /** Path relative to the repository root, e.g. "packages/db/src/client.ts". */
  path: string;
  text: string;
}

export interface Violation {
  file: string;
  line: number;
  /** An import's specifier or a manifest's dependency; for a direct query, the text that makes it one. */
  specifier: string;
  reason: string;
  /** What broke the rule: an import (or a declared dependency), or a database query where none may be. */
  kind: "import" | "query";
}

interface Owner {
  name: string;
  dir: string;
  layer: Layer | "tooling" | "e2e";
}

function ownerOf(file: string): Owner | undefined {
  const [top, name] = file.split("/");
  if (top === "packages" && name) {
    const packageName = `@stepwiser/${name}`;
    const layer = PACKAGE_LAYER[packageName];
    return { name: packageName, dir: `packages/${name}`, layer: layer ?? "tooling" };
  }
  if (top === "apps" && name) return { name: `@stepwiser/${name}`, dir: `apps/${name}`, layer: "app" };
  if (top === "e2e") return { name: "@stepwiser/e2e", dir: "e2e", layer: "e2e" };
  return undefined;
}

const IMPORT_PATTERN = /(?:^|[^.\w$])(?:import|export)\s+(?:type\s+)?(?:[^"'`;]*?\s+from\s+)?["']([^"']+)["']|(?:^|[^.\w$])(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/gm;

export function importsOf(text: string): Array<{ specifier: string; line: number }> {
  const found: Array<{ specifier: string; line: number }> = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2];
    if (!specifier) continue;
    const line = text.slice(0, match.index).split("\n").length + (match[0].startsWith("\n") ? 1 : 0);
    found.push({ specifier, line });
  }
  return found;
}

const layerIndex = (layer: Layer) => LAYERS.indexOf(layer);
const NODE_BUILTINS = new Set(builtinModules);

function packageOfSpecifier(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * A Prisma model call (`db.run.findUnique(`, `db.solution.count(`…) or raw SQL or a
 * transaction on the client: a direct database query. The match runs to the end of
 * the method's name, so a violation names it whole.
 */
const DIRECT_QUERY_PATTERN = /db\.[a-zA-Z]+\.(?:find|count|create|update|delete|upsert|aggregate|groupBy)[a-zA-Z]*|\$queryRaw|\$executeRaw|\$transaction/g;

/** Sources that go through the API's services for every database read and write. */
const NO_DIRECT_QUERY_DIRS = ["apps/cli/src/"];

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Direct database queries in a source that must make none (the command line's). */
export function directQueriesOf(file: SourceFile): Violation[] {
  if (!NO_DIRECT_QUERY_DIRS.some((dir) => file.path.startsWith(dir))) return [];
  return [...file.text.matchAll(DIRECT_QUERY_PATTERN)].map((match) => ({
    file: file.path,
    line: lineAt(file.text, match.index),
    specifier: match[0],
    reason: "the command line queries the database only through the API's services (@stepwiser/api); call or add a service instead",
    kind: "query" as const,
  }));
}

/**
 * Inside packages/jobs/src, the folders point one way too: the engine (`runs/`)
 * and offline execution (`batch/`) know no kind; a kind (`kinds/<kind>/`) knows
 * no other kind and nothing above the kinds; the registry and the readers of
 * any run (top-level files), the worker and the testing helpers sit on top.
 * `kit/` and `judging/` are what kinds build on.
 */
const JOBS_SRC = "packages/jobs/src/";
const JOBS_BELOW_KINDS = ["runs", "batch", "kit", "judging", "inference", "queue", "grading", "sandbox", "files", "human-work"];

/** The part of packages/jobs/src a path is in: a folder, a kind's folder ("kinds/annotate"), or "top" for a top-level file. */
function jobsPart(file: string): string {
  const parts = file.slice(JOBS_SRC.length).split("/");
  if (parts.length === 1) return "top";
  return parts[0] === "kinds" ? `kinds/${parts[1]}` : parts[0]!;
}

/** Why an import inside packages/jobs/src points the wrong way, or null. */
export function jobsFolderViolation(from: string, to: string): string | null {
  if (!from.startsWith(JOBS_SRC) || !to.startsWith(JOBS_SRC)) return null;
  const source = jobsPart(from);
  const target = jobsPart(to);
  if (source === target) return null;
  if (JOBS_BELOW_KINDS.includes(source) && (target === "top" || target.startsWith("kinds/") || target === "worker" || target === "testing" || target === "sim-world")) {
    return `${source}/ sits below the kinds and the registry: it may not import ${target === "top" ? "a top-level file" : `${target}/`}; take what it needs as a parameter`;
  }
  if (source.startsWith("kinds/")) {
    if (target.startsWith("kinds/")) return `a kind's folder imports no other kind (${source}/ → ${target}/); move what both use to kit/ or judging/`;
    if (target === "top" || target === "worker" || target === "testing") return `a kind may not import ${target === "top" ? "the registry or the readers above it" : `${target}/`}; it is given what it needs (OtherRuns)`;
  }
  return null;
}

export function checkFile(file: SourceFile): Violation[] {
  const owner = ownerOf(file.path);
  if (!owner) return [];
  const violations: Violation[] = directQueriesOf(file);
  for (const { specifier, line } of importsOf(file.text)) {
    const report = (reason: string) => violations.push({ file: file.path, line, specifier, reason, kind: "import" });
    if (specifier.startsWith(".")) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), specifier));
      if (!target.startsWith(`${owner.dir}/`)) report(`relative import leaves ${owner.dir}; import the package by name`);
      const folders = jobsFolderViolation(file.path, target);
      if (folders) report(folders);
      continue;
    }
    const target = packageOfSpecifier(specifier);
    const isBuiltin = specifier.startsWith("node:") || NODE_BUILTINS.has(target);
    if (owner.layer === "core" && file.path.startsWith("packages/core/src/")) {
      if (isBuiltin) report("packages/core is pure domain logic: no Node I/O modules");
      else if (!target.startsWith("@stepwiser/") && !CORE_ALLOWED_EXTERNALS.has(target)) {
        report(`packages/core may only use ${[...CORE_ALLOWED_EXTERNALS].join(", ")} from outside the repo`);
      }
    }
    if (!target.startsWith("@stepwiser/") || target === owner.name) continue;
    const targetLayer = PACKAGE_LAYER[target];
    if (owner.layer === "tooling" || owner.layer === "e2e") continue;
    if (TOOLING_PACKAGES.has(target)) continue;
    if (!targetLayer) {
      report(`${target} is not a layer that ${owner.name} may import`);
    } else if (layerIndex(targetLayer) >= layerIndex(owner.layer)) {
      report(`${owner.name} (${owner.layer}) may not import ${target} (${targetLayer}): imports point ${LAYERS.join(" ← ")}`);
    }
  }
  return violations;
}

/** Declared dependencies must respect the same direction as imports. */
export function checkManifest(manifestPath: string, manifest: { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }): Violation[] {
  const owner = ownerOf(manifestPath);
  if (!owner || owner.layer === "tooling" || owner.layer === "e2e") return [];
  const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  return deps.flatMap((dep) => {
    const layer = PACKAGE_LAYER[dep];
    if (!layer || dep === owner.name) return [];
    return layerIndex(layer) >= layerIndex(owner.layer as Layer)
      ? [{ file: manifestPath, line: 1, specifier: dep, reason: `${owner.name} may not depend on ${dep}`, kind: "import" as const }]
      : [];
  });
}

/** Files that hold deliberate violations as test data. */
const EXEMPT_FILES = new Set(["packages/config/test/layering.test.ts"]);

const SOURCE_EXTENSIONS = /\.(ts|tsx|mts|mjs|js|jsx)$/;
const SKIP_DIRS = new Set(["node_modules", ".next", "dist", "generated", ".turbo", "test-results", "playwright-report"]);

function* walk(root: string, dir: string): Generator<string> {
  for (const entry of readdirSync(path.join(root, dir))) {
    if (SKIP_DIRS.has(entry) || entry.startsWith(".")) continue;
    const rel = path.posix.join(dir, entry);
    if (statSync(path.join(root, rel)).isDirectory()) yield* walk(root, rel);
    else if (SOURCE_EXTENSIONS.test(entry) && !entry.endsWith(".d.ts")) yield rel;
  }
}

/** Checks every source file and manifest of the repository. */
export function checkRepository(root: string): Violation[] {
  const violations: Violation[] = [];
  for (const top of ["packages", "apps"]) {
    for (const name of readdirSync(path.join(root, top))) {
      const dir = `${top}/${name}`;
      if (!statSync(path.join(root, dir)).isDirectory()) continue;
      const manifestPath = `${dir}/package.json`;
      try {
        violations.push(...checkManifest(manifestPath, JSON.parse(readFileSync(path.join(root, manifestPath), "utf8"))));
      } catch {
        // a folder without a manifest is not a package
      }
      for (const file of walk(root, dir)) {
        if (EXEMPT_FILES.has(file)) continue;
        violations.push(...checkFile({ path: file, text: readFileSync(path.join(root, file), "utf8") }));
      }
    }
  }
  return violations;
}

export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line}: ${v.kind} "${v.specifier}": ${v.reason}`;
}
