import { describe, expect, it } from "vitest";
import { firstErrorFromRatings, ratingsFromFirstError, ratingToLabel, resolveHumanLabel, type HumanLabelRow } from "../../src";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const row = (authorId: string, rating: number | null, minute: number, source = "annotation"): HumanLabelRow => ({ authorId, rating, source, createdAt: at(minute) });

describe("human labels", () => {
  it("maps PRM800K ratings to binary labels: only -1 is an error", () => {
    expect([-1, 0, 1].map((r) => ratingToLabel(r as -1 | 0 | 1))).toEqual(["Negative", "Positive", "Positive"]);
  });

  it("turns a first-error pick into ratings and back", () => {
    expect(ratingsFromFirstError(2, 5)).toEqual([1, 1, -1, null, null]);
    expect(ratingsFromFirstError(-1, 3)).toEqual([1, 1, 1]);
    expect(firstErrorFromRatings(ratingsFromFirstError(2, 5))).toBe(2);
    expect(firstErrorFromRatings([1, 0, 1])).toBe(-1);
    expect(() => ratingsFromFirstError(5, 5)).toThrow(/below 5/);
    expect(() => ratingsFromFirstError(-2, 5)).toThrow(RangeError);
  });

  it("takes each annotator's latest row: a correction replaces the earlier rating", () => {
    expect(resolveHumanLabel([row("a", -1, 1), row("b", 1, 2), row("a", 1, 3)])).toEqual({ status: "agreed", rating: 1, annotators: 2 });
  });

  it("is disputed while annotators differ, unlabelled without rows", () => {
    expect(resolveHumanLabel([row("b", 0, 1), row("a", -1, 2)])).toEqual({
      status: "disputed",
      ratings: [
        { authorId: "a", rating: -1 },
        { authorId: "b", rating: 0 },
      ],
    });
    expect(resolveHumanLabel([])).toEqual({ status: "unlabelled" });
  });

  it("lets the latest adjudication decide over any annotator", () => {
    const rows = [row("a", -1, 1), row("b", 1, 2), row("r", 1, 3, "adjudication"), row("s", -1, 4, "adjudication"), row("a", 1, 5)];
    expect(resolveHumanLabel(rows)).toEqual({ status: "adjudicated", rating: -1 });
  });

  it("rejects a stored rating outside the scheme", () => {
    expect(() => resolveHumanLabel([row("a", 2, 1)])).toThrow(/-1, 0 or 1/);
  });
});
