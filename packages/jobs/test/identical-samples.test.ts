import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { benchmarkConfigSchema } from "../src/kinds/benchmark/config";
import { bestOfNConfigSchema } from "../src/kinds/best-of-n/kind";
import { chunkResetConfigSchema } from "../src/kinds/chunk-reset/kind";
import { generateConfigSchema } from "../src/kinds/generate/config";
import { judgeConfigSchema } from "../src/kinds/judge/kind";

const judged = { datasetId: "d", judgeEndpoint: "j" };

function issues(schema: z.ZodType, config: object) {
  const parsed = schema.safeParse(config);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
}

describe("K > 1 samples at temperature 0 are refused by every run kind", () => {
  const kinds = [
    { kind: "benchmark", schema: benchmarkConfigSchema, base: judged, samples: "samples", temperature: "temperature" },
    { kind: "judge", schema: judgeConfigSchema, base: judged, samples: "samples", temperature: "temperature" },
    { kind: "best_of_n", schema: bestOfNConfigSchema, base: judged, samples: "samples", temperature: "temperature" },
    { kind: "chunk_reset", schema: chunkResetConfigSchema, base: { ...judged, policyEndpoint: "p" }, samples: "judgeSamples", temperature: "judgeTemperature" },
    { kind: "generate", schema: generateConfigSchema, base: { datasetId: "d", policyEndpoint: "p", filterMixed: false }, samples: "samplesPerProblem", temperature: "temperature" },
  ] as const;

  it.each(kinds)("$kind: refused on the samples field, naming both fields", ({ schema, base, samples, temperature }) => {
    expect(issues(schema, { ...base, [samples]: 8, [temperature]: 0 })).toEqual([
      { path: samples, message: expect.stringMatching(new RegExp(`^${samples} is 8 but ${temperature} is 0: the 8 samples would be identical; set ${temperature} > 0 \\(.+\\) or ${samples} 1$`)) },
    ]);
    expect(issues(schema, { ...base, [samples]: 8, [temperature]: 1 })).toEqual([]);
    expect(issues(schema, { ...base, [samples]: 1, [temperature]: 0 })).toEqual([]);
    expect(issues(schema, base)).toEqual([]); // the defaults are valid together
  });

  it("names ProcessBench's voting temperature for judge votes", () => {
    expect(issues(benchmarkConfigSchema, { ...judged, samples: 8, temperature: 0 })[0]?.message).toBe(
      "samples is 8 but temperature is 0: the 8 samples would be identical; set temperature > 0 (ProcessBench voting: 1.0) or samples 1",
    );
  });

  it("gives K > 1 votes without a temperature the protocol's voting temperature, never 0", () => {
    expect(benchmarkConfigSchema.parse({ ...judged, samples: 8 }).temperature).toBe(1);
    expect(benchmarkConfigSchema.parse({ ...judged, samples: 8, protocol: "processbench-critic" })).toMatchObject({ temperature: 1, topP: 0.9 });
    expect(judgeConfigSchema.parse({ ...judged, samples: 4, protocol: "thinkprm" }).temperature).toBe(0.7);
    expect(judgeConfigSchema.parse({ ...judged, samples: 4, protocol: "genprm" })).toMatchObject({ temperature: 0.6, topP: 0.95 });
  });

  it("chunk-reset without a judge temperature samples StepWiser votes at 1, one verdict greedy", () => {
    const base = { ...judged, policyEndpoint: "p" };
    expect(chunkResetConfigSchema.parse(base).judgeTemperature).toBe(0);
    expect(chunkResetConfigSchema.parse({ ...base, judgeSamples: 4 }).judgeTemperature).toBe(1);
    expect(chunkResetConfigSchema.parse({ ...base, judgeSamples: 4, judgeTemperature: 0.7 }).judgeTemperature).toBe(0.7);
    expect(chunkResetConfigSchema.parse({ ...base, judgeTemperature: 0.5 }).judgeTemperature).toBe(0.5);
    // A parsed configuration (as stored in a run) parses to itself.
    const parsed = chunkResetConfigSchema.parse({ ...base, judgeSamples: 3 });
    expect(chunkResetConfigSchema.parse(parsed)).toEqual(parsed);
  });
});
