import { describe, expect, it } from "vitest";
import { annotateConfigSchema, defaultRunName, describeRun, readRun, readRunConfig, runName, tryReadRunConfig, UnreadableRunConfigError } from "../src/index";

const at = new Date("2026-03-04T05:06:07Z");
const policy = { name: "policy", model: "Qwen2.5-7B", baseUrls: ["http://a"], maxConcurrency: 8 };
const judge = { name: "judge", model: "stepwiser-judge-7b", baseUrls: ["http://b"], maxConcurrency: 8 };

describe("readRunConfig", () => {
  it("fills each kind's defaults: an annotate snapshot without rollouts ran with M = 16, fixed, the paper's three rules", () => {
    const config = readRunConfig({ id: "r1", kind: "annotate", config: { datasetId: "d", policyEndpoint: "policy" } });
    expect(config.rollouts).toBe(16);
    expect(config.strategy).toBe("fixed");
    expect(config.temperature).toBe(1);
    expect(config.labelRules.map((r) => r.rule)).toEqual(["abs-q", "rel-ratio", "rel-effective"]);
    // Abs-Q entries take the config's evidence, as the run itself read them.
    expect(config.labelRules[0]).toMatchObject({ rule: "abs-q", evidence: "own-prefix" });
  });

  it("reads judge, benchmark, generate, segment, chunk-reset and best-of-N snapshots with their own defaults", () => {
    expect(readRunConfig({ id: "j", kind: "judge", config: { datasetId: "d", judgeEndpoint: "judge" } })).toMatchObject({ samples: 1, tiePolicy: "Negative", stopAtFirstNegative: false, segmentationMethod: "self-segmented" });
    expect(readRunConfig({ id: "b", kind: "benchmark", config: { datasetId: "d", judgeEndpoint: "judge" } })).toMatchObject({ samples: 1, protocol: "stepwiser-chunk", stopAtFirstNegative: true, segmentationMethod: "processbench-paragraphs" });
    expect(readRunConfig({ id: "g", kind: "generate", config: { datasetId: "d", policyEndpoint: "p" } })).toMatchObject({ samplesPerProblem: 16, filterMixed: true });
    expect(readRunConfig({ id: "s", kind: "segment", config: { datasetId: "d", method: "blank-line" } })).toMatchObject({ method: "blank-line", temperature: 0 });
    // Runs stored before judgeTemperature existed used 1 for votes and 0 for a single verdict.
    expect(readRunConfig({ id: "c", kind: "chunk_reset", config: { datasetId: "d", policyEndpoint: "p", judgeEndpoint: "j", judgeSamples: 3 } }).judgeTemperature).toBe(1);
    expect(readRunConfig({ id: "n", kind: "best_of_n", config: { datasetId: "d", judgeEndpoint: "j" } }).samples).toBe(1);
  });

  it("reads a run stored before a submission check existed, which a new submission would be refused for", () => {
    const legacy = { datasetId: "d", policyEndpoint: "policy", rollouts: 8, temperature: 0 };
    expect(annotateConfigSchema.safeParse(legacy).success).toBe(false);
    expect(readRunConfig({ id: "old", kind: "annotate", config: legacy })).toMatchObject({ rollouts: 8, temperature: 0 });
  });

  it("drops fields a later version removed", () => {
    const config = readRunConfig({ id: "r", kind: "judge", config: { datasetId: "d", judgeEndpoint: "j", retiredOption: true } });
    expect(config).not.toHaveProperty("retiredOption");
  });

  it("tells the two kinds of import runs apart, and reads export specs", () => {
    const batch = readRunConfig({ id: "i1", kind: "import", config: { format: "openai-batch-output", fileName: "out.jsonl", targetRunId: "r9" } });
    expect("targetRunId" in batch && batch.targetRunId).toBe("r9");
    const file = readRunConfig({ id: "i2", kind: "import", config: { format: "processbench", fileName: "gsm8k.json", options: { format: "processbench" } } });
    expect("options" in file && file.options.duplicates).toBe("skip");
    expect(readRunConfig({ id: "e", kind: "export", config: { export: { kind: "labels", runId: "r1" } } }).export).toEqual({ kind: "labels", runId: "r1" });
  });

  it("names the run and the field when a snapshot does not read", () => {
    const broken = { id: "run-7", kind: "annotate" as const, config: { datasetId: "d", policyEndpoint: "p", rollouts: "sixteen" } };
    expect(() => readRunConfig(broken)).toThrow(UnreadableRunConfigError);
    expect(() => readRunConfig(broken)).toThrow(/field "config\.rollouts": run run-7: its stored annotate config does not read: /);
    expect(tryReadRunConfig(broken)).toBeNull();
    expect(() => readRunConfig({ id: "x", kind: "export", config: null })).toThrow(/field "config\.export"/);
  });

  it("types the config by the run's kind", () => {
    const run = readRun({ id: "r", kind: "benchmark", config: { datasetId: "d", judgeEndpoint: "j", mode: "critic" } });
    if (run.kind !== "benchmark") throw new Error("kind lost");
    expect(run.config.criticPromptTemplateId).toBe("processbench-critic@v2");
  });
});

describe("describeRun", () => {
  it("names every kind by what sets its runs apart, with the defaults it ran with", () => {
    const label = (kind: Parameters<typeof describeRun>[0]["kind"], config: unknown) => describeRun({ id: "r1", kind, name: null, createdAt: at, config });
    expect(label("annotate", { datasetId: "d", policyEndpoint: "policy", policy })).toBe("annotate · Qwen2.5-7B · M=16 · fixed · 2026-03-04 05:06 UTC");
    expect(label("annotate", { datasetId: "d", policyEndpoint: "policy", rollouts: 8, strategy: "early-stop" })).toBe("annotate · policy · M=8 · early-stop · 2026-03-04 05:06 UTC");
    expect(label("annotate", { datasetId: "d", policyEndpoint: "policy", strategy: "adaptive" })).toBe("annotate · policy · M≤32 · adaptive to 0.95 · 2026-03-04 05:06 UTC");
    expect(label("judge", { datasetId: "d", judgeEndpoint: "judge", judge, samples: 8, temperature: 1 })).toBe("judge · stepwiser-judge-7b · K=8 · 2026-03-04 05:06 UTC");
    expect(label("benchmark", { datasetId: "d", judgeEndpoint: "judge", mode: "critic" })).toBe("benchmark · judge · processbench-critic · K=1 · 2026-03-04 05:06 UTC");
    expect(label("generate", { datasetId: "d", policyEndpoint: "p", policy })).toBe("generate · Qwen2.5-7B · N=16 · 2026-03-04 05:06 UTC");
    expect(label("segment", { datasetId: "d", method: "step-markers" })).toBe("segment · step-markers · 2026-03-04 05:06 UTC");
    expect(label("chunk_reset", { datasetId: "d", policyEndpoint: "p", judgeEndpoint: "j" })).toBe("chunk-reset · p · judge j · attempts 5 · 2026-03-04 05:06 UTC");
    expect(label("best_of_n", { datasetId: "d", judgeEndpoint: "j", samples: 4, temperature: 1 })).toBe("best-of-n · j · K=4 · 2026-03-04 05:06 UTC");
    expect(label("import", { format: "processbench", fileName: "gsm8k.json", options: { format: "processbench" } })).toBe("import · processbench · gsm8k.json · 2026-03-04 05:06 UTC");
    expect(label("export", { export: { kind: "predictions", runId: "r2" } })).toBe("export · predictions · 2026-03-04 05:06 UTC");
  });

  it("still names a run whose config does not read, by its id", () => {
    expect(describeRun({ id: "run-7", kind: "judge", name: null, createdAt: at, config: { samples: 2 } })).toBe("judge · run-7 · config unreadable · 2026-03-04 05:06 UTC");
  });

  it("uses a stored name, with the minute created, and generates one without the minute", () => {
    const config = { datasetId: "d", judgeEndpoint: "judge", judge, samples: 3, temperature: 1 };
    expect(describeRun({ id: "r1", kind: "judge", name: "strong judge, prompt v2", createdAt: at, config })).toBe("strong judge, prompt v2 · 2026-03-04 05:06 UTC");
    expect(defaultRunName({ kind: "judge", config })).toBe("judge · stepwiser-judge-7b · K=3");
    expect(runName({ id: "r1", kind: "judge", name: null, config })).toBe("judge · stepwiser-judge-7b · K=3");
  });
});
