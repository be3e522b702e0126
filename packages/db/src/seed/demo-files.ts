import path from "node:path";
import { fileURLToPath } from "node:url";

const seedDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../seed");

/** The vendored ProcessBench subsets loaded as demo data (see seed/processbench/NOTICE.md). */
export const DEMO_PROCESSBENCH_FILES = [
  path.join(seedDir, "processbench", "gsm8k.json"),
  path.join(seedDir, "processbench", "math.json"),
];
