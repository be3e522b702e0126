import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/errors/input-error";
import { parseFieldMapping } from "../../src/imports/field-mapping";
import type { ImportedSolution, ImportFormat } from "../../src/imports/imported-solution";
import { piecesOf } from "../../src/imports/byte-streams";
import { previewImport } from "../../src/imports/read-records";
import { readAll } from "./import-helpers";

/*
 * Generated files of every import format: valid ones import losslessly, and a
 * single corrupted or missing byte never crashes the reader nor silently drops
 * records — it reads the same, reads as the one edited record, or fails with a
 * located InputError.
 */

const tally = { roundTrips: 0, corrupted: 0, identical: 0, locatedErrors: 0, validEdits: 0, validPrefixes: 0 };

afterAll(() => {
  process.stderr.write(
    `import properties: ${tally.roundTrips} generated files imported losslessly, ${tally.corrupted} corrupted files read (${tally.identical} same result, ${tally.locatedErrors} located errors, ${tally.validEdits} one record edited, ${tally.validPrefixes} truncated at a line end), 0 crashes\n`,
  );
});

/** Text that stresses the readers: JSON escapes, line and paragraph breaks, the formats' own markers, astral and lone surrogates. */
const tricky = fc.constantFrom("\\", '"', "\n", "\n\n", "\r\n", "\t", "\u2028", "ки", "Step 2:", "# Answer", "+", "-", "𝑥", "é", "{", "]", ",", "\ud800");
const text = fc.array(fc.oneof({ weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) }, { weight: 1, arbitrary: tricky }), { maxLength: 6 }).map((parts) => parts.join(""));
const nonBlank = fc.tuple(fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 4 }).filter((s) => s.trim() !== ""), text).map(([head, tail]) => head + tail);

interface GeneratedFile {
  format: ImportFormat;
  content: string;
  /** What every record must import as (the fields this format carries). */
  expected: Partial<ImportedSolution>[];
  mapping?: string;
}

const processBenchFile: fc.Arbitrary<GeneratedFile> = fc
  .tuple(
    fc.array(
      fc.record({ generator: nonBlank, problem: nonBlank, steps: fc.array(text, { minLength: 1, maxLength: 5 }), correct: fc.boolean(), labelPick: fc.nat() }),
      { minLength: 1, maxLength: 5 },
    ),
    fc.boolean(),
  )
  .map(([records, pretty]) => {
    const file = records.map((r, i) => ({
      id: `gen-${i}`,
      generator: r.generator,
      problem: r.problem,
      steps: r.steps,
      final_answer_correct: r.correct,
      label: (r.labelPick % (r.steps.length + 1)) - 1,
    }));
    return {
      format: "processbench",
      content: JSON.stringify(file, null, pretty ? 2 : undefined),
      expected: file.map((r) => ({ externalId: r.id, generator: r.generator, problem: r.problem, steps: r.steps, finalAnswerCorrect: r.final_answer_correct, firstErrorIndex: r.label })),
    };
  });

const rating = fc.constantFrom(-1, 0, 1, null);

const prm800kFile: fc.Arbitrary<GeneratedFile> = fc
  .array(
    fc.record({
      labeler: fc.uuid(),
      problem: nonBlank,
      answer: fc.option(text, { nil: null }),
      steps: fc.array(fc.record({ text, rating, flagged: fc.boolean() }), { minLength: 1, maxLength: 5 }),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((records) => ({
    format: "prm800k",
    content: records
      .map((r) =>
        JSON.stringify({
          labeler: r.labeler,
          timestamp: "2023-01-22T04:34:27.052924",
          generation: 1,
          is_quality_control_question: false,
          is_initial_screening_question: false,
          question: { problem: r.problem, ground_truth_answer: r.answer },
          label: {
            steps: r.steps.map((s) => ({ completions: [{ text: s.text, rating: s.rating, flagged: s.flagged }], human_completion: null, chosen_completion: 0 })),
            total_time: 1000,
            finish_reason: "solution",
          },
        }),
      )
      .join("\n"),
    expected: records.map((r) => ({
      problem: r.problem,
      referenceAnswer: r.answer,
      steps: r.steps.map((s) => s.text),
      ratings: r.steps.map((s) => ({ rating: s.rating as -1 | 0 | 1 | null, flagged: s.flagged, labeler: r.labeler })),
    })),
  }));

/** Math-Shepherd text may not hold the step tag; a step may not say "Step 1:" (that marker opens the first step). */
const shepherdText = nonBlank.filter((s) => !s.includes("ки") && !s.includes("Step 1:") && s.trim() !== "");

const mathShepherdFile: fc.Arbitrary<GeneratedFile> = fc
  .array(fc.record({ problem: shepherdText, steps: fc.array(fc.record({ body: shepherdText, positive: fc.boolean() }), { minLength: 1, maxLength: 5 }) }), {
    minLength: 1,
    maxLength: 5,
  })
  .map((records) => ({
    format: "math-shepherd",
    content: records
      .map((r) => {
        const stepsWith = (mark: (positive: boolean) => string) => r.steps.map((s, k) => `Step ${k + 1}: ${s.body} ${mark(s.positive)}`).join("\n");
        return JSON.stringify({ input: `${r.problem} ${stepsWith(() => "ки")}`, label: `${r.problem} ${stepsWith((p) => (p ? "+" : "-"))}`, task: "GSM8K" });
      })
      .join("\n"),
    expected: records.map((r) => ({
      problem: r.problem.trim(),
      steps: r.steps.map((s, k) => `Step ${k + 1}: ${s.body}`.trim()),
      hardLabels: r.steps.map((s) => (s.positive ? "Positive" : "Negative")),
    })),
  }));

const GENERIC_MAPPING = "problem=q,steps=solution.steps,labels=l,labelKind=hard,id=uid,answer=gold";

const genericFile: fc.Arbitrary<GeneratedFile> = fc
  .array(
    fc.record({
      problem: nonBlank,
      steps: fc.array(fc.record({ text, label: fc.constantFrom(true, false, "+", "-", "Positive", "Negative") }), { minLength: 1, maxLength: 5 }),
      gold: fc.oneof(text, fc.integer(), fc.constant(null)),
      numericId: fc.boolean(),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((records) => ({
    format: "jsonl",
    mapping: GENERIC_MAPPING,
    content: records
      .map((r, i) =>
        JSON.stringify({ uid: r.numericId ? i : `uid-${i}`, q: r.problem, solution: { steps: r.steps.map((s) => s.text) }, l: r.steps.map((s) => s.label), gold: r.gold }),
      )
      .join("\n"),
    expected: records.map((r, i) => ({
      externalId: r.numericId ? String(i) : `uid-${i}`,
      problem: r.problem,
      steps: r.steps.map((s) => s.text),
      referenceAnswer: r.gold === null ? null : String(r.gold),
      hardLabels: r.steps.map((s) => (s.label === true || s.label === "+" || s.label === "Positive" ? "Positive" : "Negative")),
    })),
  }));

const FILES: [string, fc.Arbitrary<GeneratedFile>][] = [
  ["ProcessBench JSON", processBenchFile],
  ["PRM800K", prm800kFile],
  ["Math-Shepherd", mathShepherdFile],
  ["generic JSONL", genericFile],
];

/** Imported solutions written back as a file of their own format (the fields that format carries). */
function writeBack(format: ImportFormat, solutions: ImportedSolution[]): string {
  const label = (l: string | null | undefined) => (l === "Positive" ? "+" : "-");
  switch (format) {
    case "processbench":
      return JSON.stringify(
        solutions.map((s) => ({ id: s.externalId, generator: s.generator, problem: s.problem, steps: s.steps, final_answer_correct: s.finalAnswerCorrect, label: s.firstErrorIndex })),
      );
    case "prm800k":
      return solutions
        .map((s) =>
          JSON.stringify({
            labeler: s.ratings![0]!.labeler,
            timestamp: "2023-01-22T04:34:27.052924",
            generation: 1,
            is_quality_control_question: false,
            is_initial_screening_question: false,
            question: { problem: s.problem, ground_truth_answer: s.referenceAnswer },
            label: {
              steps: s.steps.map((text, i) => ({ completions: [{ text, rating: s.ratings![i]!.rating, flagged: s.ratings![i]!.flagged }], human_completion: null, chosen_completion: 0 })),
              total_time: 1000,
              finish_reason: s.metadata.finish_reason,
            },
          }),
        )
        .join("\n");
    case "math-shepherd":
      return solutions
        .map((s) => {
          const withMarks = (mark: (i: number) => string) => s.steps.map((step, i) => `${step} ${mark(i)}`).join("\n");
          return JSON.stringify({ input: `${s.problem} ${withMarks(() => "ки")}`, label: `${s.problem} ${withMarks((i) => label(s.hardLabels![i]))}`, task: s.metadata.task });
        })
        .join("\n");
    case "jsonl":
      return solutions
        .map((s) => JSON.stringify({ uid: s.externalId, q: s.problem, solution: { steps: s.steps }, l: s.hardLabels!.map(label), gold: s.referenceAnswer }))
        .join("\n");
    default:
      throw new Error(`no writer for ${format}`);
  }
}

const FILE_NAME = "generated.data";

function read(file: GeneratedFile, content: Uint8Array | string, pieceSize?: number) {
  return readAll(file.format, content, { file: FILE_NAME, ...(file.mapping ? { mapping: parseFieldMapping(file.mapping) } : {}) }, pieceSize);
}

type Outcome = { solutions: ImportedSolution[] } | { error: unknown };

async function outcomeOf(promise: Promise<{ solution: ImportedSolution }[]>): Promise<Outcome> {
  try {
    return { solutions: (await promise).map((r) => r.solution) };
  } catch (error) {
    return { error };
  }
}

function lineCount(bytes: Uint8Array): number {
  let lines = 1;
  for (const byte of bytes) if (byte === 0x0a) lines++;
  return lines;
}

const corruption = fc.record({
  kind: fc.constantFrom("replace", "delete", "truncate", "truncate at a line end"),
  positionPick: fc.nat(),
  byte: fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x0a, 0x22, 0x5c, 0x2c, 0x7b, 0x7d, 0x5b, 0x5d, 0x20, 0x30, 0x31, 0x2d)),
});

function corrupt(bytes: Uint8Array, { kind, positionPick, byte }: { kind: string; positionPick: number; byte: number }): { bytes: Uint8Array; position: number } {
  if (kind === "truncate at a line end") {
    const lineEnds = [...bytes.keys()].filter((i) => bytes[i] === 0x0a);
    const position = lineEnds.length > 0 ? lineEnds[positionPick % lineEnds.length]! : positionPick % bytes.length;
    return { bytes: bytes.slice(0, position), position };
  }
  const position = positionPick % bytes.length;
  if (kind === "truncate") return { bytes: bytes.slice(0, position), position };
  if (kind === "delete") return { bytes: new Uint8Array([...bytes.subarray(0, position), ...bytes.subarray(position + 1)]), position };
  const out = bytes.slice();
  out[position] = byte;
  return { bytes: out, position };
}

describe("import formats (property)", () => {
  it.each(FILES)("%s: generated valid records import losslessly, their steps round-tripping, whatever the piece size", async (_name, files) => {
    await fc.assert(
      fc.asyncProperty(files, fc.constantFrom(undefined, 1, 5, 64), async (file, pieceSize) => {
        const records = await read(file, file.content, pieceSize);
        expect(records).toHaveLength(file.expected.length);
        records.forEach(({ solution }, i) => expect(solution).toMatchObject(file.expected[i]!));
        // Written back in the same format, the imported solutions import as themselves.
        const solutions = records.map((r) => r.solution);
        const again = await read(file, writeBack(file.format, solutions), pieceSize);
        expect(again.map((r) => r.solution)).toEqual(solutions);
        tally.roundTrips += 1;
      }),
      { numRuns: 60 },
    );
  });

  it.each(FILES)("%s: one corrupted, deleted or truncated byte reads the same, edits one record, or fails with a located error — never a crash or a silent loss", async (_name, files) => {
    await fc.assert(
      fc.asyncProperty(files, corruption, fc.constantFrom(undefined, 3), async (file, change, pieceSize) => {
        const original = new TextEncoder().encode(file.content);
        const before = (await read(file, original)).map((r) => r.solution);
        const { bytes, position } = corrupt(original, change);
        const outcome = await outcomeOf(read(file, bytes, pieceSize));
        tally.corrupted += 1;

        if ("error" in outcome) {
          expect(outcome.error, String(outcome.error)).toBeInstanceOf(InputError);
          const { location } = outcome.error as InputError;
          expect(location.file).toBe(FILE_NAME);
          expect(location.line).toBeGreaterThanOrEqual(1);
          expect(location.line).toBeLessThanOrEqual(lineCount(bytes));
          tally.locatedErrors += 1;
        } else if (JSON.stringify(outcome.solutions) === JSON.stringify(before)) {
          tally.identical += 1;
        } else if (change.kind.startsWith("truncate")) {
          // Only a JSON-lines file cut exactly at a line end is a shorter valid file; it holds the records before the cut.
          expect(file.format).not.toBe("processbench");
          expect(outcome.solutions).toEqual(before.slice(0, outcome.solutions.length));
          const kept = new TextDecoder().decode(bytes).trimEnd();
          expect(["\n", "\r", undefined]).toContain(file.content.charAt(kept.length) || undefined);
          tally.validPrefixes += 1;
        } else {
          // A byte inside a value: still every record, and only the one holding the byte differs.
          expect(outcome.solutions).toHaveLength(before.length);
          const differing = outcome.solutions.filter((s, i) => JSON.stringify(s) !== JSON.stringify(before[i]));
          expect(differing).toHaveLength(1);
          if (file.format !== "processbench") {
            const line = lineCount(original.subarray(0, position));
            expect(outcome.solutions.findIndex((s, i) => JSON.stringify(s) !== JSON.stringify(before[i]))).toBe(line - 1);
          }
          tally.validEdits += 1;
        }

        // The preview reports the same damage as rows; it never throws.
        const preview = await previewImport(file.format, piecesOf(bytes, pieceSize), {
          file: FILE_NAME,
          ...(file.mapping ? { mapping: parseFieldMapping(file.mapping) } : {}),
        });
        if ("error" in outcome) expect(preview.rows.some((row) => row.error?.startsWith(`${FILE_NAME}:`))).toBe(true);
      }),
      { numRuns: 250 },
    );
  });
});
