import { spawnSync } from "node:child_process";
import { readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `pnpm bench [filter]`: runs every `{apps,packages}/<name>/bench/*.bench.ts` in
 * its own process (so one benchmark's warm caches never help another). Each
 * writes its numbers to docs/benchmarks/.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const filter = process.argv[2];

const files: string[] = [];
for (const top of ["apps", "packages"]) {
  for (const name of readdirSync(path.join(root, top))) {
    const dir = path.join(root, top, name, "bench");
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) if (file.endsWith(".bench.ts")) files.push(path.join(dir, file));
  }
}
const selected = files.filter((f) => !filter || f.includes(filter)).sort();
if (selected.length === 0) {
  console.error(`no benchmark matches ${filter ?? "(any)"}`);
  process.exit(2);
}

let failed = 0;
for (const file of selected) {
  console.error(`» ${path.relative(root, file)}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", file], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
