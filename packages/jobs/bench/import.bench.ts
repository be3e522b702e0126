import { readFileSync } from "node:fs";
import path from "node:path";
import { atProfile, writeBenchmarkReport } from "@stepwiser/config/bench";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { connectJobQueue, runImport, storeFile, submitImport, submitProcessBenchImport } from "../src";
import { generateMathShepherdFile } from "../src/testing/math-shepherd-file";
import { startBenchEnvironment } from "./bench-environment";

/**
 * Import throughput: the shipped ProcessBench files (1,400 solutions) end to
 * end, and a generated generic JSONL file large enough that per-run overheads
 * vanish, in chunks stored per second. Each import is the real job: stored
 * upload read back part by part, streamed through the reader, written in one
 * transaction.
 */
const JSONL_RECORDS = atProfile({ full: 40_000, quick: 2_000 });
const STEPS_PER_RECORD = 10;

/** Every this many records one is unreadable (its steps a string) in the skip-mode case: 1 %. */
const INVALID_EVERY = 100;

function generatedJsonl(withLabels: boolean, invalidEvery: number | null = null): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < JSONL_RECORDS; i++) {
    if (invalidEvery !== null && i % invalidEvery === invalidEvery - 1) {
      lines.push(JSON.stringify({ uid: `gen-${i}`, question: `Problem ${i}`, steps: "one step, not a list", answer: "0" }));
      continue;
    }
    const steps = Array.from({ length: STEPS_PER_RECORD }, (_, s) => `Step ${s + 1}: from ${i} we add ${s} and get ${i + s}, which we carry to the next step.`);
    const labels = steps.map((_, s) => (s < STEPS_PER_RECORD - (i % 3) ? "+" : "-"));
    const question = `Problem ${i % 5000}: what is ${i} plus the sum of 0..${STEPS_PER_RECORD - 1}?`;
    lines.push(JSON.stringify(withLabels ? { uid: `gen-${i}`, question, steps, labels, answer: String(i + 45) } : { uid: `gen-${i}`, question, steps, answer: String(i + 45) }));
  }
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}

/** The Math-Shepherd case: as many records as the acceptance file, each with a few steps like the release's. */
const SHEPHERD_RECORDS = atProfile({ full: 100_000, quick: 5_000 });
const SHEPHERD_STEPS = 4;

const env = await startBenchEnvironment();
const { db, url } = env;
const rows = [];
try {
  const queue = await connectJobQueue(url);

  let processBenchMs = 0;
  let processBenchSolutions = 0;
  for (const file of DEMO_PROCESSBENCH_FILES) {
    const started = performance.now();
    const run = await submitProcessBenchImport(db, queue, { fileName: path.basename(file), content: readFileSync(file) });
    await runImport(db, run.id);
    processBenchMs += performance.now() - started;
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    if (done.status !== "completed") throw new Error(`ProcessBench import ${done.status}: ${done.error}`);
    processBenchSolutions += done.unitsDone;
  }
  rows.push({
    metric: `ProcessBench import, ${processBenchSolutions} solutions (gsm8k + math), submit to completed`,
    value: `${(processBenchMs / 1000).toFixed(2)} s`,
    target: "< 5 s",
    met: processBenchMs < 5000,
  });

  const cases = [
    { withLabels: false, invalidEvery: null },
    { withLabels: true, invalidEvery: null },
    { withLabels: false, invalidEvery: INVALID_EVERY },
  ] as const;
  for (const { withLabels, invalidEvery } of cases) {
    const content = generatedJsonl(withLabels, invalidEvery);
    const invalid = invalidEvery === null ? 0 : Math.floor(JSONL_RECORDS / invalidEvery);
    const uploadStarted = performance.now();
    const pieces = Array.from({ length: Math.ceil(content.length / (1 << 20)) }, (_, i) => content.subarray(i << 20, (i + 1) << 20));
    const fileName = withLabels ? "generated-labelled.jsonl" : invalid > 0 ? "generated-invalid.jsonl" : "generated.jsonl";
    const file = await storeFile(db, { fileName, purpose: "upload" }, pieces);
    const uploadMs = performance.now() - uploadStarted;
    const mapping = { problem: "question", steps: "steps", id: "uid", answer: "answer", ...(withLabels ? { labels: "labels" } : {}) };
    const policy = invalid > 0 ? { onInvalid: "skip" as const, maxInvalidShare: 0.05 } : {};
    const run = await submitImport(db, queue, { fileId: file.id, options: { format: "jsonl", mapping, ...policy } });
    const importStarted = performance.now();
    await runImport(db, run.id);
    const importMs = performance.now() - importStarted;
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    if (done.status !== "completed") throw new Error(`JSONL import ${done.status}: ${done.error}`);
    const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId: done.datasetId! } } } });
    if (chunks !== (JSONL_RECORDS - invalid) * STEPS_PER_RECORD) throw new Error(`expected ${(JSONL_RECORDS - invalid) * STEPS_PER_RECORD} chunks, stored ${chunks}`);
    const entries = await db.importReportEntry.count({ where: { runId: run.id } });
    if (entries !== invalid) throw new Error(`expected ${invalid} report entries, stored ${entries}`);
    const chunksPerSecond = chunks / (importMs / 1000);
    rows.push({
      metric: `Generic JSONL import: ${JSONL_RECORDS.toLocaleString("en")} records, ${chunks.toLocaleString("en")} chunks${withLabels ? ", each with a hard label (a ChunkLabel row per chunk)" : ", no labels"}${invalid > 0 ? `, ${invalid.toLocaleString("en")} invalid records skipped and reported (--on-invalid skip)` : ""}, ${(content.length / 2 ** 20).toFixed(1)} MiB`,
      value: `${Math.round(chunksPerSecond).toLocaleString("en")} chunks/s (${(importMs / 1000).toFixed(2)} s; upload into stored parts ${(uploadMs / 1000).toFixed(2)} s)`,
      target: "≥ 20,000 chunks/s",
      met: chunksPerSecond >= 20_000,
    });
  }
  {
    // Math-Shepherd in its released layout, with the release's quirks and some broken records, imported with skip.
    const generated = generateMathShepherdFile({ records: SHEPHERD_RECORDS, quirkyShare: 0.005, brokenShare: 0.002, stepsPerRecord: SHEPHERD_STEPS, seed: 24 });
    const content = generated.bytes;
    const pieces = Array.from({ length: Math.ceil(content.length / (1 << 20)) }, (_, i) => content.subarray(i << 20, (i + 1) << 20));
    const file = await storeFile(db, { fileName: "math-shepherd-released-layout.jsonl", purpose: "upload" }, pieces);
    const run = await submitImport(db, queue, { fileId: file.id, options: { format: "math-shepherd", onInvalid: "skip" } });
    const importStarted = performance.now();
    await runImport(db, run.id);
    const importMs = performance.now() - importStarted;
    const done = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    if (done.status !== "completed") throw new Error(`Math-Shepherd import ${done.status}: ${done.error}`);
    const chunks = await db.chunk.count({ where: { segmentation: { solution: { datasetId: done.datasetId! } } } });
    if (chunks !== generated.chunks) throw new Error(`expected ${generated.chunks} chunks, stored ${chunks}`);
    const entries = await db.importReportEntry.count({ where: { runId: run.id } });
    if (entries !== generated.broken.length) throw new Error(`expected ${generated.broken.length} report entries, stored ${entries}`);
    const chunksPerSecond = chunks / (importMs / 1000);
    rows.push({
      metric: `Math-Shepherd released layout: ${SHEPHERD_RECORDS.toLocaleString("en")} records of ${SHEPHERD_STEPS} steps, 0.5 % in the release's quirks, ${generated.broken.length} broken records skipped and reported, ${chunks.toLocaleString("en")} chunks each with its hard label, ${(content.length / 2 ** 20).toFixed(1)} MiB`,
      value: `${Math.round(chunksPerSecond).toLocaleString("en")} chunks/s (${(importMs / 1000).toFixed(2)} s)`,
      target: "≥ 20,000 chunks/s",
      met: chunksPerSecond >= 20_000,
    });
  }
  await queue.stop({ graceful: false, wait: true });

  writeBenchmarkReport({
    name: "import",
    bench: "import",
    title: "Import throughput",
    method: `Embedded PostgreSQL on this machine. ProcessBench: both shipped files submitted (validated, stored as an upload) and imported by the import job, timed from submit to completion. Generic JSONL: ${JSONL_RECORDS.toLocaleString("en")} generated records of ${STEPS_PER_RECORD} steps (each with its own problem text, so ${JSONL_RECORDS.toLocaleString("en")} problems), once without and once with a +/- label per step, and once without labels with every ${INVALID_EVERY}th record unreadable, imported with \`onInvalid: "skip"\` (each left-out record an ImportReportEntry row, written in the same transaction), each stored as an upload first (timed apart), then the import job timed alone; and ${SHEPHERD_RECORDS.toLocaleString("en")} generated Math-Shepherd records of ${SHEPHERD_STEPS} steps in the released layout (\`{input, label, task}\`, steps tagged "ки", one +/- label per step), 0.5 % of them in the release's quirks (lowercase or missing step marker, a tag inside the problem text) and 0.2 % broken, imported with \`onInvalid: "skip"\`: it reads the stored parts, parses and validates every line, and writes problems, solutions (with their text-search vectors), segmentations, chunks and, for the labelled file, one chunk label per chunk, all in one transaction.`,
    limits:
      "Generated records, not the released files: their text is short and uniform, so parsing and text search cost less per chunk than on real solutions, and the quirky and broken shares are chosen, not observed. One import at a time on the embedded server's default settings (shared_buffers 128 MB, max_wal_size 1 GB). Labelled imports are bound by PostgreSQL's one backend, not by this process: during them the backend runs near one full core while the importer uses about a third of the other, and each ChunkLabel row costs about 20 µs more (its two foreign-key checks, on Chunk and Run, and its two indexes). Raising shared_buffers to 512 MB and max_wal_size to 4 GB, or leaving out every progress update, changed the labelled rates by under 10 %. The Math-Shepherd case also writes one problem and one solution (with its text-search vector) per 4 chunks, against one per 10 in the generic file.",
    rows,
  });
  const missed = rows.filter((r) => r.met === false);
  console.log(`import: ${rows.map((r) => `${r.value}`).join(" · ")}${missed.length ? " — TARGET MISSED" : ""}`);
  if (missed.length) process.exitCode = 1;
} finally {
  await env.close();
}
