import { LAUNCHABLE_RUN_KINDS, runConfigJsonSchema } from "@stepwiser/api";
import { annotateConfigSchema, UNIT_RUN_KINDS } from "@stepwiser/jobs";
import { describe, expect, it } from "vitest";
import {
  allowedProtocols,
  effectiveProtocol,
  errorsPerField,
  estimateRows,
  formatHours,
  groupFields,
  missingRequired,
  protocolMismatch,
  protocolSelectOptions,
  readTokensPerSecond,
  type PlanEstimate,
} from "../src/app/(app)/runs/new/form-shaping";
import { confidenceDraft, confidenceFromDraft, newRuleRow, rowsFromRules, rulesFromRows } from "../src/app/(app)/runs/new/label-editors";
import { visibleFields } from "../src/app/(app)/runs/new/protocol-form";
import { formFields, readConfig, type RunConfigSchema } from "../src/app/(app)/runs/new/schema-form";

type Kind = (typeof LAUNCHABLE_RUN_KINDS)[number];
const fieldsOf = (kind: Kind) => formFields(runConfigJsonSchema(kind) as RunConfigSchema, UNIT_RUN_KINDS.get(kind)!.formHints);

describe("launch form fields", () => {
  it("labels every field of every launchable kind from its hint, never from its key, with one line of help", () => {
    for (const kind of LAUNCHABLE_RUN_KINDS) {
      for (const field of fieldsOf(kind)) {
        const hint = UNIT_RUN_KINDS.get(kind)!.formHints[field.name];
        expect(hint, `${kind}.${field.name} has no hint`).toBeDefined();
        expect(field.label).toBe(hint!.label);
        // No camelCase key shown as a label ("ProcessBench" is a name, not a key).
        expect(field.label.split(/\s+/).filter((word) => /^[a-z]+[A-Z]/.test(word)), `${kind}.${field.name}`).toEqual([]);
        expect(field.help).toBeTruthy();
      }
    }
  });

  it("folds what a first run does not need under Advanced, per kind, from the hints' flag", () => {
    const names = (kind: Kind) => {
      const { basic, advanced } = groupFields(visibleFields(kind, fieldsOf(kind), "stepwiser-chunk"));
      return { basic: basic.map((f) => f.name), advanced: advanced.map((f) => f.name) };
    };
    const annotate = names("annotate");
    expect(annotate.basic).toEqual(expect.arrayContaining(["datasetId", "policyEndpoint", "rollouts", "strategy", "labelRules"]));
    expect(annotate.advanced).toEqual(expect.arrayContaining(["seed", "concurrency", "maxTokens", "promptTemplateId", "tokenBudget", "labelConfidence"]));
    const judge = names("judge");
    expect(judge.basic).toEqual(expect.arrayContaining(["datasetId", "judgeEndpoint", "samples"]));
    expect(judge.advanced).toEqual(expect.arrayContaining(["seed", "concurrency", "maxTokens", "judgePromptTemplateId"]));
    // Every kind shows something first and folds its seed, when it has one.
    for (const kind of LAUNCHABLE_RUN_KINDS) {
      const { basic, advanced } = names(kind);
      expect(basic.length, kind).toBeGreaterThan(0);
      if ([...basic, ...advanced].includes("seed")) expect(advanced, kind).toContain("seed");
      expect(basic, kind).not.toContain("concurrency");
    }
  });

  it("reads every field and collects a problem per unreadable one instead of stopping at the first", () => {
    const fields = fieldsOf("annotate");
    const { problems } = readConfig(fields, { rollouts: "four", limit: "2.5", labelRules: [{ ...newRuleRow("rel-effective"), alpha: "", n: "x" }] });
    expect(problems).toEqual([
      { field: "datasetId", message: "is required" },
      { field: "limit", message: "2.5 is not a whole number" },
      { field: "policyEndpoint", message: "is required" },
      { field: "rollouts", message: '"four" is not a number' },
      { field: "labelRules.0.alpha", message: "is required" },
      { field: "labelRules.0.n", message: '"x" is not a number' },
    ]);
    expect(missingRequired(problems, fields)).toEqual(["Dataset", "Policy endpoint"]);
  });

  it("leaves untouched rule and confidence editors out, so the run's absQEvidence still applies to the default rules", () => {
    const fields = fieldsOf("annotate");
    const untouched = readConfig(fields, { datasetId: "d", policyEndpoint: "p", absQEvidence: "later-prefixes" });
    expect(untouched.config).not.toHaveProperty("labelRules");
    expect(untouched.config).not.toHaveProperty("labelConfidence");
    expect(annotateConfigSchema.parse(untouched.config).labelRules[0]).toEqual({ rule: "abs-q", evidence: "later-prefixes" });
    const edited = readConfig(fields, { datasetId: "d", policyEndpoint: "p", labelRules: [newRuleRow("abs-q")] });
    expect(edited.config.labelRules).toEqual([{ rule: "abs-q", evidence: "own-prefix" }]);
  });
});

describe("label rule and confidence editors", () => {
  it("round-trips the default rules and keeps only each rule's own parameters", () => {
    const defaults = annotateConfigSchema.parse({ datasetId: "d", policyEndpoint: "p" }).labelRules;
    const rows = rowsFromRules(defaults);
    expect(rows.map((r) => r.rule)).toEqual(["abs-q", "rel-ratio", "rel-effective"]);
    expect(rulesFromRows(rows)).toEqual({ rules: defaults, problems: [] });
    // A row switched to another rule and back keeps what it had; only the rule's own parameters are written.
    const switched = { ...rows[1]!, rule: "abs-q" as const, evidence: "later-prefixes" as const };
    expect(rulesFromRows([switched]).rules).toEqual([{ rule: "abs-q", evidence: "later-prefixes" }]);
    expect(rulesFromRows([]).problems).toEqual([{ field: "labelRules", message: "needs at least one rule" }]);
  });

  it("writes the mixture parameters only with the mixture prior, each problem at its own path", () => {
    const draft = confidenceDraft({ prior: "jeffreys", absQEpsilon: 0.01 });
    expect(confidenceFromDraft(draft)).toEqual({ options: { prior: "jeffreys", absQEpsilon: 0.01 }, problems: [] });
    const mixture = confidenceFromDraft({ ...draft, prior: "mixture", zero: "0.2", one: "0.1", a: "2", b: "" });
    expect(mixture.options).toEqual({ prior: "mixture", absQEpsilon: 0.01, mixture: { zero: 0.2, one: 0.1, a: 2, b: undefined } });
    expect(mixture.problems).toEqual([{ field: "labelConfidence.mixture.b", message: "is required" }]);
  });
});

describe("judge protocol choices", () => {
  const thinkprm = { name: "sim-thinkprm", protocols: ["thinkprm"] };
  const strong = { name: "sim-judge-strong", protocols: ["stepwiser-chunk", "processbench-critic"] };

  it("narrows the protocols to what the judge endpoint declares, defaulting to the first allowed", () => {
    expect(allowedProtocols("judge", undefined)).toEqual(["stepwiser-chunk", "thinkprm", "genprm", "discriminative-prm"]);
    expect(allowedProtocols("judge", thinkprm)).toEqual(["thinkprm"]);
    expect(allowedProtocols("benchmark", strong)).toEqual(["stepwiser-chunk", "processbench-critic"]);
    expect(effectiveProtocol("judge", undefined, thinkprm)).toBe("thinkprm");
    expect(effectiveProtocol("judge", undefined, undefined)).toBe("stepwiser-chunk");
    expect(effectiveProtocol("judge", "genprm", thinkprm)).toBe("genprm");
  });

  it("keeps a chosen protocol the endpoint does not declare, marked, with one problem at the protocol field", () => {
    expect(protocolSelectOptions("judge", "thinkprm", strong)).toEqual([
      ["stepwiser-chunk", "StepWiser chunk judge (stepwiser-chunk@v1)"],
      ["thinkprm", "ThinkPRM (thinkprm@v2) — not declared by sim-judge-strong"],
    ]);
    const mismatch = protocolMismatch(strong, "thinkprm");
    expect(mismatch?.field).toBe("protocol");
    expect(mismatch?.message).toMatch(/^The endpoint "sim-judge-strong" does not declare ThinkPRM \(thinkprm\)/);
    expect(protocolMismatch(thinkprm, "thinkprm")).toBeNull();
    expect(protocolMismatch(undefined, "thinkprm")).toBeNull();
  });
});

describe("one error per field", () => {
  const anchors = ["samples", "protocol", "judgeEndpoint", "labelRules", "labelRules.0.gamma"];

  it("shows the first problem at each anchor and drops the rest there", () => {
    const shown = errorsPerField(
      [
        { field: "protocol", message: "the endpoint does not declare it" },
        { field: "protocol", message: "the endpoint does not declare it (server)" },
        { field: "samples", message: "Too small: expected number to be >=1" },
      ],
      anchors,
    );
    expect([...shown.byField]).toEqual([
      ["protocol", "the endpoint does not declare it"],
      ["samples", "Too small: expected number to be >=1"],
    ]);
    expect(shown.general).toEqual([]);
  });

  it("puts a nested field under its nearest control, and what no control shows in the general list once", () => {
    const shown = errorsPerField(
      [
        { field: "labelRules.0.gamma", message: "is required" },
        { field: "labelRules.2.alpha", message: "Too small" },
        { field: "bootstrap.resamples", message: "Too small" },
        { field: "bootstrap.resamples", message: "Too small" },
        { field: "", message: "offline execution supports annotate and judge runs, not segment" },
      ],
      anchors,
    );
    expect(shown.byField.get("labelRules.0.gamma")).toBe("is required");
    expect(shown.byField.get("labelRules")).toBe("2.alpha: Too small");
    expect(shown.general).toEqual(["bootstrap.resamples: Too small", "offline execution supports annotate and judge runs, not segment"]);
  });
});

describe("plan estimate panel", () => {
  const plan: Extract<PlanEstimate, { available: true }> = {
    available: true,
    kind: "judge",
    model: "judge-simple",
    endpoint: { name: "j", role: "judge", promptPricePerMTokens: 1, completionPricePerMTokens: 2 },
    solutions: 12,
    chunks: 60,
    requests: 180,
    rollouts: null,
    promptTokens: 123_456.4,
    generatedTokens: 557_280,
    upperBound: true,
    throughput: { measured: null, tokensPerSecond: null, source: null },
    hours: null,
    storage: { totalBytes: 2_500_000, totalGB: 0.0025 },
    costUsd: 1.24,
    costNote: null,
    assumptions: ["requests: chunks × samples"],
  };
  const values = (p: typeof plan) => Object.fromEntries(estimateRows(p).map((r) => [r.key, r.value]));

  it("prints counts, an upper bound as one, storage in bytes and GB, and the cost", () => {
    expect(values(plan)).toEqual({
      solutions: "12",
      chunks: "60",
      requests: "≤ 180",
      promptTokens: "≤ 123,456",
      generatedTokens: "≤ 557,280",
      hours: "no measured throughput: type a tokens/s figure",
      storage: "≤ 2.5 MB (0.0025 GB)",
      cost: "≤ $1.24",
    });
  });

  it("shows hours at a typed rate, rollouts where the planner counts them, and why there is no cost", () => {
    const annotate = { ...plan, model: "annotate-planner" as const, upperBound: false, rollouts: 2_880, hours: 0.5, throughput: { measured: null, tokensPerSecond: 2000, source: "typed" as const }, costUsd: null, costNote: 'endpoint "p" has no prompt and completion prices' };
    expect(values(annotate)).toMatchObject({ requests: "180", rollouts: "2,880", hours: "30 min at 2,000 tokens/s (typed)", cost: '— (endpoint "p" has no prompt and completion prices)' });
    // Without a typed figure: the endpoint's rate measured over its latest finished runs, said so.
    const measured = { ...annotate, throughput: { measured: { tokensPerSecond: 2000, runIds: ["r1", "r2", "r3"] }, tokensPerSecond: 2000, source: "measured" as const } };
    expect(values(measured).hours).toBe("30 min at 2,000 tokens/s (measured: its latest 3 finished runs, wall time)");
    expect([formatHours(12.34), formatHours(0.001), formatHours(250)]).toEqual(["12 h", "4 s", "250 h"]);
    expect([readTokensPerSecond(" 1500 "), readTokensPerSecond(""), readTokensPerSecond("-3"), readTokensPerSecond("fast")]).toEqual([1500, undefined, undefined, undefined]);
  });
});
