import { describe, expect, it } from "vitest";
import { cardFeatures, OPENRLHF_PRM_KEYS, OPENRLHF_PRM_PLACEHOLDER, OPENRLHF_PRM_REWARD_TOKENS, OpenrlhfPrmSolution, openrlhfPrmInput, openrlhfPrmRow } from "../src";
import { LabelledChunk } from "../src/kinds/export/training-set/labelled-chunks";
import { holdsPlaceholder, writeOpenrlhfPrmJsonl } from "../src/kinds/export/training-set/openrlhf-prm";
import { groupSolutions } from "../src/kinds/export/training-set/trl-prm";
import { OPENRLHF_PRM_OPTIONS } from "./trainer-launch";

const PROBLEM = "What is 2 + 3 × 4?";
const CHUNKS = ["3 × 4 = 12.", "2 + 12 = 15.", "So the answer is \\boxed{15}."];

function chunk(segmentation: string, position: number, label: "Positive" | "Negative", chunks = CHUNKS, problem = PROBLEM) {
  return new LabelledChunk(label, 0.9, `${segmentation}-${position}`, position, position, segmentation, `t-${segmentation}`, `e-${segmentation}`, "p", "d", { problem, chunks });
}

const context = { split: "train" as const, runId: "run", rule: "rel-ratio", params: '{"gamma":0.7}' };

/**
 * What ProcessRewardDataset (OpenRLHF 0.9.5) does with a row, on a tokenizer that gives each line one token: it
 * keeps as many labels as the input has placeholders (`label_tensor[..., :num_placeholders]`) and fails when there
 * are more placeholders than labels (`labels[mask] = ...` with too few values).
 */
function placeholderLabels(row: { input: string; label: string[] }): string[] {
  const placeholders = row.input.split("\n").filter((token) => token === OPENRLHF_PRM_PLACEHOLDER).length;
  if (placeholders > row.label.length) throw new Error(`${placeholders} placeholders for ${row.label.length} labels`);
  return row.label.slice(0, placeholders);
}

describe("openrlhf-prm rows", () => {
  it("use train_prm's default keys and the placeholder and reward tokens of the release's example", () => {
    expect(OPENRLHF_PRM_OPTIONS.get("--input_key")?.default).toBe(`'${OPENRLHF_PRM_KEYS.input}'`);
    expect(OPENRLHF_PRM_OPTIONS.get("--label_key")?.default).toBe(`'${OPENRLHF_PRM_KEYS.label}'`);
    expect(OPENRLHF_PRM_PLACEHOLDER).toBe("ки");
    expect([...OPENRLHF_PRM_REWARD_TOKENS]).toEqual(["+", "-"]);
    expect(cardFeatures("openrlhf-prm").map(([name]) => name)).toEqual(["input", "label", "extra_info"]);
    expect(cardFeatures("openrlhf-prm")[1]).toEqual(["label", { list: { dtype: "string" } }]);
  });

  it("input: the problem, then each chunk followed by the placeholder on its own line; one placeholder per label", () => {
    expect(openrlhfPrmInput(PROBLEM, CHUNKS)).toBe(`${PROBLEM}\n${CHUNKS[0]}\nки\n${CHUNKS[1]}\nки\n${CHUNKS[2]}\nки`);
    const solution = new OpenrlhfPrmSolution([chunk("s1", 0, "Positive"), chunk("s1", 1, "Negative"), chunk("s1", 2, "Positive")]);
    const row = openrlhfPrmRow(solution, 3, context);
    expect(Object.keys(row)).toEqual(["input", "label", "extra_info"]);
    expect(row.input.split(OPENRLHF_PRM_PLACEHOLDER)).toHaveLength(row.label.length + 1);
    expect(row.label).toEqual(["+", "-", "+"]);
    expect(placeholderLabels(row)).toEqual(["+", "-", "+"]);
    expect(row.extra_info).toEqual({
      split: "train",
      index: 3,
      solution_id: "t-s1",
      external_id: "e-s1",
      segmentation_id: "s1",
      problem_id: "p",
      dataset_id: "d",
      run_id: "run",
      rule: "rel-ratio",
      params: '{"gamma":0.7}',
    });
    // The length filter measures the input itself.
    expect(solution.prompt).toBe(row.input);
  });

  it("labels come from the chunk labels, cut where a chunk has no label, as trl-prm's rows are", () => {
    const grouping = groupSolutions([chunk("s1", 0, "Positive"), chunk("s1", 1, "Negative"), chunk("s2", 0, "Negative"), chunk("s2", 2, "Positive"), chunk("s3", 1, "Positive")]);
    expect(grouping).toMatchObject({ truncated: 1, withoutFirstLabel: 1 });
    const rows = grouping.solutions.map((s, i) => openrlhfPrmRow(new OpenrlhfPrmSolution(s.steps), i, context));
    expect(rows.map((row) => row.label)).toEqual([["+", "-"], ["-"]]);
    expect(rows[1]!.input).toBe(`${PROBLEM}\n${CHUNKS[0]}\nки`);
    for (const row of rows) expect(placeholderLabels(row)).toEqual(row.label);
  });

  it("a text already holding the placeholder is recognised (the export leaves such a solution out)", () => {
    expect(holdsPlaceholder("учебники")).toBe(true);
    expect(holdsPlaceholder(PROBLEM)).toBe(false);
    const odd = new OpenrlhfPrmSolution([chunk("s9", 0, "Positive", ["Это ки."])]);
    expect(odd.completions.some(holdsPlaceholder)).toBe(true);
    // Its input would hold more placeholders than labels.
    expect(openrlhfPrmRow(odd, 0, context).input.split(OPENRLHF_PRM_PLACEHOLDER).length - 1).toBeGreaterThan(1);
  });

  it("JSON lines, one per row, UTF-8", () => {
    const solution = new OpenrlhfPrmSolution([chunk("s1", 0, "Negative")]);
    const text = new TextDecoder().decode(writeOpenrlhfPrmJsonl(2, (i) => openrlhfPrmRow(solution, i, context)));
    const lines = text.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[1]!)).toMatchObject({ label: ["-"], extra_info: { index: 1 } });
    expect(text).toContain("ки");
    expect(new TextDecoder().decode(writeOpenrlhfPrmJsonl(0, () => openrlhfPrmRow(solution, 0, context)))).toBe("");
  });
});
