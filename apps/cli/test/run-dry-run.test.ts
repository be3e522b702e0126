import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimWorldDataset } from "@stepwiser/jobs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";
import { jsonOf } from "./run-cli";

/** `stepwiser run <kind> --config F --dry-run` and `--preset`: what a submission would store, without storing it. */
describe("run --dry-run and --preset", () => {
  let database: TestDatabase;
  let scratch: string;
  let datasetId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    env = { DATABASE_URL: database.url };
    await database.db.endpoint.create({ data: { name: "judge", model: "sim-judge-strong", role: "judge", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 4 } });
    await database.db.endpoint.create({ data: { name: "policy", model: "sim-policy", role: "policy", baseUrls: ["http://127.0.0.1:9/v1"], maxConcurrency: 4 } });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "dry", problems: 3, seed: 5 }));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-dry-run-"));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  async function configFile(name: string, config: unknown): Promise<string> {
    const file = path.join(scratch, name);
    await writeFile(file, JSON.stringify(config));
    return file;
  }

  it("prints {kind, config} with each protocol's defaults applied, and stores nothing", async () => {
    const runsBefore = await database.db.run.count();
    const critic = await runCliInProcess(["run", "benchmark", "--config", await configFile("critic.json", { datasetId, judgeEndpoint: "judge", protocol: "processbench-critic", segmentationMethod: "self-segmented" }), "--dry-run"], env);
    expect(critic.code, critic.stderr).toBe(0);
    const printed = jsonOf(critic) as { kind: string; config: Record<string, unknown> };
    expect(Object.keys(printed)).toEqual(["kind", "config"]);
    expect(printed.kind).toBe("benchmark");
    expect(printed.config).toMatchObject({ protocol: "processbench-critic", maxTokens: 8192, temperature: 0, samples: 1, criticPromptTemplateId: "processbench-critic@v2", judge: { name: "judge", model: "sim-judge-strong" } });
    expect(printed.config).not.toHaveProperty("topP");

    const voting = jsonOf(await runCliInProcess(["run", "benchmark", "--config", await configFile("voting.json", { datasetId, judgeEndpoint: "judge", protocol: "processbench-critic", segmentationMethod: "self-segmented", samples: 8 }), "--dry-run"], env)) as { config: object };
    expect(voting.config).toMatchObject({ samples: 8, temperature: 1, topP: 0.9, maxTokens: 8192 });

    const chunk = jsonOf(await runCliInProcess(["run", "benchmark", "--config", await configFile("chunk.json", { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented" }), "--dry-run"], env)) as { config: object };
    expect(chunk.config).toMatchObject({ protocol: "stepwiser-chunk", maxTokens: 3096, judgePromptTemplateId: "stepwiser-judge@v2" });

    const given = jsonOf(await runCliInProcess(["run", "benchmark", "--config", await configFile("given.json", { datasetId, judgeEndpoint: "judge", segmentationMethod: "self-segmented", maxTokens: 1000 }), "--dry-run"], env)) as { config: object };
    expect(given.config).toMatchObject({ maxTokens: 1000 });
    expect(await database.db.run.count()).toBe(runsBefore);
  });

  it("exits 2 with the located error, and stores nothing", async () => {
    const runsBefore = await database.db.run.count();
    const file = await configFile("empty.json", { datasetId, judgeEndpoint: "judge" }); // default method processbench-paragraphs: none here
    const refused = await runCliInProcess(["run", "benchmark", "--config", file, "--dry-run"], env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/empty\.json.*segmentationMethod/);
    expect(refused.stderr).toMatch(/segmented by "processbench-paragraphs".*segmentation methods: self-segmented \(3 solutions\)/);
    const bad = await runCliInProcess(["run", "judge", "--config", await configFile("bad.json", { datasetId, judgeEndpoint: "judge", topP: 2 }), "--dry-run"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json.*topP/);
    expect(await database.db.run.count()).toBe(runsBefore);
  });

  it("--preset writes the paper's label rules into an annotate config", async () => {
    const base = { datasetId, policyEndpoint: "policy", segmentationMethod: "self-segmented" };
    for (const [preset, gamma, alpha] of [["paper-1.5b", 0.8, 0.4], ["paper-7b", 0.7, 0.8]] as const) {
      const result = await runCliInProcess(["run", "annotate", "--config", await configFile(`${preset}.json`, base), "--preset", preset, "--dry-run"], env);
      expect(result.code, result.stderr).toBe(0);
      const { config } = jsonOf(result) as { config: { labelRules: unknown[] } };
      expect(config.labelRules).toEqual([
        { rule: "abs-q", evidence: "own-prefix" },
        { rule: "rel-ratio", gamma },
        { rule: "rel-effective", alpha, n: 4 },
      ]);
    }
    const unknown = await runCliInProcess(["run", "annotate", "--config", await configFile("u.json", base), "--preset", "paper-70b", "--dry-run"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown preset "paper-70b" \(known: paper-1\.5b, paper-7b\)/);
    const both = await runCliInProcess(["run", "annotate", "--config", await configFile("both.json", { ...base, labelRules: [{ rule: "abs-q" }] }), "--preset", "paper-7b", "--dry-run"], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/both\.json.*labelRules/);
    const judge = await runCliInProcess(["run", "judge", "--config", await configFile("j.json", { datasetId, judgeEndpoint: "judge" }), "--preset", "paper-7b", "--dry-run"], env);
    expect(judge.code).toBe(2);
    expect(judge.stderr).toMatch(/--preset sets an annotate run's label rules/);
  });
});
