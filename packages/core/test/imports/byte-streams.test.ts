import { describe, expect, it } from "vitest";
import { InputError } from "../../src/errors/input-error";
import { parseJsonAt, piecesOf, readJsonArrayElements, readLines } from "../../src/imports/byte-streams";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe("readLines", () => {
  it("yields non-blank lines with their numbers, whatever the piece size", async () => {
    const text = '\ufeff{"a":1}\r\n\n{"b":"é ки"}\n  \n{"c":3}';
    for (const size of [1, 2, 3, 7, 1000]) {
      const lines = await collect(readLines(piecesOf(text, size), "f.jsonl"));
      expect(lines).toEqual([
        { line: 1, text: '{"a":1}' },
        { line: 3, text: '{"b":"é ки"}' },
        { line: 5, text: '{"c":3}' },
      ]);
    }
  });

  it("names the line holding invalid UTF-8", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":1}\n{"b":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}\n')]);
    const error = await failure(collect(readLines(piecesOf(bytes, 5), "bad.jsonl")));
    expect(error.message).toBe("bad.jsonl:2: not valid UTF-8 text");
  });

  it("parseJsonAt reports the file line of a syntax error", () => {
    expect(() => parseJsonAt({ line: 7, text: '{"a": }' }, "x.jsonl")).toThrow(/^x\.jsonl:7: not valid JSON/);
  });
});

describe("readJsonArrayElements", () => {
  const file = '[\n  {"id": "a-1", "s": "x]}\\"{"},\n  {"id": "a-2",\n   "n": [1, [2]]}\n]\n';

  it("yields each top-level element with its start line, across any piece boundary", async () => {
    for (const size of [1, 2, 5, 4096]) {
      const elements = await collect(readJsonArrayElements(piecesOf(file, size), "pb.json"));
      expect(elements.map((e) => [e.index, e.line])).toEqual([
        [0, 2],
        [1, 3],
      ]);
      expect(elements.map((e) => JSON.parse(e.text))).toEqual([
        { id: "a-1", s: 'x]}"{' },
        { id: "a-2", n: [1, [2]] },
      ]);
    }
  });

  it("handles scalar elements and an empty array", async () => {
    expect((await collect(readJsonArrayElements(piecesOf("[1, true ,\"x\"]"), "f"))).map((e) => e.text)).toEqual(["1", "true", '"x"']);
    expect(await collect(readJsonArrayElements(piecesOf(" [ ] "), "f"))).toEqual([]);
  });

  it.each([
    ["", "f.json:1: the file is empty"],
    ['{"id": 1}', 'f.json:1: expected a JSON array of records (the file should start with "[")'],
    ['[\n{"id": 1},\n{"id": 2', "f.json:3, record 1: the file ends inside a record (truncated?)"],
    ['[\n{"id": 1},\n', 'f.json:3: the file ends before the array is closed with "]" (truncated?)'],
    ['[{"id": 1}]\n]', "f.json:2: unexpected text after the end of the array"],
    ['[{"id": 1} {"id": 2}]', "f.json:1, record 1: not valid JSON (a comma is missing between records)"],
    ['[{"id": 1},,{"id": 2}]', "f.json:1, record 1: not valid JSON (an empty element between commas)"],
    ['[{"id": 1},\n]', 'f.json:2, record 1: not valid JSON (a comma before "]")'],
  ])("rejects %j", async (text, message) => {
    const error = await failure(collect(readJsonArrayElements(piecesOf(text, 3), "f.json")));
    expect(error.message).toBe(message);
  });
});
