import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bool, List, Struct, Utf8 } from "apache-arrow";
import { nullable, writeParquetFile } from "./parquet-files";

/** One solution of a Hugging Face Hub style Parquet file: a `question` struct, a list of steps and a hard label per step. */
export interface HubSolution {
  problem: string;
  answer: string;
  steps: string[];
  labels: boolean[];
}

/**
 * A small Parquet file in the layout README.md's `import parquet` example maps
 * (`problem=question.problem,answer=question.answer,steps=steps,labels=labels,labelKind=hard`),
 * written by parquet-wasm.
 */
export function hubParquetFile(solutions: readonly HubSolution[]): Uint8Array {
  return writeParquetFile(
    {
      question: [new Struct([nullable("problem", new Utf8()), nullable("answer", new Utf8())]), solutions.map((s) => ({ problem: s.problem, answer: s.answer }))],
      steps: [new List(nullable("element", new Utf8())), solutions.map((s) => s.steps)],
      labels: [new List(nullable("element", new Bool())), solutions.map((s) => s.labels)],
    },
    solutions.length,
  );
}

// `node --import tsx packages/jobs/test/hub-parquet.ts OUT.parquet '[{"problem", "answer", "steps", "labels"}, …]'`
// writes such a file (the README examples browser test makes its fixture so).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [out, solutions] = process.argv.slice(2);
  if (!out || !solutions) throw new Error("usage: hub-parquet.ts OUT.parquet SOLUTIONS_JSON");
  writeFileSync(out, hubParquetFile(JSON.parse(solutions) as HubSolution[]));
}
