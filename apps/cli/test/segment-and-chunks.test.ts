import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf, runCli } from "./run-cli";

const solution = "Step 1: Add 2 and 3.\n2 + 3 = 5\n\nStep 2: Multiply by 4.\n5 * 4 = 20\n\nSo the answer is \\boxed{20}.";

describe("stepwiser segment and chunks check", () => {
  let scratch: string;
  let solutionFile: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-chunks-"));
    solutionFile = path.join(scratch, "solution.txt");
    await writeFile(solutionFile, solution);
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  type Chunks = { chunk_count: number; chunks: Array<{ index: number; text: string; start_offset: number; end_offset: number }> };

  it("splits on blank lines and on Step markers, with offsets into the file", async () => {
    const blank = jsonOf(await runCliInProcess(["segment", "--method", "blank-line", "--file", solutionFile])) as Chunks;
    expect(blank.chunk_count).toBe(3);
    for (const chunk of blank.chunks) expect(solution.slice(chunk.start_offset, chunk.end_offset)).toBe(chunk.text);
    expect(blank.chunks.map((c) => c.text)).toEqual(["Step 1: Add 2 and 3.\n2 + 3 = 5", "Step 2: Multiply by 4.\n5 * 4 = 20", "So the answer is \\boxed{20}."]);

    const steps = jsonOf(await runCliInProcess(["segment", "--method", "step-markers", "--file", solutionFile])) as Chunks;
    expect(steps.chunks.map((c) => [c.start_offset, c.end_offset])).toEqual([
      [0, 30],
      [32, solution.length],
    ]);
  });

  it("accepts a faithful segmentation and rejects an altered one, saying where it diverges", async () => {
    const good = path.join(scratch, "good.txt");
    await writeFile(good, "<chunk>Step 1: Add 2 and 3.\n2 + 3 = 5</chunk>\n<chunk>Step 2: Multiply by 4.\n5 * 4 = 20</chunk>\n<chunk>\nSo the answer is \\boxed{20}.\n</chunk>\n");
    const ok = await runCliInProcess(["chunks", "check", "--original", solutionFile, "--chunked", good]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(jsonOf(ok)).toMatchObject({ valid: true, chunk_count: 3 });

    const bad = path.join(scratch, "bad.txt");
    await writeFile(bad, "<chunk>Step 1: Add 2 and 3.\n2 + 3 = 5</chunk>\n<chunk>Step 2: Multiply by 4.\n5 * 4 = 21</chunk>\n<chunk>So the answer is \\boxed{20}.</chunk>");
    // As the executable: a refused segmentation exits 1 with the verdict on stdout and the reason on stderr.
    const rejected = await runCli(["chunks", "check", "--original", solutionFile, "--chunked", bad]);
    expect(rejected.code).toBe(1);
    expect(jsonOf(rejected)).toMatchObject({
      valid: false,
      kind: "diverges",
      chunk_index: 1,
      chunked: { line: 4, column: 10 },
      original: { offset: 64, line: 5, column: 10 },
    });
    expect(rejected.stderr).toContain("bad.txt: invalid segmentation: chunk 1");

    const untagged = path.join(scratch, "untagged.txt");
    await writeFile(untagged, "Step 1 <chunk>Add</chunk>");
    expect(jsonOf(await runCliInProcess(["chunks", "check", "--original", solutionFile, "--chunked", untagged]))).toMatchObject({ valid: false, kind: "text-outside-chunk" });
  });

  it("refuses an unknown method or a missing flag with exit code 2", async () => {
    const unknown = await runCliInProcess(["segment", "--method", "sentences", "--file", solutionFile]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--method must be one of blank-line, step-markers, got "sentences"');
    const missing = await runCliInProcess(["chunks", "check", "--original", solutionFile]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--chunked is required");
  });
});
