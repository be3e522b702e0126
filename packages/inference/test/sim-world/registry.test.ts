import { buildSelfSegmentingPolicyPrompt } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { createSimJudge, createSimModels, DEFAULT_SIM_MODELS, SimModelsConfigError } from "../../src/sim/models";
import { parseWorldChunk } from "../../src/sim/world";
import { chat, generate, MIA_TEXT } from "./helpers";

describe("createSimModels", () => {
  it("serves the default set", () => {
    const models = createSimModels();
    expect(models.map((model) => model.id)).toEqual(["sim-policy", "sim-judge-strong", "sim-judge-medium", "sim-judge-weak", "sim-judge-correlated", "sim-segmenter", "arith-checker", "sim-thinkprm", "sim-genprm", "sim-math-prm", "sim-outcome-rm"]);
    expect(models.map((model) => model.id)).toEqual(DEFAULT_SIM_MODELS.map((model) => model.id));
    expect(models.find((model) => model.id === "sim-judge-weak")?.config).toEqual({ id: "sim-judge-weak", accuracy: 0.65, positiveBias: 0.15, unparseableRate: 0.05, blindTo: [], suspiciousOf: [] });
    expect(models.find((model) => model.id === "sim-judge-strong")?.config).toEqual({ id: "sim-judge-strong", accuracy: 0.95, positiveBias: 0, unparseableRate: 0.01, blindTo: [], suspiciousOf: [] });
    expect(models.find((model) => model.id === "sim-judge-correlated")?.config).toEqual({
      id: "sim-judge-correlated",
      accuracy: 0.8,
      positiveBias: 0.05,
      unparseableRate: 0.02,
      blindTo: ["wrong-input"],
      suspiciousOf: ["recovery"],
    });
    expect(models.find((model) => model.id === "sim-policy")?.config).toEqual({ id: "sim-policy", errorRate: 0.15, recoveryRate: 0.1 });
    expect(models.find((model) => model.id === "sim-segmenter")?.config).toEqual({ id: "sim-segmenter", faultRate: 0 });
  });

  it("applies overrides per model id, removes and adds models", () => {
    const models = createSimModels({
      "sim-policy": { errorRate: 1 },
      "sim-judge-weak": { accuracy: 0.6 },
      "sim-segmenter": false,
      "judge-collapsed": { kind: "judge", positiveBias: 1 },
    });
    expect(models.map((model) => model.id)).toEqual(["sim-policy", "sim-judge-strong", "sim-judge-medium", "sim-judge-weak", "sim-judge-correlated", "arith-checker", "sim-thinkprm", "sim-genprm", "sim-math-prm", "sim-outcome-rm", "judge-collapsed"]);
    expect(models.find((model) => model.id === "sim-judge-weak")?.config).toMatchObject({ accuracy: 0.6, positiveBias: 0.15 });
    expect(models.find((model) => model.id === "judge-collapsed")?.config).toMatchObject({ positiveBias: 1, accuracy: 0.8 });
    const policy = models[0]!;
    const first = /<chunk>(.*?)<\/chunk>/.exec(generate(policy, chat(buildSelfSegmentingPolicyPrompt({ problem: MIA_TEXT }).text), 4))![1]!;
    const chunk = parseWorldChunk(first);
    expect(chunk?.kind === "step" && chunk.equation.result !== 17).toBe(true);
  });

  it("rejects bad configs with the model named", () => {
    expect(() => createSimModels({ "sim-policy": { errorRate: 2 } })).toThrow(SimModelsConfigError);
    expect(() => createSimModels({ "sim-policy": { errorRat: 0.2 } })).toThrow(/sim-policy/);
    expect(() => createSimModels({ "my-model": { errorRate: 0.2 } })).toThrow(/kind/);
    expect(() => createSimModels({ "sim-policy": { kind: "judge" } })).toThrow(SimModelsConfigError);
    expect(() => createSimModels({ "sim-policy": { id: "other" } })).toThrow(SimModelsConfigError);
    // A judge's systematic kinds: only the kinds it knows, each once, each in its own list.
    expect(() => createSimModels({ "sim-judge-medium": { blindTo: ["wrong-inputs"] } })).toThrow(/sim-judge-medium.*blindTo/s);
    expect(() => createSimModels({ "sim-judge-medium": { blindTo: "wrong-input" } })).toThrow(SimModelsConfigError);
    expect(() => createSimModels({ "sim-judge-medium": { suspiciousOf: ["wrong-input"] } })).toThrow(/suspiciousOf/);
    expect(() => createSimModels({ "sim-judge-medium": { blindTo: ["recovery"] } })).toThrow(/blindTo/);
    expect(() => createSimModels({ "sim-judge-medium": { suspiciousOf: ["recovery", "recovery"] } })).toThrow(/twice/);
    expect(() => createSimModels({ "sim-judge-medium": { suspicousOf: ["recovery"] } })).toThrow(SimModelsConfigError);
  });

  it("a judge preset id starts from the preset", () => {
    expect(createSimJudge({ id: "sim-judge-strong", unparseableRate: 0 }).config).toEqual({ id: "sim-judge-strong", accuracy: 0.95, positiveBias: 0, unparseableRate: 0, blindTo: [], suspiciousOf: [] });
    // Settings replace the preset's, lists included.
    expect(createSimJudge({ id: "sim-judge-correlated", suspiciousOf: ["division"] }).config).toMatchObject({ accuracy: 0.8, blindTo: ["wrong-input"], suspiciousOf: ["division"] });
    const custom = createSimModels({ "judge-no-division": { kind: "judge", suspiciousOf: ["division"] } }).find((model) => model.id === "judge-no-division");
    expect(custom?.config).toMatchObject({ accuracy: 0.8, blindTo: [], suspiciousOf: ["division"] });
    expect(createSimJudge().id).toBe("sim-judge-medium");
  });
});
