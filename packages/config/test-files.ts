import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/** Every `test/**` `*.test.ts` file of a package or an app under `root`, relative to it, sorted. */
export function findTestFiles(root: string): string[] {
  const files: string[] = [];
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(path.join(root, group))) {
      const testDir = path.join(root, group, name, "test");
      if (!existsSync(testDir)) continue;
      for (const file of readdirSync(testDir, { recursive: true, encoding: "utf8" })) {
        if (file.endsWith(".test.ts") && !file.split(path.sep).includes("node_modules")) files.push(path.posix.join(group, name, "test", file.split(path.sep).join("/")));
      }
    }
  }
  return files.sort();
}
