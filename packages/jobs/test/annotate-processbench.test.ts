import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { annotateKind, connectJobQueue, createRun, EndpointClients, executeRun, runImport, UNIT_RUN_KINDS, submitProcessBenchImport, type JobQueue } from "../src";

/**
 * Abs-Q on an imported ProcessBench solution whose final answer is right although
 * a step is wrong (gsm8k-264 of the shipped file: 4 paragraphs, first error at
 * paragraph 1, final_answer_correct true). A policy continuing from a prefix
 * that holds the wrong paragraph does not reach the right answer; the paper's
 * per-prefix estimator must then say Negative for those chunks, whatever the
 * solution's own ending. The witness rule (later-prefixes) would call every chunk
 * Positive because the solution itself ends right, and is refused on imported data.
 *
 * The policy is a small OpenAI-compatible HTTP server standing in for a GPU
 * model: it answers every continuation deterministically from the prefix it is
 * given (the simulated cluster's policy only continues its own arithmetic world).
 */
const [gsm8kFile] = DEMO_PROCESSBENCH_FILES as [string, string];
const ID = "gsm8k-264";

interface Record {
  id: string;
  problem: string;
  steps: string[];
  label: number;
  final_answer_correct: boolean;
}

function scriptedPolicy(wrongParagraph: string, gold: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (part: Buffer) => (body += part.toString("utf8")));
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      if (request.url?.endsWith("/models")) return response.end(JSON.stringify({ data: [{ id: "scripted-policy" }] }));
      const parsed = JSON.parse(body) as { n?: number; messages: Array<{ role: string; content: string }> };
      const prefix = parsed.messages.at(-1)!.role === "assistant" ? parsed.messages.at(-1)!.content : "";
      const answer = prefix.includes(wrongParagraph) ? "-1" : gold;
      const text = `<chunk>Putting it together, the answer is \\boxed{${answer}}.</chunk>`;
      const n = parsed.n ?? 1;
      response.end(
        JSON.stringify({
          choices: Array.from({ length: n }, (_, index) => ({ index, message: { role: "assistant", content: text }, finish_reason: "stop" })),
          usage: { prompt_tokens: 50, completion_tokens: 12 * n },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })));
}

describe("Abs-Q on imported ProcessBench data", () => {
  let database: TestDatabase;
  let queue: JobQueue;
  let policy: { server: Server; url: string };
  let endpoints: EndpointClients;
  let record: Record;
  let datasetId: string;

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    queue = await connectJobQueue(database.url);
    const records = JSON.parse(await readFile(gsm8kFile, "utf8")) as Record[];
    record = records.find((r) => r.id === ID)!;
    expect(record).toMatchObject({ label: 1, final_answer_correct: true });
    expect(record.steps).toHaveLength(4);
    const run = await submitProcessBenchImport(database.db, queue, { fileName: "gsm8k-264.json", content: Buffer.from(JSON.stringify([record])) });
    await runImport(database.db, run.id);
    const dataset = await database.db.dataset.findFirstOrThrow({ where: { importRunId: run.id } });
    datasetId = dataset.id;
    // ProcessBench ships no gold answer; this solution's own final answer is right, so it is the gold one.
    const gold = /\\boxed\{([^{}]+)\}/.exec(record.steps.at(-1)!)?.[1] ?? "";
    expect(gold).not.toBe("");
    await database.db.problem.updateMany({ where: { datasetId }, data: { referenceAnswer: gold } });
    policy = await scriptedPolicy(record.steps[record.label]!, gold);
    await database.db.endpoint.create({ data: { name: "policy", model: "scripted-policy", role: "policy", baseUrls: [policy.url], maxConcurrency: 8 } });
    endpoints = new EndpointClients();
  });
  afterAll(async () => {
    await endpoints?.close();
    await new Promise((resolve) => policy?.server.close(resolve));
    await queue?.stop({ graceful: false, wait: true });
    await database?.drop();
  });

  it("own-prefix Abs-Q is Negative on the chunks after the known first error although the final answer is right", async () => {
    const { db } = database;
    for (const strategy of ["fixed", "early-stop", "first-error"] as const) {
      const config = annotateKind.submitSchema.parse({ datasetId, policyEndpoint: "policy", segmentationMethod: "processbench-paragraphs", rollouts: 4, strategy, labelRules: [{ rule: "abs-q" }] });
      const snapshot = await annotateKind.snapshot(db, config);
      const run = await db.run.create({ data: { kind: "annotate", config: snapshot as object, datasetId } });
      await executeRun(db, run.id, UNIT_RUN_KINDS, { endpoints });
      expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("completed");
      const labels = await db.chunkLabel.findMany({ where: { runId: run.id, rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' }, orderBy: { chunk: { index: "asc" } }, select: { label: true } });
      if (strategy === "first-error") {
        // A correct final answer gives the search no failure to look for: every chunk is taken as Positive, and the solution is flagged.
        expect(labels.map((l) => l.label)).toEqual(["Positive", "Positive", "Positive", "Positive"]);
        expect((await db.solutionRunStat.findFirstOrThrow({ where: { runId: run.id } })).monotonicity).toBe("assumed");
      } else {
        // Paragraph 0 is sound; paragraphs 1 and 2 continue the error; the last is the solution's own (right) ending.
        expect(labels.map((l) => l.label)).toEqual(["Positive", "Negative", "Negative", "Positive"]);
      }
    }
  });

  it("later-prefixes on imported data is refused naming the field, and nothing is stored", async () => {
    const { db } = database;
    const runs = await db.run.count();
    const config = { datasetId, policyEndpoint: "policy", segmentationMethod: "processbench-paragraphs", absQEvidence: "later-prefixes" };
    await expect(createRun(db, { kind: "annotate", config, source: "annotate.json" })).rejects.toMatchObject({
      location: { file: "annotate.json", field: "absQEvidence" },
      message: expect.stringContaining(`solution ${ID} was not written by a generate run`),
    });
    expect(await db.run.count()).toBe(runs);
  });
});
