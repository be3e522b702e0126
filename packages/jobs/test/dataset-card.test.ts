import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { cardFeatures, cardLicense, datasetCardHeader, launchPlan, sizeCategory, type DatasetCardInput } from "../src";

describe("dataset card", () => {
  it("size categories are the Hub's buckets of the row count", () => {
    expect([0, 999, 1000, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 5e9, 2e12].map(sizeCategory)).toEqual([
      "n<1K",
      "n<1K",
      "1K<n<10K",
      "1K<n<10K",
      "10K<n<100K",
      "10K<n<100K",
      "100K<n<1M",
      "100K<n<1M",
      "1M<n<10M",
      "1B<n<10B",
      "n>1T",
    ]);
  });

  it("the license is a Hub id only when every source records the same known one", () => {
    expect(cardLicense(["MIT", "mit"]).license).toBe("mit");
    expect(cardLicense(["apache-2.0"]).license).toBe("apache-2.0");
    expect(cardLicense([null, " "]).license).toBe("unknown");
    expect(cardLicense(["generated"])).toMatchObject({ license: "other", note: expect.stringContaining("generated") });
    expect(cardLicense(["mit", "apache-2.0"]).license).toBe("other");
  });

  it("the header is strict YAML: strings survive quoting, lists of structs and structs nest as the Hub writes them", () => {
    const input: DatasetCardInput = {
      title: 'A "quoted" title: with # and |',
      format: "verl",
      taskCategory: "text-generation",
      license: "mit",
      licenseNote: "",
      rowUnit: "",
      features: cardFeatures("verl"),
      splits: [
        { name: "train", fileName: "train.parquet", rows: 1200, positive: 600, negative: 600, problems: 10 },
        { name: "test", fileName: "test.parquet", rows: 0, positive: 0, negative: 0, problems: 0 },
      ],
      otherFiles: [],
      provenance: { run: { id: "r", name: "n", kind: "annotate", seed: 1, details: [] }, datasets: [], labelRuleKey: "k", params: "{}", promptTemplate: null, seed: 0, seeds: {}, heldOutFraction: 0, filters: [], procedure: [] },
      launch: launchPlan({ format: "verl", trainRows: 1200, testRows: 0, maxResponseTokens: 3096 }),
    };
    const text = datasetCardHeader(input);
    expect(text.startsWith("---\n") && text.endsWith("---\n")).toBe(true);
    const header = YAML.parse(text.slice(4, -4), { strict: true, uniqueKeys: true }) as Record<string, unknown>;
    expect(header.pretty_name).toBe('A "quoted" title: with # and |');
    expect(header.size_categories).toEqual(["1K<n<10K"]);
    expect(header.configs).toEqual([{ config_name: "default", data_files: [{ split: "train", path: "train.parquet" }] }]);
    const features = (header.dataset_info as { features: unknown[] }).features;
    expect(features[1]).toEqual({ name: "prompt", list: [{ name: "role", dtype: "string" }, { name: "content", dtype: "string" }] });
    expect(features[3]).toEqual({ name: "reward_model", struct: [{ name: "style", dtype: "string" }, { name: "ground_truth", dtype: "string" }] });
    expect((features[4] as { struct: Array<{ name: string; dtype: string }> }).struct.find((f) => f.name === "chunk_index")).toEqual({ name: "chunk_index", dtype: "int32" });
    expect((cardFeatures("trl")[2]![1] as { struct: Array<[string, { dtype: string }]> }).struct.find(([name]) => name === "chunk_index")![1]).toEqual({ dtype: "int64" });
    expect(cardFeatures("trl-prm").slice(0, 3)).toEqual([
      ["prompt", { dtype: "string" }],
      ["completions", { list: { dtype: "string" } }],
      ["labels", { list: { dtype: "bool" } }],
    ]);
  });
});
