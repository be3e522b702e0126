import { buildThinkPrmDecisionMessages, buildThinkPrmMessages, createRng, parseThinkPrmVerification, thinkPrmDecisionScore } from "@stepwiser/core";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimModels, generateProblem, sampleSolutionChunks, startSimCluster, type SimCluster } from "../../src/sim";

/**
 * The official OpenAI SDK against the simulated cluster: what a user's own scripts
 * (and vLLM's clients) send, including the log-probabilities of a decision token.
 */
describe("the official OpenAI SDK against the simulated cluster", () => {
  let cluster: SimCluster;
  let client: OpenAI;
  beforeAll(async () => {
    cluster = await startSimCluster({ models: createSimModels(), replicas: 1, timeScale: 1000 });
    client = new OpenAI({ baseURL: cluster.urls[0], apiKey: "not-checked", maxRetries: 0 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("lists every protocol's simulated model", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(["sim-policy", "sim-judge-strong", "sim-thinkprm", "sim-genprm", "sim-math-prm", "sim-outcome-rm"]));
  });

  it("ThinkPRM over the SDK: a verification chain, then the decision token with its top log-probabilities", async () => {
    const problem = generateProblem(4242);
    const steps = sampleSolutionChunks(problem, { errorRate: 0.3, recoveryRate: 0 }, createRng("sdk"));
    const request = buildThinkPrmMessages({ problem: problem.text, steps });
    // vLLM's extra fields go in the body as they are; the SDK passes unknown fields through.
    const chain = await client.chat.completions.create({
      model: "sim-thinkprm",
      messages: request.messages,
      stop: request.stop.slice(0, 4),
      temperature: 0,
      seed: 7,
      // @ts-expect-error vLLM's continue_final_message is not in OpenAI's types
      continue_final_message: true,
      add_generation_prompt: false,
    });
    const verification = chain.choices[0]!.message.content!;
    const parsed = parseThinkPrmVerification(verification, steps.length);
    expect(parsed.verdicts.length).toBeGreaterThan(0);
    expect(chain.usage!.prompt_tokens).toBeGreaterThan(0);

    const decision = await client.chat.completions.create({
      model: "sim-thinkprm",
      messages: buildThinkPrmDecisionMessages(request.messages, verification),
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
      // @ts-expect-error vLLM's continue_final_message is not in OpenAI's types
      continue_final_message: true,
      add_generation_prompt: false,
    });
    const content = decision.choices[0]!.logprobs!.content!;
    expect(content).toHaveLength(1);
    const token = { token: content[0]!.token, logprob: content[0]!.logprob, top: content[0]!.top_logprobs.map((t) => ({ token: t.token, logprob: t.logprob })) };
    expect(token.top.map((t) => t.token)).toEqual(expect.arrayContaining(["yes", "no"]));
    const score = thinkPrmDecisionScore(token);
    expect(score).not.toBeNull();
    // The decision follows the chain: yes is likelier exactly when no step was called incorrect.
    expect(score! > 0.5).toBe(parsed.predictedFirstError === -1);
  });

  it("a pooling model refuses chat with an OpenAI-style error the SDK raises as a 400", async () => {
    const error = await client.chat.completions.create({ model: "sim-math-prm", messages: [{ role: "user", content: "1 + 1?" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/sim-math-prm/);
  });
});
