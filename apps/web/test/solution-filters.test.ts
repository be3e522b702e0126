import { describe, expect, it } from "vitest";
import { confidenceRuleOptions, confidenceRuleParams, confidenceRuleValue, describeView, parseConfidenceRuleValue, readSolutionView } from "../src/lib/solution-filters";

const REL_RATIO = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;
const read = (query: Record<string, string>) => readSolutionView(new URLSearchParams(query));

describe("the solutions list's view in the URL: the lowest-confidence filter", () => {
  it("reads the confidence rule from its two parameters, the bound and the sort", () => {
    expect(read({ annotateRunId: "r1", confidenceRule: "rel_ratio", confidenceParams: '{"gamma":0.7}', maxConfidence: "0.6", sort: "lowestConfidence", order: "asc" })).toEqual({
      annotateRunId: "r1",
      confidenceRule: REL_RATIO,
      maxConfidence: 0.6,
      sort: "lowestConfidence",
      order: "asc",
    });
  });

  it("drops what cannot be sent: a rule without its run, a bound or sort without a rule, an unknown rule, a bound outside [0, 1]", () => {
    expect(read({ confidenceRule: "rel_ratio", confidenceParams: '{"gamma":0.7}', maxConfidence: "0.6", sort: "lowestConfidence" })).toEqual({});
    expect(read({ annotateRunId: "r1", maxConfidence: "0.6", sort: "lowestConfidence" })).toEqual({ annotateRunId: "r1" });
    expect(read({ annotateRunId: "r1", confidenceRule: "rel-ratio", confidenceParams: '{"gamma":0.7}' })).toEqual({ annotateRunId: "r1" });
    expect(read({ annotateRunId: "r1", confidenceRule: "rel_ratio", confidenceParams: "" })).toEqual({ annotateRunId: "r1" });
    expect(read({ annotateRunId: "r1", confidenceRule: "rel_ratio", confidenceParams: '{"gamma":0.7}', maxConfidence: "1.5" })).toEqual({ annotateRunId: "r1", confidenceRule: REL_RATIO });
  });

  it("turns a rule into one picker value and back, and into URL parameters", () => {
    expect(confidenceRuleValue(REL_RATIO)).toBe('rel_ratio|{"gamma":0.7}');
    expect(parseConfidenceRuleValue(confidenceRuleValue(REL_RATIO))).toEqual(REL_RATIO);
    // JSON may hold a "|" of its own: only the first one separates.
    expect(parseConfidenceRuleValue('abs_q|{"evidence":"a|b"}')).toEqual({ rule: "abs_q", paramsKey: '{"evidence":"a|b"}' });
    for (const value of ["", undefined, "rel_ratio", "bogus|{}", "rel_ratio|"]) expect(parseConfidenceRuleValue(value)).toBeUndefined();
    expect(confidenceRuleParams(REL_RATIO)).toEqual({ confidenceRule: "rel_ratio", confidenceParams: '{"gamma":0.7}' });
    expect(confidenceRuleParams(undefined)).toEqual({ confidenceRule: undefined, confidenceParams: undefined });
  });

  it("names the run's rules as they read, and a view's filters in words", () => {
    expect(confidenceRuleOptions([{ rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' }, REL_RATIO])).toEqual([
      ["", "None"],
      ['abs_q|{"evidence":"own-prefix"}', "abs-q(evidence=own-prefix)"],
      ['rel_ratio|{"gamma":0.7}', "rel-ratio(gamma=0.7)"],
    ]);
    expect(describeView({ annotateRunId: "r1", confidenceRule: REL_RATIO, maxConfidence: 0.6 })).toBe("annotateRunId = r1, confidenceRule = rel-ratio(gamma=0.7), maxConfidence = 0.6");
  });
});
