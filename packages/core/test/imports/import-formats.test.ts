import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chunksFromParagraphs } from "../../src/chunks/paragraphs";
import { contentHashOf } from "../../src/imports/content-hash";
import { parseFieldMapping } from "../../src/imports/field-mapping";
import { formatReader, outcomesOfValues, readImportOutcomes } from "../../src/imports/read-records";
import { piecesOf } from "../../src/imports/byte-streams";
import { readAll, readFixture } from "./import-helpers";

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("content hash", () => {
  it("is the SHA-256 of the canonical JSON of generator, problem and steps", () => {
    const steps = ["1 + 1 = 2.", "The answer is 2."];
    expect(contentHashOf("What is 1 + 1?", steps, "qwen")).toBe("e8270305c7021d5e82bebc9ad07553eeb1b0369a27d30e78fc6e8c427f780ab0");
    expect(contentHashOf("What is 1 + 1?", steps, "qwen")).toBe(nodeSha256(JSON.stringify({ generator: "qwen", problem: "What is 1 + 1?", steps })));
  });

  it("matches node:crypto on texts across block boundaries and outside ASCII", () => {
    for (let length = 0; length < 200; length += 1) {
      const problem = "é∑🙂x".repeat(length).slice(0, length);
      expect(contentHashOf(problem, [], "g")).toBe(nodeSha256(JSON.stringify({ generator: "g", problem, steps: [] })));
    }
  });

  it("tells a different split of the same text apart", () => {
    expect(contentHashOf("p", ["a b"], "g")).not.toBe(contentHashOf("p", ["a", "b"], "g"));
  });
});

describe("ProcessBench import", () => {
  it("keeps the records' fields, one step per paragraph, subsets from the ids", async () => {
    const records = await readFixture("processbench", "processbench-small.json");
    expect(records.map((r) => [r.line, r.record, r.solution.externalId, r.solution.subset])).toEqual([
      [2, 0, "gsm8k-0", "gsm8k"],
      [14, 1, "gsm8k-1", "gsm8k"],
      [26, 2, "gsm8k-2", "gsm8k"],
      [37, 3, "math-0", "math"],
      [49, 4, "math-1", "math"],
    ]);
    expect(records[1]!.solution).toEqual({
      externalId: "gsm8k-1",
      subset: "gsm8k",
      generator: "Llama-3.1-8B-Instruct",
      problem: "A shirt costs $20 and is on sale for 25% off. What is the sale price?",
      referenceAnswer: null,
      steps: ["25% of $20 is 0.25 × 20 = $4.", "The sale price is 20 + 4 = $24.", "So the answer is \\boxed{24}."],
      separator: "\n\n",
      finalAnswer: null,
      finalAnswerCorrect: false,
      firstErrorIndex: 1,
      ratings: null,
      hardLabels: null,
      softLabels: null,
      metadata: {},
      contentHash: "a78ebb5836fb0e4c6eed25249bd04f95525bad42de734bc6bd265d2bf77f0aba",
    });
  });

  it("stores paragraphs joined as chunksFromParagraphs joins them", async () => {
    const [first] = await readFixture("processbench", "processbench-small.json");
    const { steps, separator } = first!.solution;
    expect(steps.join(separator)).toBe(chunksFromParagraphs(steps).text);
  });

  it("lets the subset option override the id's", async () => {
    const records = await readFixture("processbench", "processbench-small.json", { subset: "pilot" });
    expect(new Set(records.map((r) => r.solution.subset))).toEqual(new Set(["pilot"]));
  });
});

describe("PRM800K import", () => {
  it("phase 1: follows the chosen completions and the human completion, with each step's rating", async () => {
    const records = await readFixture("prm800k", "prm800k-phase1.jsonl");
    expect(records).toHaveLength(3);
    const second = records[1]!;
    expect(second.line).toBe(2);
    expect(second.solution).toMatchObject({
      subset: null,
      generator: "prm800k",
      problem: "What is the positive difference between $120\\%$ of 30 and $130\\%$ of 20?",
      referenceAnswer: "10",
      steps: [
        "$120\\%$ of 30 is $1.2 \\cdot 30 = 36$.",
        "$130\\%$ of 20 is $1.3 \\cdot 20 = 26$.",
        "The positive difference is $36 - 26 = 10$.\n\n# Answer\n\n10",
      ],
      separator: "\n",
      finalAnswer: "10",
      finalAnswerCorrect: null,
      firstErrorIndex: -1,
      ratings: [
        { rating: 1, flagged: false, labeler: "debabd91-2b5f-4bc7-a6b4-5e3a7d2a4a3f" },
        // The human completion: unrated in the file, +1 by the README's definition, its source kept.
        { rating: 1, flagged: false, labeler: "debabd91-2b5f-4bc7-a6b4-5e3a7d2a4a3f", source: "human_completion" },
        { rating: 1, flagged: false, labeler: "debabd91-2b5f-4bc7-a6b4-5e3a7d2a4a3f" },
      ],
      hardLabels: null,
      softLabels: null,
      metadata: {
        finish_reason: "solution",
        labeler: "debabd91-2b5f-4bc7-a6b4-5e3a7d2a4a3f",
        generation: null,
        is_quality_control_question: false,
        is_initial_screening_question: false,
        human_completion_steps: [1],
        // The two model completions the human step replaced, with their -1 ratings.
        alternatives: [
          { step: 1, text: expect.any(String), rating: -1, flagged: false, offPath: "replaced-by-human" },
          { step: 1, text: expect.any(String), rating: -1, flagged: false, offPath: "replaced-by-human" },
        ],
      },
    });
    expect(second.solution.externalId).toBe(`prm800k-${second.solution.contentHash.slice(0, 16)}`);
    expect(second.solution.contentHash).toBe(contentHashOf(second.solution.problem, second.solution.steps, "prm800k"));
  });

  it("phase 1: an alternative completion chosen over the first carries its own rating and flag", async () => {
    const third = (await readFixture("prm800k", "prm800k-phase1.jsonl"))[2]!.solution;
    expect(third.steps[1]).toBe("$\\lfloor -1.2 \\rfloor = -2$, the greatest integer not above $-1.2$.");
    expect(third.ratings![1]).toEqual({ rating: 1, flagged: true, labeler: "e90a38f3-3135-4465-87af-3e6322e3d772" });
    expect(third.ratings![0]!.flagged).toBe(false); // null in the file
    expect(third.metadata.is_initial_screening_question).toBe(true);
  });

  it("phase 2: a found_error solution ends on the step rated -1, which is its first error", async () => {
    const [foundError, solved, gaveUp] = await readFixture("prm800k", "prm800k-phase2.jsonl");
    expect(foundError!.solution).toMatchObject({
      steps: [
        "I want to find the largest positive integer that divides both $20 !$ and $200,\\!000$ evenly.",
        "I know that $200,\\!000 = 2^5\\cdot 10^4 = 2^9\\cdot 5^4$.",
      ],
      referenceAnswer: "40,\\!000",
      finalAnswer: null,
      firstErrorIndex: 1,
      ratings: [
        { rating: 0, flagged: false, labeler: "340d89bc-f5b7-45e9-b272-909ba68ee363" },
        { rating: -1, flagged: false, labeler: "340d89bc-f5b7-45e9-b272-909ba68ee363" },
      ],
      metadata: { finish_reason: "found_error", generation: 9, pre_generated_verifier_score: 0.010779580529581414 },
    });
    expect(solved!.solution).toMatchObject({ finalAnswer: "5", firstErrorIndex: -1, referenceAnswer: "5" });
    // Gave up without a -1: the first error is unknown.
    expect(gaveUp!.solution).toMatchObject({ firstErrorIndex: null, finalAnswer: null });
    expect(gaveUp!.solution.steps).toHaveLength(3);
    expect(gaveUp!.solution.metadata).toMatchObject({ finish_reason: "give_up", is_quality_control_question: true });
  });

  it("uses the generator and subset options", async () => {
    const records = await readFixture("prm800k", "prm800k-phase2.jsonl", { generator: "gpt-4-early", subset: "phase2" });
    expect(records[0]!.solution).toMatchObject({ generator: "gpt-4-early", subset: "phase2" });
    expect(records[0]!.solution.contentHash).toBe(contentHashOf(records[0]!.solution.problem, records[0]!.solution.steps, "gpt-4-early"));
  });

  it("a step after the labeller's stopping step is not part of the solution", async () => {
    const line = JSON.stringify({
      labeler: "l",
      timestamp: "t",
      generation: 1,
      is_quality_control_question: false,
      is_initial_screening_question: false,
      question: { problem: "p", ground_truth_answer: "1" },
      label: {
        steps: [
          { completions: [{ text: "a", rating: 1, flagged: null }], human_completion: null, chosen_completion: 0 },
          { completions: [{ text: "b", rating: 0 }, { text: "c", rating: 1 }], human_completion: null, chosen_completion: null },
          { completions: [{ text: "d", rating: 1 }], human_completion: null, chosen_completion: 0 },
        ],
        total_time: 1,
        finish_reason: "give_up",
      },
    });
    const [record] = await readAll("prm800k", line);
    // Phase 1 style (no pre-generated steps): the labeller gave up before choosing at step 2, so the path
    // ends before it; the two rated completions of step 2 are kept as alternatives.
    expect(record!.solution.steps).toEqual(["a"]);
    expect(record!.solution.firstErrorIndex).toBeNull();
    expect(record!.solution.metadata.alternatives).toEqual([
      { step: 1, text: "b", rating: 0, flagged: false, offPath: "not-chosen" },
      { step: 1, text: "c", rating: 1, flagged: false, offPath: "not-chosen" },
    ]);
    // Pre-generated (phase 2): the unchosen step on the path is the pre-generated one.
    const preGenerated = JSON.parse(line) as { question: Record<string, unknown> };
    preGenerated.question.pre_generated_steps = ["a", "c", "d"];
    const [phase2] = await readAll("prm800k", JSON.stringify(preGenerated));
    expect(phase2!.solution.steps).toEqual(["a", "c"]);
    expect(phase2!.solution.ratings!.map((r) => r.rating)).toEqual([1, 1]);
  });
});

describe("Math-Shepherd import", () => {
  it("splits input at the step tags and reads +/- from label", async () => {
    const records = await readFixture("math-shepherd", "math-shepherd.jsonl");
    expect(records).toHaveLength(4);
    expect(records[1]!.solution).toEqual({
      externalId: `math-shepherd-${records[1]!.solution.contentHash.slice(0, 16)}`,
      subset: "gsm8k",
      generator: "math-shepherd",
      problem: "A robe takes 2 bolts of blue fiber and half that much white fiber. How many bolts in total does it take?",
      referenceAnswer: null,
      steps: ["Step 1: It takes 2 / 2 = 1 bolt of white fiber.", "Step 2: So the total is 2 + 2 = 4 bolts.", "Step 3: The answer is: 4"],
      separator: "\n",
      finalAnswer: "4",
      finalAnswerCorrect: false,
      firstErrorIndex: 1,
      ratings: null,
      hardLabels: ["Positive", "Negative", "Negative"],
      softLabels: null,
      metadata: { task: "GSM8K" },
      contentHash: contentHashOf(
        "A robe takes 2 bolts of blue fiber and half that much white fiber. How many bolts in total does it take?",
        ["Step 1: It takes 2 / 2 = 1 bolt of white fiber.", "Step 2: So the total is 2 + 2 = 4 bolts.", "Step 3: The answer is: 4"],
        "math-shepherd",
      ),
    });
  });

  it("a solution whose last step is + has a correct stated answer, which is then the reference", async () => {
    const [first, , third, fourth] = await readFixture("math-shepherd", "math-shepherd.jsonl");
    expect(first!.solution).toMatchObject({ finalAnswer: "18", finalAnswerCorrect: true, referenceAnswer: "18", firstErrorIndex: -1 });
    expect(third!.solution).toMatchObject({ subset: "math", finalAnswer: "74", referenceAnswer: "74", hardLabels: ["Positive", "Positive"] });
    expect(fourth!.solution).toMatchObject({ subset: "math", finalAnswerCorrect: false, referenceAnswer: null });
  });

  it("reads soft labels when a record carries them", async () => {
    const tag = "ки";
    const input = `What is 2 + 2? Step 1: 2 + 2 = 4. ${tag}\nStep 2: The answer is: 4 ${tag}`;
    const line = JSON.stringify({ input, label: input.replaceAll(tag, "+"), soft_labels: [0.75, 1] });
    const [record] = await readAll("math-shepherd", line);
    expect(record!.solution).toMatchObject({ softLabels: [0.75, 1], hardLabels: ["Positive", "Positive"], subset: null });
  });

  it("a problem that itself says \"Step 1:\" stays whole", async () => {
    const tag = "ки";
    const input = `A recipe reads "Step 1: mix". How many steps? Step 1: One step is named. The answer is: 1 ${tag}`;
    const [record] = await readAll("math-shepherd", JSON.stringify({ input, label: input.replace(tag, "+") }));
    expect(record!.solution.problem).toBe('A recipe reads "Step 1: mix". How many steps?');
    expect(record!.solution.steps).toEqual(["Step 1: One step is named. The answer is: 1"]);
  });
});

describe("generic JSONL import", () => {
  // The mapping a person would pass for generic.jsonl:
  // --map problem=question,steps=response.steps,labels=step_labels,id=uid,answer=gold,generator=response.model,subset=source,correct=is_correct
  const mapping = parseFieldMapping(
    "problem=question,steps=response.steps,labels=step_labels,id=uid,answer=gold,generator=response.model,subset=source,correct=is_correct",
  );

  it("reads each mapped field", async () => {
    const records = await readFixture("jsonl", "generic.jsonl", { mapping });
    expect(records[1]!.solution).toEqual({
      externalId: "run7-0002",
      subset: "synthetic-arith",
      generator: "policy-1.5b",
      problem: "What is $15\\%$ of 80?",
      referenceAnswer: "12",
      steps: ["$10\\%$ of 80 is 8.", "$5\\%$ of 80 is 2.", "So $15\\%$ is $8 + 2 = 10$, answer $\\boxed{10}$."],
      separator: "\n\n",
      finalAnswer: null,
      finalAnswerCorrect: false,
      firstErrorIndex: 1,
      ratings: null,
      hardLabels: ["Positive", "Negative", "Negative"],
      softLabels: null,
      metadata: {},
      contentHash: contentHashOf(
        "What is $15\\%$ of 80?",
        ["$10\\%$ of 80 is 8.", "$5\\%$ of 80 is 2.", "So $15\\%$ is $8 + 2 = 10$, answer $\\boxed{10}$."],
        "policy-1.5b",
      ),
    });
  });

  it("numeric ids become text, null generators fall back, and an unlabelled step leaves the first error unknown", async () => {
    const records = await readFixture("jsonl", "generic.jsonl", { mapping, generator: "policy-x" });
    expect(records[0]!.solution).toMatchObject({ firstErrorIndex: -1, hardLabels: ["Positive", "Positive"], finalAnswerCorrect: true });
    expect(records[2]!.solution).toMatchObject({
      externalId: "3",
      generator: "policy-x",
      subset: null,
      hardLabels: ["Positive", null],
      firstErrorIndex: null,
      finalAnswerCorrect: null,
    });
  });

  it("soft labels give Abs-Q hard labels", async () => {
    const line = JSON.stringify({ q: "p", s: ["a", "b", "c"], v: [0.5, 0, null] });
    const [record] = await readAll("jsonl", line, { mapping: parseFieldMapping("problem=q,steps=s,labels=v") });
    expect(record!.solution).toMatchObject({ softLabels: [0.5, 0, null], hardLabels: ["Positive", "Negative", null], firstErrorIndex: 1 });
    expect(record!.solution.externalId).toBe(`jsonl-${record!.solution.contentHash.slice(0, 16)}`);
    expect(record!.solution.generator).toBe("unknown");
  });

  it("ratings are kept as ratings; a -1 is the first error", async () => {
    const line = JSON.stringify({ q: "p", s: ["a", "b", "c"], v: [1, 0, -1] });
    const [record] = await readAll("jsonl", line, { mapping: parseFieldMapping("problem=q,steps=s,labels=v,labelKind=rating") });
    expect(record!.solution).toMatchObject({
      ratings: [
        { rating: 1, flagged: false, labeler: null },
        { rating: 0, flagged: false, labeler: null },
        { rating: -1, flagged: false, labeler: null },
      ],
      hardLabels: null,
      firstErrorIndex: 2,
    });
  });

  it("hard labels may be 1/0 when the mapping says they are hard", async () => {
    const line = JSON.stringify({ q: "p", s: ["a", "b"], v: [1, 0] });
    const [record] = await readAll("jsonl", line, { mapping: parseFieldMapping("problem=q,steps=s,labels=v,labelKind=hard") });
    expect(record!.solution.hardLabels).toEqual(["Positive", "Negative"]);
    expect(record!.solution.softLabels).toBeNull();
  });

  it.each([
    ["blank-line", "First step.\n\nSecond step\nstill second.\n\n\nThird.", ["First step.", "Second step\nstill second.", "Third."], "\n\n"],
    ["step-markers", "Let us see.\nStep 1: one.\n\nStep 2: two\nmore.", ["Let us see.", "Step 1: one.", "Step 2: two\nmore."], "\n\n"],
    ["lines", "  one\n\ntwo  \nthree", ["one", "two", "three"], "\n"],
  ] as const)("splits text by %s", async (split, text, steps, separator) => {
    const [record] = await readAll("jsonl", JSON.stringify({ q: "p", t: text }), {
      mapping: parseFieldMapping(`problem=q,text=t,split=${split}`),
    });
    expect(record!.solution.steps).toEqual(steps);
    expect(record!.solution.separator).toBe(separator);
  });

  it("without a mapping the jsonl format is refused before reading", async () => {
    await expect(readAll("jsonl", '{"q": "p"}')).rejects.toMatchObject({ location: { field: "--map" } });
  });
});

describe("Parquet rows through the field mapping", () => {
  const rows = (values: unknown[]) =>
    (async function* () {
      for (const [record, value] of values.entries()) yield { line: record + 1, record, value };
    })();

  it("reads values as JSONL records, names rows in errors and duplicate ids, and calls an empty file empty", async () => {
    const reader = formatReader("parquet", { file: "t.parquet", mapping: parseFieldMapping("id=uid,problem=q.text,steps=c.*.text,labels=c.*.ok") });
    const values = [
      { uid: 1, q: { text: "p1" }, c: [{ text: "a", ok: true }, { text: "b", ok: false }] },
      { uid: 2, q: { text: "p2" }, c: [{ text: "a", ok: null }, { text: 3, ok: true }] },
      { uid: 1, q: { text: "p3" }, c: [{ text: "z", ok: true }] },
    ];
    const outcomes = [];
    for await (const outcome of outcomesOfValues(reader, rows(values), "t.parquet", "row")) outcomes.push(outcome);
    expect(outcomes[0]).toMatchObject({ kind: "solution", line: 1, solution: { externalId: "1", problem: "p1", steps: ["a", "b"], hardLabels: ["Positive", "Negative"], firstErrorIndex: 1 } });
    expect(outcomes[1]).toMatchObject({ kind: "invalid", line: 2, structural: false });
    expect((outcomes[1] as { error: Error }).error.message).toBe('t.parquet:2, record 1, field "c.1.text": expected a string, got number (mapped to steps)');
    expect((outcomes[2] as { error: Error }).error.message).toBe('t.parquet:3, record 2, field "uid": duplicate id "1": first used by the record on row 1');

    const none = [];
    for await (const outcome of outcomesOfValues(reader, rows([]), "empty.parquet", "row")) none.push(outcome);
    expect(none).toMatchObject([{ kind: "invalid", structural: true }]);
    expect((none[0] as { error: Error }).error.message).toBe("empty.parquet:1: the file holds no records");
  });

  it("needs a mapping, and is never read as a text stream", async () => {
    expect(() => formatReader("parquet", { file: "t.parquet" })).toThrow('t.parquet, field "--map": the parquet format needs a field mapping');
    const outcomes = [];
    for await (const outcome of readImportOutcomes("parquet", piecesOf("PAR1"), { file: "t.parquet", mapping: parseFieldMapping("problem=p,steps=s") })) outcomes.push(outcome);
    expect(outcomes).toMatchObject([{ kind: "invalid", structural: true }]);
  });
});
