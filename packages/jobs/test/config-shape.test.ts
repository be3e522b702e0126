import { InputError } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { annotateKind } from "../src/kinds/annotate/kind";
import { knownFieldsAt, validateRunConfig } from "../src/kit/config-shape";

const schema = z
  .object({
    datasetId: z.string(),
    rollouts: z.number().int().default(8),
    sampling: z.object({ temperature: z.number(), topP: z.number().optional() }).optional(),
    rules: z.array(z.discriminatedUnion("rule", [z.object({ rule: z.literal("a") }), z.object({ rule: z.literal("b"), gamma: z.number() })])).default([]),
  })
  .transform((config) => config);

function refusal(raw: unknown): InputError {
  try {
    validateRunConfig("toy", schema, raw, "toy.json");
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("the config was accepted");
}

describe("knownFieldsAt", () => {
  it("reads an object's fields through transforms, defaults, optionals, arrays and unions", () => {
    expect(knownFieldsAt(schema, [])).toEqual(["datasetId", "rollouts", "sampling", "rules"]);
    expect(knownFieldsAt(schema, ["sampling"])).toEqual(["temperature", "topP"]);
    expect(knownFieldsAt(schema, ["rules", "0"])).toEqual(["rule", "gamma"]);
    expect(knownFieldsAt(schema, ["datasetId"])).toEqual([]);
    expect(knownFieldsAt(schema, ["nothing", "here"])).toEqual([]);
  });

  it("knows the annotate run configuration's fields", () => {
    expect(knownFieldsAt(annotateKind.submitSchema, [])).toEqual(expect.arrayContaining(["datasetId", "policyEndpoint", "rollouts", "labelRules"]));
  });
});

describe("validateRunConfig: an unknown field", () => {
  it("names the file, the field's path and the nearest known field of its object", () => {
    expect(refusal({ datasetId: "d", rolouts: 4 }).message).toBe('toy.json, field "rolouts": unknown field (not part of the toy run configuration); did you mean "rollouts"?');
    expect(refusal({ datasetId: "d", sampling: { temperature: 1, top_p: 0.9 } }).message).toBe(
      'toy.json, field "sampling.top_p": unknown field (not part of the toy run configuration); did you mean "topP"?',
    );
    expect(refusal({ datasetId: "d", rules: [{ rule: "b", gamma: 1, gama: 2 }] }).location.field).toBe("rules.0.gama");
    expect(refusal({ datasetId: "d", rules: [{ rule: "b", gamma: 1, gama: 2 }] }).reason).toMatch(/did you mean "gamma"\?$/);
  });

  it("suggests nothing when no known field is near", () => {
    expect(refusal({ datasetId: "d", colour: "blue" }).reason).toBe("unknown field (not part of the toy run configuration)");
  });
});
