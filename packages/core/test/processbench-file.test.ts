import { describe, expect, it } from "vitest";
import { InputError, readProcessBenchFile, subsetFromId } from "../src";

const record = (overrides: Record<string, unknown> = {}) => ({
  id: "gsm8k-0",
  generator: "Qwen2-7B-Instruct",
  problem: "What is 2 + 3?",
  steps: ["2 + 3 = 5.", "So the answer is \\boxed{5}."],
  final_answer_correct: true,
  label: -1,
  ...overrides,
});

async function captureInputError(run: () => Promise<unknown>): Promise<InputError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}

describe("ProcessBench file reading (the import's streaming reader, whole file in memory)", () => {
  it("accepts well-formed records", async () => {
    const text = JSON.stringify([record(), record({ id: "gsm8k-1", label: 1 })]);
    const solutions = await readProcessBenchFile(text, "gsm8k.json");
    expect(solutions.map((s) => [s.externalId, s.subset, s.firstErrorIndex])).toEqual([["gsm8k-0", "gsm8k", -1], ["gsm8k-1", "gsm8k", 1]]);
    expect((await readProcessBenchFile(text, "gsm8k.json", { subset: "mine" })).map((s) => s.subset)).toEqual(["mine", "mine"]);
  });

  it("names file, line, record and field for a label out of range", async () => {
    const text = JSON.stringify([record(), record({ id: "gsm8k-1" }), record({ id: "gsm8k-2", label: 7 })], null, 2);
    const error = await captureInputError(() => readProcessBenchFile(text, "bad.json"));
    expect(error.location).toMatchObject({ file: "bad.json", record: 2, field: "label" });
    const lines = text.split("\n");
    expect(lines[error.location.line! - 1]!.trim()).toBe("{");
    expect(lines[error.location.line!]).toContain('"id": "gsm8k-2"');
    expect(error.message).toContain(`bad.json:${error.location.line}, record 2, field "label"`);
    expect(error.message).toContain("out of range");
  });

  it("points at the nested field of a wrong type", async () => {
    const text = JSON.stringify([record({ steps: ["ok", 3] })]);
    const error = await captureInputError(() => readProcessBenchFile(text, "f.json"));
    expect(error.location).toMatchObject({ record: 0, field: "steps.1", line: 1 });
  });

  it("rejects a missing field by name", async () => {
    const { generator: _dropped, ...withoutGenerator } = record();
    const error = await captureInputError(() => readProcessBenchFile(JSON.stringify([withoutGenerator]), "f.json"));
    expect(error.location.field).toBe("generator");
  });

  it("rejects duplicate ids", async () => {
    const error = await captureInputError(() => readProcessBenchFile(JSON.stringify([record(), record()]), "f.json"));
    expect(error.location).toMatchObject({ record: 1, field: "id" });
  });

  it("reports the line of a JSON syntax error", async () => {
    const text = '[\n  {"id": "a-1",\n   "label": }\n]';
    const error = await captureInputError(() => readProcessBenchFile(text, "broken.json"));
    expect(error.location).toMatchObject({ file: "broken.json", line: 3 });
  });

  it("finds syntax errors V8 reports without a position", async () => {
    const cases: Array<[string, number]> = [
      ['[{"a": 1,}]', 1],
      ['[\n{"a": tru}\n]', 2],
      ['[\n\n"unterminated', 3],
      ["[1, 2", 1],
      ['[{"a": "tab\there"}]', 1],
    ];
    for (const [text, line] of cases) {
      const error = await captureInputError(() => readProcessBenchFile(text, "x.json"));
      expect(error.location.line, text).toBe(line);
    }
  });

  it("rejects a top-level value that is not an array, and an empty array", async () => {
    expect((await captureInputError(() => readProcessBenchFile("{}", "f.json"))).message).toContain("JSON array");
    expect((await captureInputError(() => readProcessBenchFile("[]", "f.json"))).message).toContain("no records");
  });

  it("handles braces and escaped quotes inside strings when locating records", async () => {
    const tricky = record({ id: "math-1", problem: 'a "quoted" {brace} [bracket], comma' });
    const text = JSON.stringify([tricky, record({ id: "math-2", label: 5 })], null, 1);
    const error = await captureInputError(() => readProcessBenchFile(text, "f.json"));
    expect(error.location.record).toBe(1);
    expect(text.split("\n")[error.location.line! - 1]!.trim()).toBe("{");
  });
});

describe("subset names", () => {
  it("comes from the id prefix", () => {
    expect(subsetFromId("gsm8k-12")).toBe("gsm8k");
    expect(subsetFromId("olympiadbench-0")).toBe("olympiadbench");
    expect(subsetFromId("omni-math-3")).toBe("omni-math");
    expect(subsetFromId("custom")).toBe("custom");
  });
});
