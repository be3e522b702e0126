import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { createSimModels, startSimCluster, type SimCluster } from "@stepwiser/inference/sim";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAndExecuteRun, createSimWorldDataset, EndpointClients } from "../src";

/**
 * The pipelines against servers answering in vLLM's and in SGLang's dialect.
 * SGLang gives every parallel sample of a seeded request the request's seed and
 * names stops in `matched_stop`; the endpoints are left on "auto", so the client
 * reads who the server is and sends K requests with seeds s + i there. The runs
 * then store the same samples on both servers (the samples vLLM gives): K
 * rollouts of a prefix (and K votes of a chunk) differ where the model's
 * sampling lets them, and a run repeated gives the same rows.
 */
const DIALECTS = ["vllm", "sglang"] as const;
type Dialect = (typeof DIALECTS)[number];

describe("annotate, judge with GenPRM code execution and benchmark on vLLM and SGLang", () => {
  let database: TestDatabase;
  const clusters = new Map<Dialect, SimCluster>();
  let endpoints: EndpointClients;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    endpoints = new EndpointClients();
    for (const dialect of DIALECTS) {
      const cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000, dialect });
      clusters.set(dialect, cluster);
      const baseUrls = [...cluster.urls];
      await database.db.endpoint.createMany({
        data: [
          { name: `policy-${dialect}`, model: "sim-policy", role: "policy", baseUrls, maxConcurrency: 32 },
          { name: `judge-${dialect}`, model: "sim-judge-strong", role: "judge", baseUrls, maxConcurrency: 32 },
          { name: `genprm-${dialect}`, model: "sim-genprm", role: "judge", baseUrls, maxConcurrency: 32, protocols: ["genprm"] },
        ],
      });
    }
    // What the client must not do on SGLang: one request with n samples and one seed.
    await database.db.endpoint.create({
      data: { name: "policy-sglang-as-vllm", model: "sim-policy", role: "policy", baseUrls: [...clusters.get("sglang")!.urls], maxConcurrency: 32, serverKind: "vllm" },
    });
    ({ datasetId } = await createSimWorldDataset(database.db, { name: "dialects", problems: 4, seed: 61, errorRate: 0.4 }));
  });
  afterAll(async () => {
    await endpoints?.close();
    for (const cluster of clusters.values()) await cluster.stop();
    await database?.drop();
  });

  async function run(kind: "annotate" | "judge" | "benchmark", config: Record<string, unknown>) {
    const created = await createAndExecuteRun(database.db, { kind, config: { datasetId, ...config } }, { endpoints });
    const done = await database.db.run.findUniqueOrThrow({ where: { id: created.id } });
    expect({ status: done.status, error: done.error }).toEqual({ status: "completed", error: null });
    return done;
  }

  const rollouts = (runId: string) =>
    database.db.rollout.findMany({
      where: { runId },
      orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }, { sampleIndex: "asc" }],
      select: { segmentationId: true, prefixLength: true, sampleIndex: true, seed: true, text: true, correct: true },
    });
  const chunkValues = (runId: string) =>
    database.db.chunkValue.findMany({ where: { runId }, orderBy: [{ segmentationId: "asc" }, { prefixLength: "asc" }], select: { segmentationId: true, prefixLength: true, qValue: true } });
  const judgeSamples = (runId: string) =>
    database.db.judgeSample.findMany({ where: { runId }, orderBy: [{ chunkId: "asc" }, { sampleIndex: "asc" }], select: { chunkId: true, sampleIndex: true, verdict: true, rationale: true } });

  /** Share of groups (rollouts of one prefix, votes on one chunk) whose K texts are not all one text. */
  function shareVaried<T>(rows: T[], groupOf: (row: T) => string, textOf: (row: T) => string | null): number {
    const groups = new Map<string, Set<string | null>>();
    for (const row of rows) {
      const texts = groups.get(groupOf(row)) ?? new Set();
      texts.add(textOf(row));
      groups.set(groupOf(row), texts);
    }
    return [...groups.values()].filter((texts) => texts.size > 1).length / groups.size;
  }

  it("annotate: K rollouts of a prefix differ on both servers, the Q-values are the same, and a repeated run gives the same rollouts", async () => {
    const config = { rollouts: 4, strategy: "fixed", seed: 5 };
    const byDialect = new Map<Dialect, Awaited<ReturnType<typeof rollouts>>>();
    for (const dialect of DIALECTS) {
      const done = await run("annotate", { ...config, policyEndpoint: `policy-${dialect}` });
      const rows = await rollouts(done.id);
      expect(rows.length).toBeGreaterThan(20);
      // The simulated policy ends some prefixes (a last step, the answer) the same way under any seed; most it continues differently.
      expect(shareVaried(rows, (r) => `${r.segmentationId}/${r.prefixLength}`, (r) => r.text)).toBeGreaterThan(0.4);
      byDialect.set(dialect, rows);
    }
    const strip = (rows: Awaited<ReturnType<typeof rollouts>>) => rows.map(({ segmentationId: _, ...row }) => row);
    expect(strip(byDialect.get("sglang")!)).toEqual(strip(byDialect.get("vllm")!));

    const again = await run("annotate", { ...config, policyEndpoint: "policy-sglang" });
    expect(strip(await rollouts(again.id))).toEqual(strip(byDialect.get("sglang")!));
    expect((await chunkValues(again.id)).map((v) => v.qValue)).toEqual(
      (await chunkValues((await database.db.run.findFirstOrThrow({ where: { kind: "annotate" }, orderBy: { createdAt: "asc" } })).id)).map((v) => v.qValue),
    );

    // Sent as one request with n samples and one seed, SGLang's rollouts of a prefix are one text: every Q-value is 0 or 1.
    const collapsed = await run("annotate", { ...config, policyEndpoint: "policy-sglang-as-vllm" });
    expect(shareVaried(await rollouts(collapsed.id), (r) => `${r.segmentationId}/${r.prefixLength}`, (r) => r.text)).toBe(0);
    expect((await chunkValues(collapsed.id)).every((v) => v.qValue === 0 || v.qValue === 1)).toBe(true);
  });

  it("judge with GenPRM code execution: the code rounds run on both servers (SGLang's matched_stop) and store the same judgements", async () => {
    const byDialect = new Map<Dialect, Awaited<ReturnType<typeof judgeSamples>>>();
    for (const dialect of DIALECTS) {
      const done = await run("judge", { judgeEndpoint: `genprm-${dialect}`, protocol: "genprm", protocolOptions: { executeCode: true }, samples: 2, temperature: 1, seed: 4 });
      const samples = await judgeSamples(done.id);
      expect(samples.length).toBeGreaterThan(8);
      expect(samples.some((s) => s.rationale.includes("[Code Output]\n\n```\n"))).toBe(true);
      byDialect.set(dialect, samples);
    }
    expect(byDialect.get("sglang")).toEqual(byDialect.get("vllm"));
  });

  it("benchmark: K votes per chunk differ on both servers and the scores are the same", async () => {
    const summaries = new Map<Dialect, unknown>();
    for (const dialect of DIALECTS) {
      const done = await run("benchmark", { judgeEndpoint: `judge-${dialect}`, segmentationMethod: "self-segmented", samples: 4, temperature: 1, seed: 3, bootstrap: { resamples: 100 } });
      const votes = await judgeSamples(done.id);
      expect(votes.length).toBeGreaterThan(8);
      // The simulated judge words many rationales one way; the votes on a fifth of the chunks or more differ.
      expect(shareVaried(votes, (v) => v.chunkId, (v) => v.rationale)).toBeGreaterThan(0.15);
      summaries.set(dialect, done.summary);
    }
    expect(summaries.get("sglang")).toEqual(summaries.get("vllm"));
  });
});
