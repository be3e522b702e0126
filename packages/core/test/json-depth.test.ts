import { describe, expect, it } from "vitest";
import { assertJsonDepth, jsonDepthExcess } from "../src";

describe("JSON nesting depth", () => {
  it("counts arrays and objects, not brackets inside strings or escaped quotes", () => {
    expect(jsonDepthExcess('{"a":[[1]]}', 3)).toBeNull();
    expect(jsonDepthExcess('{"a":[[[1]]]}', 3)).toEqual({ depth: 4, offset: 7 });
    expect(jsonDepthExcess('{"a":"[[[[[[\\"[[[["}', 2)).toBeNull();
    expect(jsonDepthExcess("[]".repeat(1000), 1)).toBeNull();
  });

  it("refuses past the cap with the line and column inside the text, offset by where it is", () => {
    expect(() => assertJsonDepth("[[[", 2, { field: "body" })).toThrow('field "body": the JSON nests more than 2 arrays/objects deep (at column 3); flatten it');
    expect(() => assertJsonDepth('{"x":\n  [[[1]]]}', 2, { file: "a.jsonl", line: 7, record: 6 })).toThrow(
      "a.jsonl:8, record 6: the JSON nests more than 2 arrays/objects deep (at column 4); flatten it",
    );
    expect(() => assertJsonDepth("[".repeat(100_000), 64)).toThrow(/more than 64/);
  });
});
