import { LAUNCHABLE_RUN_KINDS, runConfigJsonSchema } from "@stepwiser/api";
import { annotateConfigSchema, UNIT_RUN_KINDS } from "@stepwiser/jobs";
import { describe, expect, it } from "vitest";
import { configFromValues, formFields, type RunConfigSchema } from "../src/app/(app)/runs/new/schema-form";

type LaunchableKind = (typeof LAUNCHABLE_RUN_KINDS)[number];

/** The schema exactly as the server sends it to the form. */
function launchSchema(kind: LaunchableKind): RunConfigSchema {
  return runConfigJsonSchema(kind) as RunConfigSchema;
}

/** The form's fields as the launch form builds them: the kind's schema with its hints. */
function launchFields(kind: LaunchableKind) {
  return formFields(launchSchema(kind), UNIT_RUN_KINDS.get(kind)!.formHints);
}

describe("run launch form", () => {
  it("builds controls from the annotate schema with its defaults, and submits exactly the defaults when untouched", () => {
    const fields = launchFields("annotate");
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(byName.datasetId?.control).toEqual({ kind: "dataset" });
    expect(byName.policyEndpoint?.control).toEqual({ kind: "endpoint", role: "policy" });
    expect(byName.rollouts).toMatchObject({ initial: "16", control: { kind: "number", integer: true, min: 1, max: 256 } });
    expect(byName.strategy?.control).toEqual({ kind: "enum", options: ["fixed", "early-stop", "first-error", "adaptive"] });
    expect(byName.targetConfidence).toMatchObject({ initial: "0.95", control: { kind: "number" } });
    expect(byName.maxRollouts).toMatchObject({ initial: "32", control: { kind: "number", integer: true } });
    expect(byName.labelConfidence?.control.kind).toBe("labelConfidence");
    expect(byName.labelRules?.control.kind).toBe("labelRules");
    // References are lists, labelled by the hint; the segmentation method is the known list.
    expect(byName.confidencePriorFromRun?.control).toEqual({ kind: "run", runKind: "annotate" });
    expect(byName.datasetId?.label).toBe("Dataset");
    expect(byName.segmentationMethod?.control).toMatchObject({ kind: "enum", options: expect.arrayContaining(["self-segmented", "processbench-paragraphs"]) });
    expect(byName.solutionIds?.control.kind).toBe("lines");
    expect(byName.limit).toMatchObject({ initial: "", required: false, control: { kind: "number", min: 1, max: undefined } });
    // The policy prompt: the paper's (v2) by default, the studio's first wording on request.
    expect(byName.promptTemplateId).toMatchObject({ initial: "self-segmenting-policy@v2", control: { kind: "enum", options: ["self-segmenting-policy@v1", "self-segmenting-policy@v2"] } });

    const config = configFromValues(fields, { datasetId: "ds1", policyEndpoint: "sim-policy" });
    expect(config).not.toHaveProperty("limit");
    expect(config).not.toHaveProperty("solutionIds");
    expect(annotateConfigSchema.parse(config)).toEqual(annotateConfigSchema.parse({ datasetId: "ds1", policyEndpoint: "sim-policy" }));
  });

  it("labels a field with the kind's hint and shows its help; a field without one is named after itself", () => {
    const rollouts = launchFields("annotate").find((f) => f.name === "rollouts");
    expect(rollouts).toMatchObject({ label: "Rollouts per prefix (M)", help: UNIT_RUN_KINDS.get("annotate")!.formHints.rollouts!.help });
    expect(rollouts?.help).toMatch(/Default 16/);
    const unhinted = formFields(launchSchema("annotate")).find((f) => f.name === "maxRollouts");
    expect(unhinted?.label).toBe("Max rollouts");
    expect(unhinted).not.toHaveProperty("help");
  });

  it("reads edited values by type and names the field it cannot read", () => {
    const fields = launchFields("annotate");
    const absQ = { rule: "abs-q" as const, evidence: "own-prefix" as const, gamma: "0.7", alpha: "0.8", n: "4" };
    const config = configFromValues(fields, { datasetId: "ds1", policyEndpoint: "p", rollouts: "4", solutionIds: "t1\nt2, t3", labelRules: [absQ] });
    expect(config).toMatchObject({ rollouts: 4, solutionIds: ["t1", "t2", "t3"], labelRules: [{ rule: "abs-q", evidence: "own-prefix" }] });
    expect(() => configFromValues(fields, { datasetId: "ds1", policyEndpoint: "p", rollouts: "four" })).toThrow(/^rollouts: "four" is not a number/);
    expect(() => configFromValues(fields, { datasetId: "ds1", policyEndpoint: "p", rollouts: "2.5" })).toThrow(/^rollouts: 2.5 is not a whole number/);
    expect(() => configFromValues(fields, { datasetId: "ds1", policyEndpoint: "p", labelRules: [{ ...absQ, rule: "rel-ratio", gamma: "x" }] })).toThrow(/^labelRules\.0\.gamma: "x" is not a number/);
    expect(() => configFromValues(fields, { datasetId: "ds1" })).toThrow(/^policyEndpoint: is required/);
  });

  it("starts generate at the schema's paper defaults, and an untouched form is valid", () => {
    const fields = launchFields("generate");
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(byName.samplesPerProblem?.initial).toBe("16");
    expect(byName.maxTokens?.initial).toBe("8192");
    expect(byName.temperature?.initial).toBe("1");
    expect(byName.filterMixed).toMatchObject({ control: { kind: "boolean" }, initial: true });
    const schema = UNIT_RUN_KINDS.get("generate")!.submitSchema;
    const config = configFromValues(fields, { datasetId: "ds1", policyEndpoint: "sim-policy" });
    expect(schema.parse(config)).toEqual(schema.parse({ datasetId: "ds1", policyEndpoint: "sim-policy" }));
  });

  it("every kind's untouched form is a valid configuration; votes at temperature 0 are refused", () => {
    const names = { datasetId: "ds1", policyEndpoint: "p", judgeEndpoint: "j", method: "blank-line" };
    for (const kind of LAUNCHABLE_RUN_KINDS) {
      const fields = launchFields(kind);
      const values = Object.fromEntries(fields.filter((f) => f.name in names).map((f) => [f.name, names[f.name as keyof typeof names]]));
      const parsed = UNIT_RUN_KINDS.get(kind)!.submitSchema.safeParse(configFromValues(fields, values));
      expect(parsed.success, `${kind}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
    const judge = launchFields("judge");
    const parsed = UNIT_RUN_KINDS.get("judge")!.submitSchema.safeParse(configFromValues(judge, { datasetId: "ds1", judgeEndpoint: "j", samples: "8", temperature: "0" }));
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["samples"], message: expect.stringContaining("samples is 8 but temperature is 0") });
    // Left empty, the temperature and generation budget are the protocol's own defaults.
    expect(launchFields("judge").find((f) => f.name === "temperature")).toMatchObject({ initial: "", required: false });
    expect(UNIT_RUN_KINDS.get("judge")!.submitSchema.parse(configFromValues(judge, { datasetId: "ds1", judgeEndpoint: "j", samples: "8" }))).toMatchObject({ temperature: 1, maxTokens: 3096 });
    // Chunk-reset's judge temperature starts empty: the server picks 1 for votes, 0 for one verdict.
    expect(launchFields("chunk_reset").find((f) => f.name === "judgeTemperature")).toMatchObject({ initial: "", required: false });
  });

  it("gives booleans a checkbox with their default and every launchable kind a form", () => {
    const judge = launchFields("judge");
    expect(judge.find((f) => f.name === "stopAtFirstNegative")).toMatchObject({ control: { kind: "boolean" }, initial: false });
    expect(judge.find((f) => f.name === "judgeEndpoint")?.control).toEqual({ kind: "endpoint", role: "judge" });
    for (const kind of LAUNCHABLE_RUN_KINDS) expect(launchFields(kind).length).toBeGreaterThan(0);
  });
});
