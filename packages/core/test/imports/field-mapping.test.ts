import { describe, expect, it } from "vitest";
import { InputError } from "../../src/errors/input-error";
import { fieldMappingSchema, parseFieldMapping, valueAtPath } from "../../src/imports/field-mapping";

describe("parseFieldMapping", () => {
  it("reads key=value pairs into a mapping", () => {
    expect(parseFieldMapping(" problem=question, steps=solution.steps ,labels=step_labels,labelKind=hard")).toEqual({
      problem: "question",
      steps: "solution.steps",
      labels: "step_labels",
      labelKind: "hard",
    });
    expect(parseFieldMapping("problem=q,text=turns.1.content,split=step-markers,id=meta.id,firstError=label")).toEqual({
      problem: "q",
      text: "turns.1.content",
      split: "step-markers",
      id: "meta.id",
      firstError: "label",
    });
  });

  it.each([
    ["", "the mapping is empty"],
    ["problem=q,steps", '"steps" is not key=value'],
    ["problem=q,stpes=s", 'unknown key "stpes"'],
    ["problem=q,steps=s,problem=r", 'key "problem" is given twice'],
    ["problem=q,steps=", 'key "steps" has no value'],
    ["steps=s", 'key "problem": missing'],
    ["problem=q", 'key "steps": map either steps'],
    ["problem=q,steps=s,text=t", 'key "text": map steps or text, not both'],
    ["problem=q,text=t,split=sentences", 'key "split": must be "blank-line", "step-markers" or "lines"'],
    ["problem=q,steps=s,labels=l,labelKind=probability", 'key "labelKind": must be "auto", "hard", "soft" or "rating"'],
    ["problem=q,steps=s,split=lines", 'key "split": applies only to text'],
    ["problem=q,steps=s,labelKind=hard", 'key "labelKind": needs labels'],
    ["problem=a..b,steps=s", 'key "problem": must be a dotted path'],
  ])("rejects %j, naming the key", (spec, message) => {
    let error: unknown;
    try {
      parseFieldMapping(spec);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location).toEqual({ field: "--map" });
    expect((error as InputError).reason).toContain(message);
  });

  it("the schema validates stored mappings the same way", () => {
    expect(fieldMappingSchema.safeParse({ problem: "q", steps: "s" }).success).toBe(true);
    expect(fieldMappingSchema.safeParse({ problem: "q" }).success).toBe(false);
    expect(fieldMappingSchema.safeParse({ problem: "q", steps: "s", extra: "x" }).success).toBe(false);
  });
});

describe("valueAtPath", () => {
  const record = { a: { b: [{ c: 1 }, { c: null }] }, "0": "zero" };
  it("walks objects and array indexes", () => {
    expect(valueAtPath(record, "a.b.0.c")).toEqual({ found: true, value: 1 });
    expect(valueAtPath(record, "a.b.1.c")).toEqual({ found: true, value: null });
    expect(valueAtPath(record, "0")).toEqual({ found: true, value: "zero" });
  });
  it("reports absent parts as not found", () => {
    expect(valueAtPath(record, "a.b.2.c")).toEqual({ found: false });
    expect(valueAtPath(record, "a.b.x")).toEqual({ found: false });
    expect(valueAtPath(record, "a.b.0.c.d")).toEqual({ found: false });
    expect(valueAtPath(record, "toString")).toEqual({ found: false });
  });
  it("maps the rest of the path over an array's items at a * part", () => {
    const rows = { completions: [{ text: "a", rating: 1 }, { text: "b", rating: null }], nested: [[{ x: 1 }], [{ x: 2 }, { x: 3 }]] };
    expect(valueAtPath(rows, "completions.*.text")).toEqual({ found: true, value: ["a", "b"] });
    expect(valueAtPath(rows, "completions.*.rating")).toEqual({ found: true, value: [1, null] });
    expect(valueAtPath(rows, "completions.*")).toEqual({ found: true, value: rows.completions });
    expect(valueAtPath(rows, "nested.*.*.x")).toEqual({ found: true, value: [[1], [2, 3]] });
    expect(valueAtPath({ completions: [] }, "completions.*.text")).toEqual({ found: true, value: [] });
    // Absent in one item, or not an array: not found.
    expect(valueAtPath({ completions: [{ text: "a" }, { rating: 1 }] }, "completions.*.text")).toEqual({ found: false });
    expect(valueAtPath({ completions: { text: "a" } }, "completions.*.text")).toEqual({ found: false });
  });
});
