import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reconstructChunks } from "../../src/chunks/reconstruct";
import { segmentByBlankLines } from "../../src/chunks/segmenters";
import { piecesOf } from "../../src/imports/byte-streams";
import { parseFieldMapping } from "../../src/imports/field-mapping";
import type { ImportFormat } from "../../src/imports/imported-solution";
import { InputError } from "../../src/errors/input-error";
import { previewImport, readImportRecords } from "../../src/imports/read-records";
import { fixtureBytes, readAll, readFixture } from "./import-helpers";

const GENERIC_MAPPING = parseFieldMapping(
  "problem=question,steps=response.steps,labels=step_labels,id=uid,answer=gold,generator=response.model,subset=source,correct=is_correct",
);

const FIXTURE_FILES: [ImportFormat, string][] = [
  ["processbench", "processbench-small.json"],
  ["prm800k", "prm800k-phase1.jsonl"],
  ["prm800k", "prm800k-phase2.jsonl"],
  ["math-shepherd", "math-shepherd.jsonl"],
  ["jsonl", "generic.jsonl"],
];

describe("streaming", () => {
  it.each(FIXTURE_FILES)("%s %s reads the same records whether the bytes come 1, 7 or 64 KiB at a time", async (format, name) => {
    const options = format === "jsonl" ? { mapping: GENERIC_MAPPING } : {};
    const whole = await readFixture(format, name, options);
    expect(whole.length).toBeGreaterThan(0);
    expect(await readFixture(format, name, options, 1)).toEqual(whole);
    expect(await readFixture(format, name, options, 7)).toEqual(whole);
  });

  it("a byte-order mark split across pieces is still skipped", async () => {
    const withMark = new Uint8Array([0xef, 0xbb, 0xbf, ...fixtureBytes("processbench-small.json")]);
    const plain = await readAll("processbench", fixtureBytes("processbench-small.json"));
    expect(await readAll("processbench", withMark, {}, 1)).toEqual(plain);
    expect(await readAll("processbench", withMark, {}, 2)).toEqual(plain);
  });
});

/** Pieces of `content` that count how many bytes were pulled and whether the reader let go of the stream. */
function countingPieces(content: string, pieceSize: number) {
  const state = { bytesPulled: 0, closed: false, total: new TextEncoder().encode(content).length };
  async function* pieces() {
    try {
      for await (const piece of piecesOf(content, pieceSize)) {
        state.bytesPulled += piece.length;
        yield piece;
      }
    } finally {
      state.closed = true;
    }
  }
  return { pieces: pieces(), state };
}

function shepherdLine(i: number): string {
  const tag = "ки";
  const input = `What is ${i} + ${i}? Step 1: ${i} + ${i} = ${2 * i}. ${tag}\nStep 2: The answer is: ${2 * i} ${tag}`;
  return JSON.stringify({ input, label: input.replaceAll(tag, "+"), task: "GSM8K" });
}

describe("import preview", () => {
  it("returns the first 20 of 25 records, reports a bad one in its row, and stops reading", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => shepherdLine(i + 1));
    lines[6] = lines[6]!.replace('"label":"', '"label":"tampered ');
    const { pieces, state } = countingPieces(`${lines.join("\n")}\n`, 256);
    const { rows } = await previewImport("math-shepherd", pieces, { file: "shepherd.jsonl" });

    expect(rows).toHaveLength(20);
    expect(rows.map((r) => r.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const bad = rows.filter((r) => r.error !== undefined);
    expect(bad).toEqual([{ line: 7, error: expect.stringContaining('shepherd.jsonl:7, record 6, field "label": differs from input in the problem') }]);
    expect(rows[7]!.solution!.problem).toBe("What is 8 + 8?");
    expect(state.bytesPulled).toBeLessThan(state.total);
    expect(state.closed).toBe(true);
  });

  it("an invalid JSON line is a row error and the next lines are still read", async () => {
    const lines = [shepherdLine(1), shepherdLine(2), '{"input": "broken', shepherdLine(4)];
    const { rows } = await previewImport("math-shepherd", piecesOf(lines.join("\n")), { file: "f.jsonl" });
    expect(rows.map((r) => [r.line, r.error === undefined])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ]);
    expect(rows[2]!.error).toMatch(/^f\.jsonl:3, record 2: not valid JSON/);
  });

  it("invalid UTF-8 on one line does not hide the lines after it", async () => {
    const encoder = new TextEncoder();
    const bytes = new Uint8Array([...encoder.encode(`${shepherdLine(1)}\n{"input": "`), 0xff, ...encoder.encode(`"}\n${shepherdLine(3)}\n`)]);
    const { rows } = await previewImport("math-shepherd", piecesOf(bytes, 5), { file: "f.jsonl" });
    expect(rows.map((r) => [r.line, r.error ?? "ok"])).toEqual([
      [1, "ok"],
      [2, "f.jsonl:2, record 1: not valid UTF-8 text"],
      [3, "ok"],
    ]);
  });

  it("a broken ProcessBench array ends the preview with its error after the records before it", async () => {
    const text = new TextDecoder().decode(fixtureBytes("processbench-small.json"));
    const truncated = text.slice(0, text.indexOf('"id": "math-1"'));
    const { rows } = await previewImport("processbench", piecesOf(truncated, 7), { file: "pb.json" });
    expect(rows.map((r) => r.solution?.externalId ?? r.error)).toEqual([
      "gsm8k-0",
      "gsm8k-1",
      "gsm8k-2",
      "math-0",
      "pb.json:49, record 4: the file ends inside a record (truncated?)",
    ]);
  });

  it("a missing mapping is a single row error", async () => {
    const { rows } = await previewImport("jsonl", piecesOf('{"q": 1}\n'), { file: "g.jsonl" });
    expect(rows).toEqual([{ line: 1, error: 'g.jsonl, field "--map": the jsonl format needs a field mapping (for example problem=question,steps=steps)' }]);
  });

  it("honours a smaller limit", async () => {
    const { rows } = await previewImport("prm800k", piecesOf(fixtureBytes("prm800k-phase1.jsonl")), { file: "p.jsonl" }, 2);
    expect(rows.map((r) => r.line)).toEqual([1, 2]);
  });
});

describe("reading for import", () => {
  it("stops at the first bad record and releases the stream", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => shepherdLine(i + 1));
    lines[2] = "{}";
    const { pieces, state } = countingPieces(lines.join("\n"), 128);
    const read: number[] = [];
    const error = await (async () => {
      for await (const { line } of readImportRecords("math-shepherd", pieces, { file: "s.jsonl" })) read.push(line);
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location).toEqual({ file: "s.jsonl", line: 3, record: 2, field: "input" });
    expect(read).toEqual([1, 2]);
    expect(state.bytesPulled).toBeLessThan(state.total);
    expect(state.closed).toBe(true);
  });
});

describe("jsonl text splitting reconstructs the text", () => {
  const word = fc.stringMatching(/^[A-Za-z0-9$\\{}+=.,]{1,8}$/);
  const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(" "));
  const paragraph = fc.array(line, { minLength: 1, maxLength: 3 }).map((lines) => lines.join("\n"));
  const blankGap = fc.constantFrom("\n\n", "\n\n\n", "\n  \n", "\r\n\r\n", " \n\t\n ");

  it("blank-line split: the steps are the paragraphs, and they reconstruct the original text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(paragraph, blankGap), { minLength: 1, maxLength: 8 }), async (parts) => {
        const text = parts.map(([p, gap], i) => (i === 0 ? p : gap + p)).join("");
        const [record] = await readAll("jsonl", JSON.stringify({ q: "problem", t: text }), { mapping: parseFieldMapping("problem=q,text=t") });
        const { steps, separator } = record!.solution;
        expect(steps).toEqual(parts.map(([p]) => p));
        expect(() => reconstructChunks(text, steps)).not.toThrow();
        // The stored text splits back into the same steps.
        expect(segmentByBlankLines(steps.join(separator)).map((c) => c.text)).toEqual(steps);
      }),
      { numRuns: 150 },
    );
  });

  it("line split: one step per non-blank line, reconstructing the text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(line, fc.constantFrom("\n", "\n\n", "\r\n", "\n \n")), { minLength: 1, maxLength: 10 }), async (parts) => {
        const text = parts.map(([l, gap]) => l + gap).join("");
        const [record] = await readAll("jsonl", JSON.stringify({ q: "problem", t: text }), { mapping: parseFieldMapping("problem=q,text=t,split=lines") });
        expect(record!.solution.steps).toEqual(parts.map(([l]) => l));
        expect(() => reconstructChunks(text, record!.solution.steps)).not.toThrow();
      }),
      { numRuns: 100 },
    );
  });
});
