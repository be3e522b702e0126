import { describe, expect, it } from "vitest";
import { piecesOf } from "../../src/imports/byte-streams";
import {
  countIgnored,
  countInvalid,
  countReadable,
  emptyImportReport,
  invalidReasonKey,
  invalidShareError,
  skippedEntryOf,
} from "../../src/imports/import-report";
import { MATH_SHEPHERD_QUIRKS } from "../../src/imports/math-shepherd";
import { PRM800K_QUIRKS } from "../../src/imports/prm800k";
import { readImportOutcomes, type ImportOutcome } from "../../src/imports/read-records";
import type { ImportFormat } from "../../src/imports/imported-solution";
import { InputError } from "../../src/errors/input-error";
import { fixtureBytes, rejectionOf, readFixture } from "./import-helpers";

/*
 * Fixtures modelled on the released files' known departures from their
 * documented layouts; each quirk and where it is documented is listed in
 * test/fixtures/imports/QUIRKS.md.
 */

async function outcomesOf(format: ImportFormat, name: string): Promise<ImportOutcome[]> {
  const out: ImportOutcome[] = [];
  for await (const outcome of readImportOutcomes(format, piecesOf(fixtureBytes(name)), { file: name })) out.push(outcome);
  return out;
}

function solutionAt(outcomes: ImportOutcome[], i: number) {
  const outcome = outcomes[i]!;
  if (outcome.kind !== "solution") throw new Error(`record ${i} is ${outcome.kind}: ${outcome.kind === "invalid" ? outcome.error.message : ""}`);
  return outcome;
}

describe("Math-Shepherd as released", () => {
  const file = "math-shepherd-released-quirks.jsonl";

  it('reads a lowercase "step 1:" as the first step\'s marker', async () => {
    const { solution, quirks } = solutionAt(await outcomesOf("math-shepherd", file), 0);
    expect(solution.problem).toBe("Tom has 3 apples and buys 4 more. How many apples does he have?");
    expect(solution.steps).toEqual(["step 1: He starts with 3 apples and buys 4, so 3 + 4 = 7.", "step 2: The answer is: 7"]);
    expect(solution.hardLabels).toEqual(["Positive", "Positive"]);
    expect(quirks).toEqual([MATH_SHEPHERD_QUIRKS.lowercaseMarker]);
  });

  it('with no step marker, the problem ends at its last "?" before the first tag', async () => {
    const { solution, quirks } = solutionAt(await outcomesOf("math-shepherd", file), 1);
    expect(solution.problem).toBe("What is the value of $2^3 + 1$?");
    expect(solution.steps).toEqual(["$2^3 = 8$.", "So $2^3 + 1 = 9$. The answer is: 9"]);
    expect(solution.finalAnswer).toBe("9");
    expect(quirks).toEqual([MATH_SHEPHERD_QUIRKS.noMarker]);
  });

  it("a tag inside the problem text is removed with its label; the steps keep theirs", async () => {
    const { solution, quirks } = solutionAt(await outcomesOf("math-shepherd", file), 2);
    expect(solution.problem).toBe("Mr. Rocky went to the market to sell his handmade crafts. He sold 5 crafts for $3 each. How much did he earn?");
    expect(solution.steps).toEqual(["Step 1: He earned 5 * 3 = $15.", "Step 2: The answer is: 15"]);
    // The file's marks are "+" (the problem's tag), "+", "-": the first labels no step.
    expect(solution.hardLabels).toEqual(["Positive", "Negative"]);
    expect(solution.firstErrorIndex).toBe(1);
    expect(solution.finalAnswerCorrect).toBe(false);
    expect(quirks).toEqual([MATH_SHEPHERD_QUIRKS.tagInProblem]);
  });

  it("a well-formed record has no quirk, and an unreadable one is located", async () => {
    const outcomes = await outcomesOf("math-shepherd", file);
    expect(solutionAt(outcomes, 3).quirks).toEqual([]);
    const broken = outcomes[4]!;
    expect(broken.kind).toBe("invalid");
    if (broken.kind !== "invalid") return;
    expect(broken.structural).toBe(false);
    expect(broken.error.location).toEqual({ file, line: 5, record: 4, field: "input" });
    expect(broken.error.reason).toContain('has no "Step 1:" (or "step 1:") and no "?" before the first step tag');
  });

  it("the fail policy stops at the unreadable record", async () => {
    const error = await rejectionOf(readFixture("math-shepherd", file));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location.line).toBe(5);
  });

  it("a label that differs inside the problem text is still refused there", async () => {
    const tag = "ки";
    const input = `A problem ${tag} with a tag? Step 1: one. ${tag}`;
    const label = `A problem + with a tag! Step 1: one. +`;
    const outcomes: ImportOutcome[] = [];
    for await (const o of readImportOutcomes("math-shepherd", piecesOf(JSON.stringify({ input, label })), { file: "f.jsonl" })) outcomes.push(o);
    expect(outcomes[0]!.kind).toBe("invalid");
    if (outcomes[0]!.kind === "invalid") expect(outcomes[0]!.error.reason).toMatch(/^differs from input in the problem/);
  });
});

describe("PRM800K as released", () => {
  const file = "prm800k-released-quirks.jsonl";

  it("a record with label.steps: [] is ignored (counted, not invalid) under either policy", async () => {
    const outcomes = await outcomesOf("prm800k", file);
    expect(outcomes[0]).toEqual({
      kind: "ignored",
      line: 1,
      record: 0,
      reason: "PRM800K: no labelled step (label.steps is empty; finish_reason give_up)",
      field: "label.steps",
    });
  });

  it("a human completion is rated +1 with its source, and the alternatives it replaced keep their -1", async () => {
    const { solution, quirks } = solutionAt(await outcomesOf("prm800k", file), 1);
    expect(solution.steps).toEqual(["I multiply 3 by 4.", "$3 \\cdot 4 = 12$.\n\n# Answer\n\n12"]);
    expect(solution.ratings).toEqual([
      { rating: 1, flagged: false, labeler: "a3c5e7f9-0000-4000-8000-000000000001" },
      { rating: 1, flagged: false, labeler: "a3c5e7f9-0000-4000-8000-000000000001", source: "human_completion" },
    ]);
    expect(solution.firstErrorIndex).toBe(-1);
    expect(solution.finalAnswer).toBe("12");
    expect(solution.metadata.human_completion_steps).toEqual([1]);
    expect(solution.metadata.alternatives).toEqual([
      { step: 1, text: "$3 \\cdot 4 = 7$.", rating: -1, flagged: false, offPath: "replaced-by-human" },
      { step: 1, text: "$3 \\cdot 4 = 34$.", rating: -1, flagged: false, offPath: "replaced-by-human" },
    ]);
    expect(quirks).toEqual([PRM800K_QUIRKS.humanCompletion, PRM800K_QUIRKS.replacedAlternative, PRM800K_QUIRKS.replacedAlternative]);
  });

  it("give_up before choosing ends the path there; the rated completions stay as alternatives", async () => {
    const { solution, quirks } = solutionAt(await outcomesOf("prm800k", file), 2);
    expect(solution.steps).toEqual(["I multiply 3 by 4."]);
    expect(solution.firstErrorIndex).toBeNull();
    expect(solution.metadata).toMatchObject({
      finish_reason: "give_up",
      alternatives: [{ step: 1, text: "That is $12$.", rating: 0, flagged: false, offPath: "not-chosen" }],
    });
    expect(quirks).toEqual([PRM800K_QUIRKS.alternative, PRM800K_QUIRKS.gaveUp]);
  });

  it("quality-control copies read to the same content, each with its labeller", async () => {
    const outcomes = await outcomesOf("prm800k", file);
    const [a, b] = [solutionAt(outcomes, 3), solutionAt(outcomes, 4)];
    expect(a.solution.contentHash).toBe(b.solution.contentHash);
    expect(a.solution.externalId).toBe(b.solution.externalId);
    expect([a.solution.ratings![0]!.labeler, b.solution.ratings![0]!.labeler]).toEqual([
      "a3c5e7f9-0000-4000-8000-000000000001",
      "a3c5e7f9-0000-4000-8000-000000000002",
    ]);
    expect(a.quirks).toEqual([PRM800K_QUIRKS.qualityControl]);
  });

  it("phase 2 found_error ends on the unchosen step rated -1", async () => {
    const { solution } = solutionAt(await outcomesOf("prm800k", file), 5);
    expect(solution.steps).toEqual(["I add: $3 + 4 = 7$."]);
    expect(solution.ratings!.map((r) => r.rating)).toEqual([-1]);
    expect(solution.firstErrorIndex).toBe(0);
  });

  it("an out-of-range rating is invalid, located to the field", async () => {
    const outcome = (await outcomesOf("prm800k", file))[6]!;
    expect(outcome.kind).toBe("invalid");
    if (outcome.kind === "invalid") expect(outcome.error.location).toEqual({ file, line: 7, record: 6, field: "label.steps.0.completions.0.rating" });
  });

  it("the fail policy passes over ignored records and stops at the invalid one", async () => {
    const error = await rejectionOf(readFixture("prm800k", file));
    expect((error as InputError).location.line).toBe(7);
  });
});

describe("import report counts", () => {
  it("tallies readable, ignored and invalid records, quirks and reasons, and bounds the invalid share", async () => {
    const report = emptyImportReport("skip", 0.2);
    for (const outcome of await outcomesOf("prm800k", "prm800k-released-quirks.jsonl")) {
      if (outcome.kind === "solution") countReadable(report, outcome.quirks);
      else if (outcome.kind === "ignored") countIgnored(report, outcome.reason);
      else countInvalid(report, skippedEntryOf(outcome.error, "prm800k-released-quirks.jsonl", outcome.line, outcome.record));
    }
    expect(report).toMatchObject({ records: 7, readable: 5, ignored: 1, invalid: 1 });
    expect(report.quirks[PRM800K_QUIRKS.replacedAlternative]).toBe(2);
    expect(report.quirks[PRM800K_QUIRKS.qualityControl]).toBe(2);
    expect(Object.values(report.invalidByReason)).toEqual([1]);
    expect(invalidShareError(report, "f")).toBeNull(); // 1/7 ≈ 14 % ≤ 20 %
    report.maxInvalidShare = 0.1;
    expect(invalidShareError(report, "f")?.message).toBe(
      "f: 1 of 7 records are invalid (14.3 %), more than the 10 % a skip import accepts: nothing was imported",
    );
  });

  it("reason keys group records that differ only in their specifics", () => {
    const a = new InputError('step 3 of 5 has no "+" or "-" where input has its tag: label has "x" there', { field: "label", line: 4 });
    const b = new InputError('step 1 of 2 has no "+" or "-" where input has its tag: label has "y" there', { field: "label", line: 9 });
    expect(invalidReasonKey(a)).toBe(invalidReasonKey(b));
    const c = new InputError("must be -1, 0, 1 or null", { field: "label.steps.3.completions.0.rating" });
    expect(invalidReasonKey(c)).toBe("label.steps.*.completions.*.rating: must be N, N, N or null");
  });
});
