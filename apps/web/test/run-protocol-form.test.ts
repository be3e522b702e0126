import { LAUNCHABLE_RUN_KINDS, runConfigJsonSchema } from "@stepwiser/api";
import { JUDGE_PROTOCOL_IDS } from "@stepwiser/core";
import { UNIT_RUN_KINDS } from "@stepwiser/jobs";
import { describe, expect, it } from "vitest";
import {
  endpointProtocolWarning,
  initialProtocolValues,
  protocolChoices,
  protocolConfig,
  protocolOptionFields,
  protocolOptions,
  sandboxBounds,
  visibleFields,
} from "../src/app/(app)/runs/new/protocol-form";
import { configFromValues, formFields, type RunConfigSchema } from "../src/app/(app)/runs/new/schema-form";
import { checkedProtocols, endpointProtocolChoices, protocolLabels } from "../src/lib/judge-protocols";

const schemaOf = (kind: (typeof LAUNCHABLE_RUN_KINDS)[number]) => runConfigJsonSchema(kind) as RunConfigSchema;

describe("judge protocol in the launch form", () => {
  it("offers each kind the protocols it can run, labelled with their versioned id", () => {
    // A judge run stores a verdict per chunk: neither the critic's one index nor an outcome model's one score is that.
    expect(protocolChoices("judge")).toEqual(["stepwiser-chunk", "thinkprm", "genprm", "discriminative-prm"]);
    expect(protocolChoices("benchmark")).toEqual(["stepwiser-chunk", "processbench-critic", "thinkprm", "genprm", "discriminative-prm"]);
    expect(protocolChoices("best_of_n")).toEqual(["stepwiser-chunk", "thinkprm", "genprm", "discriminative-prm", "outcome-pointwise", "outcome-pairwise"]);
    expect(protocolChoices("chunk_reset")).toEqual(["stepwiser-chunk", "thinkprm", "genprm", "discriminative-prm"]);
    expect(protocolChoices("annotate")).toEqual([]);
    expect(protocolOptions("chunk_reset")[1]).toEqual(["thinkprm", "ThinkPRM (thinkprm@v2)"]);
  });

  it("hides the generic protocol fields, and the critic's template unless the critic is chosen", () => {
    const fields = formFields(schemaOf("benchmark"));
    const names = (protocol: string) => visibleFields("benchmark", fields, protocol).map((f) => f.name);
    expect(names("thinkprm")).not.toContain("protocol");
    expect(names("thinkprm")).not.toContain("protocolOptions");
    expect(names("thinkprm")).not.toContain("criticPromptTemplateId");
    expect(names("processbench-critic")).toContain("criticPromptTemplateId");
    const annotate = formFields(schemaOf("annotate"));
    expect(visibleFields("annotate", annotate, "")).toEqual(annotate);
  });

  it("asks each protocol for its own options only", () => {
    expect(protocolOptionFields("discriminative-prm", { executeCode: false })).toEqual(["threshold", "prmVariant"]);
    expect(protocolOptionFields("genprm", { executeCode: false })).toEqual(["executeCode"]);
    expect(protocolOptionFields("genprm", { executeCode: true })).toEqual(["executeCode", "timeLimitMs", "cpuSeconds", "memoryMb"]);
    expect(protocolOptionFields("thinkprm", { executeCode: true })).toEqual([]);
  });

  it("submits the chosen protocol with the options it reads, and the server accepts them as given", () => {
    const schema = schemaOf("judge");
    const initial = initialProtocolValues(schema);
    expect(initial).toEqual({ threshold: "0.5", prmVariant: "qwen2.5-math-prm", executeCode: false, timeLimitMs: "5000", cpuSeconds: "5", memoryMb: "512" });
    expect(sandboxBounds(schema, "memoryMb")).toEqual({ min: 32, max: 8192, initial: "512" });

    const prm = protocolConfig("judge", "discriminative-prm", { ...initial, threshold: "0.7", prmVariant: "math-shepherd" });
    expect(prm).toEqual({ protocol: "discriminative-prm", protocolOptions: { threshold: 0.7, prmVariant: "math-shepherd" } });
    const genprmOff = protocolConfig("chunk_reset", "genprm", initial);
    expect(genprmOff).toEqual({ protocol: "genprm", protocolOptions: { executeCode: false } });
    const genprmOn = protocolConfig("benchmark", "genprm", { ...initial, executeCode: true, timeLimitMs: "2000" });
    expect(genprmOn).toEqual({ protocol: "genprm", protocolOptions: { executeCode: true, sandbox: { timeLimitMs: 2000, cpuSeconds: 5, memoryMb: 512 } } });
    expect(protocolConfig("annotate", "", initial)).toEqual({});

    const names = { datasetId: "ds1", policyEndpoint: "p", judgeEndpoint: "j" };
    for (const [kind, body] of [["judge", prm], ["chunk_reset", genprmOff], ["benchmark", genprmOn], ["best_of_n", protocolConfig("best_of_n", "outcome-pairwise", initial)]] as const) {
      const fields = visibleFields(kind, formFields(schemaOf(kind)), body.protocol!);
      const values = Object.fromEntries(fields.filter((f) => f.name in names).map((f) => [f.name, names[f.name as keyof typeof names]]));
      const parsed = UNIT_RUN_KINDS.get(kind)!.submitSchema.safeParse({ ...configFromValues(fields, values), ...body });
      expect(parsed.success, `${kind}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(parsed.data).toMatchObject({ protocol: body.protocol, protocolOptions: body.protocolOptions });
    }
  });

  it("names the field it cannot read, and refuses a protocol the kind does not offer", () => {
    const initial = initialProtocolValues(schemaOf("judge"));
    expect(() => protocolConfig("judge", "discriminative-prm", { ...initial, threshold: "1.5" })).toThrow(/^protocolOptions.threshold: "1.5" is not a probability/);
    expect(() => protocolConfig("judge", "genprm", { ...initial, executeCode: true, memoryMb: "lots" })).toThrow(/^protocolOptions.memoryMb: "lots" is not a number/);
    expect(() => protocolConfig("judge", "genprm", { ...initial, executeCode: true, cpuSeconds: "1.5" })).toThrow(/^protocolOptions.cpuSeconds: 1.5 is not a whole number/);
    expect(() => protocolConfig("chunk_reset", "outcome-pointwise", initial)).toThrow(/^protocol: "outcome-pointwise" is not a protocol a chunk-reset run can use/);
  });

  it("warns when the chosen judge endpoint does not declare the protocol", () => {
    const endpoint = { name: "sim-judge-strong", protocols: ["stepwiser-chunk", "processbench-critic"] };
    expect(endpointProtocolWarning(endpoint, "stepwiser-chunk")).toBeNull();
    expect(endpointProtocolWarning(undefined, "thinkprm")).toBeNull();
    expect(endpointProtocolWarning(endpoint, "thinkprm")).toBe(
      'The endpoint "sim-judge-strong" does not declare ThinkPRM (thinkprm); it speaks: StepWiser chunk judge, ProcessBench critic. ThinkPRM needs chat completions with logprobs (top_logprobs). Pick another endpoint or protocol, or declare it on the endpoint (Endpoints page) if its server supports it.',
    );
    expect(endpointProtocolWarning({ name: "prm", protocols: ["discriminative-prm"] }, "genprm")).toContain("it speaks: Discriminative PRM.");
  });
});

describe("judge protocols on the endpoint form", () => {
  it("lists every protocol with what its server needs, and reads the checked ones in registry order", () => {
    const choices = endpointProtocolChoices();
    expect(choices.map((c) => c.id)).toEqual([...JUDGE_PROTOCOL_IDS]);
    expect(choices.find((c) => c.id === "discriminative-prm")).toEqual({ id: "discriminative-prm", label: "Discriminative PRM", needs: "vLLM pooling runner (--runner pooling, POST /pooling)" });
    expect(choices.find((c) => c.id === "stepwiser-chunk")?.needs).toBe("chat completions");
    expect(checkedProtocols(["outcome-pairwise", "thinkprm", "nonsense"])).toEqual(["thinkprm", "outcome-pairwise"]);
    expect(protocolLabels(["genprm", "retired-protocol"])).toEqual(["GenPRM", "retired-protocol"]);
  });
});
