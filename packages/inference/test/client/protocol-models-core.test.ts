import { execFileSync } from "node:child_process";
import {
  buildGenPrmMessages,
  buildOutcomePairwiseMessages,
  buildOutcomePointwiseMessages,
  buildPoolingInput,
  buildThinkPrmDecisionMessages,
  buildThinkPrmMessages,
  createRng,
  genPrmAnalyzeContinuation,
  genPrmCompletedText,
  genPrmContinuation,
  genPrmExecutionContinuation,
  genPrmVerifyContinuation,
  genPrmYesProbability,
  lastPythonBlock,
  parseGenPrmVerdict,
  parseOutcomeScore,
  parsePairwiseWinner,
  parseThinkPrmVerification,
  PRM_VARIANT_IDS,
  readStepProbabilities,
  THINKPRM_DECISION_REQUEST,
  thinkPrmDecisionScore,
} from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient } from "../../src/client";
import { createSimModels, generateProblem, sampleSolutionChunks, startSimCluster, truthOfSolution, type SimCluster } from "../../src/sim";

/** The protocol models read the requests core's builders write, and core's parsers read their answers. */
describe("protocol models with core's protocol builders and parsers", () => {
  let cluster: SimCluster;
  let pool: EndpointPool;
  let client: InferenceClient;
  const problem = generateProblem(4242);
  const steps = sampleSolutionChunks(problem, { errorRate: 0.3, recoveryRate: 0.2 }, createRng("core|4242"));
  const truth = truthOfSolution(problem, steps);

  beforeAll(async () => {
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 500 });
    pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 16 })));
    client = new InferenceClient(pool);
  });
  afterAll(async () => {
    await pool?.close();
    await cluster?.stop();
  });

  it("thinkprm: a verification core reads step by step, and a decision core scores", async () => {
    let decided = 0;
    for (let seed = 0; seed < 10; seed++) {
      const request = buildThinkPrmMessages({ problem: problem.text, steps });
      const verification = await client.generate({ model: "sim-thinkprm", prompt: { kind: "chat", messages: request.messages, continueFinalMessage: true }, stop: request.stop, seed, temperature: 1 });
      const text = verification.samples[0]!.text;
      const read = parseThinkPrmVerification(text, steps.length);
      if (read.problem) continue; // an unparseable answer (configured rate 0.01)
      expect(read.verdicts.length).toBeGreaterThan(0);
      const decision = await client.generate({
        model: "sim-thinkprm",
        prompt: { kind: "chat", messages: buildThinkPrmDecisionMessages(request.messages, text), continueFinalMessage: true },
        maxTokens: THINKPRM_DECISION_REQUEST.maxTokens,
        temperature: THINKPRM_DECISION_REQUEST.temperature,
        logprobs: true,
        topLogprobs: THINKPRM_DECISION_REQUEST.topLogprobs,
      });
      const score = thinkPrmDecisionScore(decision.samples[0]!.logprobs![0]);
      expect(score).not.toBeNull();
      expect(score! > 0.5).toBe(read.predictedFirstError === -1);
      decided++;
    }
    expect(decided).toBeGreaterThanOrEqual(8);
  });

  it("genprm: request A, request B with code execution by a real Python, and core's verdict and P(Yes)", async () => {
    const outputs: string[] = [];
    for (let position = 0; position < steps.length; position++) {
      const messages = buildGenPrmMessages({ problem: problem.text, steps, position, previousOutputs: outputs });
      const a = genPrmAnalyzeContinuation(position + 1);
      const analysis = await client.generate({ model: "sim-genprm", prompt: { kind: "chat", messages: genPrmContinuation(messages, a), continueFinalMessage: true }, stop: a.stop, seed: position, temperature: 0.6 });
      let b = genPrmVerifyContinuation(position + 1, analysis.samples[0]!.text, { execute: true });
      let result = await client.generate({ model: "sim-genprm", prompt: { kind: "chat", messages: genPrmContinuation(messages, b), continueFinalMessage: true }, stop: b.stop, seed: position, temperature: 0.6, logprobs: true, topLogprobs: 20 });
      expect(result.samples[0]!.stopReason).toBe("\n```\n");
      const generated = result.samples[0]!.text + "\n```\n";
      const code = lastPythonBlock(b.prefix + generated)!;
      b = genPrmExecutionContinuation(b, generated, execFileSync("python3", ["-c", code], { encoding: "utf8" }));
      result = await client.generate({ model: "sim-genprm", prompt: { kind: "chat", messages: genPrmContinuation(messages, b), continueFinalMessage: true }, stop: b.stop, seed: position, temperature: 0.6, logprobs: true, topLogprobs: 20 });
      const output = genPrmCompletedText(b, result.samples[0]!.text, result.samples[0]!.stopReason as string | null);
      const verdict = parseGenPrmVerdict(output);
      if (verdict !== "unparseable") {
        const pYes = genPrmYesProbability(result.samples[0]!.logprobs!, verdict);
        expect(pYes! > 0.5).toBe(verdict === "Positive");
      }
      outputs.push(output.slice(output.indexOf("<analyze>")));
    }
    expect(outputs).toHaveLength(steps.length);
  });

  it("discriminative-prm: both variants' pooling bodies give one score per step", async () => {
    for (const variant of PRM_VARIANT_IDS) {
      const body = buildPoolingInput(variant, { problem: problem.text, steps });
      const result = await client.pool({ model: "sim-math-prm", ...body });
      const read = readStepProbabilities(variant, result.body, steps.length);
      expect("scores" in read && read.scores).toHaveLength(steps.length);
    }
  });

  it("outcome: core reads the pointwise score and the pairwise winner", async () => {
    const pointwise = await client.generate({ model: "sim-outcome-rm", prompt: { kind: "chat", messages: buildOutcomePointwiseMessages({ problem: problem.text, steps }).messages }, seed: 1, temperature: 0 });
    const score = parseOutcomeScore(pointwise.samples[0]!.text);
    expect(score).not.toBeNull();
    const other = sampleSolutionChunks(problem, { errorRate: truth.finalAnswerCorrect ? 1 : 0, recoveryRate: 0 }, createRng("core|other"));
    const pairwise = await client.generate({
      model: "sim-outcome-rm",
      prompt: { kind: "chat", messages: buildOutcomePairwiseMessages({ question: problem.text, answer1: steps.join("\n\n"), answer2: other.join("\n\n") }).messages },
      seed: 1,
      temperature: 0,
    });
    expect([1, 2]).toContain(parsePairwiseWinner(pairwise.samples[0]!.text));
  });
});
