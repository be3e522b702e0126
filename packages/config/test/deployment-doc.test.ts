import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * docs/DEPLOYMENT.md must name every environment variable the product reads,
 * and deploy/compose.yaml may set only documented ones: a new variable without
 * a line in the doc fails here.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Set by the shell or npm, or read only by the test runner (`npm test`). */
const NOT_PRODUCT_SETTINGS = new Set(["PATH", "INIT_CWD", "CHROMIUM_PATH"]);
const TEST_RUNNER = path.join("apps", "launcher", "src", "test-all.ts");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "node_modules" || name === "generated" || name === ".next") return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mjs)$/.test(name) ? [full] : [];
  });
}

function variablesReadByTheProduct(): Map<string, string> {
  const found = new Map<string, string>();
  const files = [
    ...["apps", "packages"].flatMap((top) =>
      readdirSync(path.join(repoRoot, top)).flatMap((name) => {
        const src = path.join(repoRoot, top, name, "src");
        return statSync(src, { throwIfNoEntry: false })?.isDirectory() ? sourceFiles(src) : [];
      }),
    ),
    path.join(repoRoot, "apps", "launcher", "bootstrap.mjs"),
  ].filter((file) => !file.endsWith(TEST_RUNNER));
  const pattern = /\benv\.([A-Z_][A-Z0-9_]*)|\benv\[\s*"([A-Z_][A-Z0-9_]*)"\s*\]|"(STEPWISER_[A-Z0-9_]+)"/g;
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(pattern)) {
      const name = match[1] ?? match[2] ?? match[3]!;
      if (!NOT_PRODUCT_SETTINGS.has(name) && !found.has(name)) found.set(name, path.relative(repoRoot, file));
    }
  }
  return found;
}

describe("deployment documentation", () => {
  const doc = readFileSync(path.join(repoRoot, "docs", "DEPLOYMENT.md"), "utf8");
  const documented = new Set([...doc.matchAll(/`([A-Z_][A-Z0-9_]+)`/g)].map((m) => m[1]!));

  it("names every environment variable the product reads", () => {
    const read = variablesReadByTheProduct();
    // The scan itself must see the well-known ones, or it proves nothing.
    for (const known of ["DATABASE_URL", "STEPWISER_AUTH_SECRET", "STEPWISER_CAPACITY_LEASE_SECONDS", "STEPWISER_JOB_EXPIRE_SECONDS"]) expect(read.has(known)).toBe(true);
    const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it("the Compose file sets only documented variables and runs every process the doc names", () => {
    const compose = readFileSync(path.join(repoRoot, "deploy", "compose.yaml"), "utf8");
    const set = [...compose.matchAll(/^\s+([A-Z_][A-Z0-9_]+):/gm)].map((m) => m[1]!).filter((name) => !name.startsWith("POSTGRES_"));
    expect(set.length).toBeGreaterThan(5);
    expect(set.filter((name) => !documented.has(name))).toEqual([]);
    for (const command of ['["npm", "run", "setup"]', '["npm", "run", "web"]', '["npm", "run", "worker"]', "vllm serve", "sglang.launch_server", "--enable-prefix-caching", "--max-num-seqs", "--served-model-name"]) {
      expect(compose).toContain(command);
    }
  });
});
