import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The README's command line on a fresh clone: `git clone`, a plain
 * `corepack pnpm install --frozen-lockfile`, then `corepack pnpm stepwiser …`.
 * The CLI imports @stepwiser/db, whose Prisma client is generated (and not
 * committed): the install itself must generate it, or every command dies with
 * "Cannot find module …/generated/prisma/client".
 *
 * It clones the committed HEAD (what a newcomer gets), installs offline from
 * pnpm's store (nothing is copied or linked from this checkout's node_modules),
 * and runs a command that writes through the database client (`sim dataset`
 * on the clone's own embedded PostgreSQL). ~15 s.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const workDir = mkdtempSync(path.join(os.tmpdir(), "stepwiser-fresh-clone-"));
// The embedded server runs as the `postgres` user when we are root: it must traverse to the clone.
chmodSync(workDir, 0o755);
const clone = path.join(workDir, "repo");

/** The parent's npm/pnpm variables (set by `pnpm exec`) would steer the nested pnpm: leave them out. */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(npm_|PNPM_|VITEST|NODE_OPTIONS$)/i.test(name)),
);
env.COREPACK_ENABLE_DOWNLOAD_PROMPT = "0";
env.CI = "1";
// The clone's own embedded database, not one this run or the caller's shell points at.
delete env.DATABASE_URL;
delete env.STEPWISER_DATA_DIR;

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 90_000 });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}` };
}

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("fresh clone: the CLI works after `pnpm install` alone", () => {
  it("install generates the Prisma client and `stepwiser sim dataset` writes a dataset", () => {
    const cloned = run("git", ["clone", "--quiet", repoRoot, clone], workDir);
    expect(cloned.status, cloned.output).toBe(0);
    expect(existsSync(path.join(clone, "node_modules"))).toBe(false);

    const install = run("corepack", ["pnpm", "install", "--frozen-lockfile", "--offline"], clone);
    expect(install.status, install.output).toBe(0);
    expect(existsSync(path.join(clone, "packages/db/src/generated/prisma/client.ts")), install.output).toBe(true);

    const cli = run("corepack", ["pnpm", "--silent", "stepwiser", "sim", "dataset", "--name", "fresh-clone", "--problems", "2", "--solutions", "1"], clone);
    expect(cli.output).not.toMatch(/Cannot find module/);
    expect(cli.status, cli.output).toBe(0);
    expect(cli.output).toMatch(/"solutions":2/);
  }, 180_000);
});
