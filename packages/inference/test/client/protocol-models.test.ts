import { execFileSync } from "node:child_process";
import { createRng, type TokenLogprob } from "@stepwiser/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndpointPool, InferenceClient, InferenceError, UsageMeter, type ChatMessage } from "../../src/client";
import { createSimModels, generateProblem, sampleSolutionChunks, startSimCluster, truthOfSolution, type ArithProblem, type SimCluster } from "../../src/sim";
import { tolerance } from "../sim-world/helpers";

/** The configured accuracy of every protocol model here; no unparseable answers, so the shares measure accuracy alone. */
const ACCURACY = 0.8;
const SOLUTIONS = 120;

/** World solutions with errors in about half of them. */
function worldSolutions(count: number, offset = 0): Array<{ problem: ArithProblem; steps: string[] }> {
  return Array.from({ length: count }, (_, i) => {
    const problem = generateProblem(1000 + offset + i);
    return { problem, steps: sampleSolutionChunks(problem, { errorRate: 0.25, recoveryRate: 0.2 }, createRng(`solutions|${offset + i}`)) };
  });
}

// The request formats of the protocols, written out as their sources give them.
const thinkPrmUser = (problem: string, steps: string[]) =>
  `You are given a math problem and a proposed step-by-step solution:\n\n[Math Problem]\n\n${problem}\n\n[Solution]\n\n${steps.map((s, i) => `Step ${i + 1}: ${s}`).join("\n")}\n\nReview and critique each step in the proposed solution to determine whether each step is correct. If the solution is incomplete, only verify the provided steps.`;
const GENPRM_SYSTEM = "You are a math teacher. Your task is to review and critique the paragraphs in solution step by step.";
const analyzeStart = (k: number) => `<analyze>\nLet's analyze the Paragraph ${k} step by step: `;
const VERIFY_START = "<verify>\nLet's use python code to find any potential error:\n```python\n";
const QWEN_PRM_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}.";
const pairwiseUser = (question: string, a1: string, a2: string) =>
  `## Query\n\n${question}\n\n## Assistant responses\n\n### Assistant 1\n\n${a1}\n\n\n### Assistant 2\n\n${a2}\n\n## Analysis\n\nLet's analyze this step by step and decide which assistant is better, and then answer \\boxed{Assistant 1} or \\boxed{Assistant 2}.`;
const pointwiseUser = (problem: string, solution: string) =>
  `Check the whole solution to the problem below and decide whether its final answer is correct.\n\nProblem:\n${problem}\n\nSolution:\n${solution}\n\nEnd with "Score: \\boxed{n}", n from 1 to 10 (10 = certainly correct).`;

/** P(a) from one token's alternatives, a and b matched with whitespace trimmed. */
function probabilityOf(token: TokenLogprob, a: string, b: string): number | null {
  const find = (word: string) => token.top.find((t) => t.token.trim() === word)?.logprob;
  const [la, lb] = [find(a), find(b)];
  if (la === undefined || lb === undefined) return null;
  return Math.exp(la) / (Math.exp(la) + Math.exp(lb));
}

const within = (share: number, probability: number, n: number) => Math.abs(share - probability) <= tolerance(probability, n);

describe("protocol models over HTTP through InferenceClient", () => {
  let cluster: SimCluster;
  let pool: EndpointPool;
  let client: InferenceClient;

  beforeAll(async () => {
    const settings = { accuracy: ACCURACY, unparseableRate: 0 };
    cluster = await startSimCluster({
      models: createSimModels({ "sim-thinkprm": settings, "sim-genprm": settings, "sim-outcome-rm": settings, "sim-math-prm": { accuracy: ACCURACY } }),
      replicas: 1,
      timeScale: 500,
    });
    pool = new EndpointPool(cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 64 })));
    client = new InferenceClient(pool);
  });
  afterAll(async () => {
    await pool?.close();
    await cluster?.stop();
  });

  it("lists the protocol models in /v1/models", async () => {
    const body = (await (await fetch(`${cluster.urls[0]}/models`)).json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(expect.arrayContaining(["sim-thinkprm", "sim-genprm", "sim-math-prm", "sim-outcome-rm"]));
  });

  it("sim-policy: chat and completions carry each token's log-probability, deterministic for a seed", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: `Problem: ${generateProblem(5).text}` }];
    const request = { model: "sim-policy", prompt: { kind: "chat" as const, messages }, seed: 3, logprobs: true, topLogprobs: 5 };
    const result = await client.generate(request);
    const sample = result.samples[0]!;
    expect(sample.logprobs!.map((t) => t.token).join("")).toBe(sample.text);
    expect(sample.logprobs!.length).toBe(result.usage.completionTokens);
    for (const token of sample.logprobs!) {
      expect(token.top).toHaveLength(5);
      expect(token.top[0]).toEqual({ token: token.token, logprob: token.logprob });
      expect(token.logprob).toBeLessThan(0);
      expect(token.top.reduce((sum, t) => sum + Math.exp(t.logprob), 0)).toBeLessThanOrEqual(1 + 1e-9);
    }
    expect((await client.generate(request)).samples[0]!.logprobs).toEqual(sample.logprobs);
    expect((await client.generate({ ...request, logprobs: undefined })).samples[0]!.logprobs).toBeUndefined();

    const completion = await client.generate({ model: "sim-policy", prompt: { kind: "completion", prompt: `Problem: ${generateProblem(5).text}` }, seed: 3, logprobs: true, topLogprobs: 2, maxTokens: 12 });
    const tokens = completion.samples[0]!.logprobs!;
    expect(tokens).toHaveLength(12);
    expect(tokens.map((t) => t.token).join("")).toBe(completion.samples[0]!.text);
    for (const token of tokens) expect(token.top.map((t) => t.token)).toContain(token.token);
  });

  it("sim-thinkprm: verifies step by step, stops after its first incorrect step, and answers the decision with yes/no log-probabilities", async () => {
    const solutions = worldSolutions(SOLUTIONS);
    let judged = 0;
    let right = 0;
    let decisionsAgree = 0;
    await Promise.all(
      solutions.map(async ({ problem, steps }) => {
        const truth = truthOfSolution(problem, steps);
        const user: ChatMessage = { role: "user", content: thinkPrmUser(problem.text, steps) };
        const prefix = "\nLet's verify step by step:";
        const verification = await client.generate({
          model: "sim-thinkprm",
          prompt: { kind: "chat", messages: [user, { role: "assistant", content: prefix }], continueFinalMessage: true },
          stop: ["Is the solution correct?", "</think>", `Step ${steps.length + 1}:`],
          seed: 1,
          temperature: 0.7,
        });
        const text = verification.samples[0]!.text;
        expect(verification.samples[0]!.stopReason).toBe("Is the solution correct?");
        const boxes = [...text.matchAll(/\\boxed\{(correct|incorrect)\}/g)].map((m) => m[1]);
        const firstIncorrect = boxes.indexOf("incorrect");
        expect(firstIncorrect === -1 ? boxes.length : firstIncorrect + 1).toBe(boxes.length);
        if (firstIncorrect === -1) expect(boxes).toHaveLength(steps.length);
        boxes.forEach((box, i) => {
          judged++;
          if ((box === "correct") === truth.chunks[i]!.correct) right++;
        });

        const decision = await client.generate({
          model: "sim-thinkprm",
          prompt: { kind: "chat", messages: [user, { role: "assistant", content: `${prefix}${text}\nIs the solution correct? ` }], continueFinalMessage: true },
          maxTokens: 1,
          temperature: 0,
          logprobs: true,
          topLogprobs: 20,
        });
        const token = decision.samples[0]!.logprobs![0]!;
        expect(decision.samples[0]!.text).toBe(token.token);
        const pYes = probabilityOf(token, "yes", "no")!;
        expect(pYes).toBeGreaterThan(0);
        expect(pYes).toBeLessThan(1);
        expect(token.top.reduce((sum, t) => sum + Math.exp(t.logprob), 0)).toBeLessThanOrEqual(1 + 1e-9);
        if (pYes > 0.5 === (firstIncorrect === -1)) decisionsAgree++;
      }),
    );
    expect(decisionsAgree).toBe(SOLUTIONS);
    expect(within(right / judged, ACCURACY, judged)).toBe(true);
  });

  it("sim-genprm: analyzes, verifies with runnable python, and judges with a Yes/No token whose probability follows its verdict", async () => {
    const solutions = worldSolutions(60, 500);
    let judged = 0;
    let right = 0;
    let ran = 0;
    await Promise.all(
      solutions.map(async ({ problem, steps }, s) => {
        const truth = truthOfSolution(problem, steps);
        const k = 1 + (s % steps.length);
        const messages: ChatMessage[] = [{ role: "system", content: GENPRM_SYSTEM }];
        for (let i = 0; i < k; i++) {
          messages.push({ role: "user", content: i === 0 ? `${problem.text}\n${steps[0]}` : steps[i]! });
          if (i < k - 1) messages.push({ role: "assistant", content: `${analyzeStart(i + 1)}earlier judgement</analyze>\n<output>\n**Judgement**: $\\boxed{Yes}$\n</output>\n` });
        }
        const chat = (partial: string) => ({ kind: "chat" as const, messages: [...messages, { role: "assistant" as const, content: partial }], continueFinalMessage: true });
        const a = await client.generate({ model: "sim-genprm", prompt: chat(analyzeStart(k)), stop: ["</analyze>\n"], seed: 4, temperature: 0.6 });
        expect(a.samples[0]!.stopReason).toBe("</analyze>\n");
        const partial = `${analyzeStart(k)}${a.samples[0]!.text}</analyze>\n${VERIFY_START}`;
        const b = await client.generate({ model: "sim-genprm", prompt: chat(partial), stop: ["</output>\n"], seed: 5, temperature: 0.6, logprobs: true, topLogprobs: 20 });
        const output = `${partial}${b.samples[0]!.text}</output>\n`;
        const verdict = /(Yes|No)\}/i.exec(output)![1]!;
        const decision = b.samples[0]!.logprobs!.findLast((t) => t.token.trim() === verdict)!;
        const pYes = probabilityOf(decision, "Yes", "No")!;
        expect(pYes > 0.5).toBe(verdict === "Yes");
        judged++;
        if ((verdict === "Yes") === truth.chunks[k - 1]!.correct) right++;

        const code = /```python\n([\s\S]*?)\n```/.exec(output)![1]!;
        expect(code).not.toMatch(/import|open\(|exec|eval|__/);
        const written = /\[Code Output\]\n\n```\n([\s\S]*?)\n```/.exec(output)![1]!;
        if (s % 10 === 0) {
          expect(execFileSync("python3", ["-c", code], { encoding: "utf8" }).trimEnd()).toBe(written);
          ran++;
        }
      }),
    );
    expect(ran).toBe(6);
    expect(within(right / judged, ACCURACY, judged)).toBe(true);
  });

  it("sim-genprm: continues after an executor's code output and after the analysis-only output start, keeping its analysis's verdict", async () => {
    const { problem, steps } = worldSolutions(1, 900)[0]!;
    const messages: ChatMessage[] = [{ role: "system", content: GENPRM_SYSTEM }, { role: "user", content: `${problem.text}\n${steps[0]}` }];
    const chat = (partial: string) => ({ kind: "chat" as const, messages: [...messages, { role: "assistant" as const, content: partial }], continueFinalMessage: true });
    const a = await client.generate({ model: "sim-genprm", prompt: chat(analyzeStart(1)), stop: ["</analyze>\n"], seed: 1 });
    const analysis = `${analyzeStart(1)}${a.samples[0]!.text}</analyze>\n`;
    const stated = /Paragraph 1 is (correct|incorrect)\./.exec(analysis)![1] === "correct" ? "Yes" : "No";
    const code = await client.generate({ model: "sim-genprm", prompt: chat(analysis + VERIFY_START), stop: ["\n```\n", "</output>\n"], seed: 2 });
    expect(code.samples[0]!.stopReason).toBe("\n```\n");
    const executed = `${analysis}${VERIFY_START}${code.samples[0]!.text}\n\`\`\`\n[Code Output]\n\n\`\`\`\nTrue\n\`\`\`\n`;
    const rest = await client.generate({ model: "sim-genprm", prompt: chat(executed), stop: ["</output>\n"], seed: 3 });
    expect(rest.samples[0]!.text).toMatch(new RegExp(`</verify>\\n<output>\\n\\*\\*Judgement\\*\\*: \\$\\\\boxed\\{${stated}\\}\\$\\n$`));
    const fallback = await client.generate({ model: "sim-genprm", prompt: chat(`${analysis}<output>\n**Judgement**: $\\boxed`), maxTokens: 20, seed: 4, logprobs: true, topLogprobs: 5 });
    expect(fallback.samples[0]!.text).toBe(`{${stated}}$\n</output>\n`);
    expect(fallback.samples[0]!.logprobs![1]!.token).toBe(stated);
  });

  it("sim-math-prm: one probability pair per step tag, Qwen2.5-Math-PRM messages and Math-Shepherd text, deterministic", async () => {
    const solutions = worldSolutions(SOLUTIONS, 2000);
    let judged = 0;
    let right = 0;
    const meter = new UsageMeter();
    await Promise.all(
      solutions.map(async ({ problem, steps }, s) => {
        const truth = truthOfSolution(problem, steps);
        const shepherd = s % 2 === 1;
        const result = shepherd
          ? await client.pool({ model: "sim-math-prm", input: `${problem.text} ${steps.map((step, i) => `Step ${i + 1}: ${step} ки`).join("\n")}`, meter })
          : await client.pool({
              model: "sim-math-prm",
              messages: [
                { role: "system", content: QWEN_PRM_SYSTEM },
                { role: "user", content: problem.text },
                { role: "assistant", content: `${steps.join("<extra_0>")}<extra_0>` },
              ],
              meter,
            });
        const pairs = result.data as number[][];
        expect(pairs).toHaveLength(steps.length);
        expect(result.usage.promptTokens).toBeGreaterThan(0);
        pairs.forEach((pair, i) => {
          expect(pair).toHaveLength(2);
          expect(pair[0]! + pair[1]!).toBeCloseTo(1, 9);
          const positive = shepherd ? pair[0]! : pair[1]!;
          judged++;
          if (positive >= 0.5 === truth.chunks[i]!.correct) right++;
        });
      }),
    );
    expect(meter.snapshot().requests).toBe(SOLUTIONS);
    expect(within(right / judged, ACCURACY, judged)).toBe(true);
    const { problem, steps } = solutions[0]!;
    const input = `${problem.text} ${steps.map((step, i) => `Step ${i + 1}: ${step} ки`).join("\n")}`;
    expect((await client.pool({ model: "sim-math-prm", input })).data).toEqual((await client.pool({ model: "sim-math-prm", input })).data);
  });

  it("sim-outcome-rm: scores a whole solution (pointwise) and picks the better of two (pairwise) with the configured accuracy", async () => {
    const solutions = worldSolutions(SOLUTIONS, 3000);
    let pointRight = 0;
    await Promise.all(
      solutions.map(async ({ problem, steps }) => {
        const truth = truthOfSolution(problem, steps);
        const result = await client.generate({ model: "sim-outcome-rm", prompt: { kind: "chat", messages: [{ role: "user", content: pointwiseUser(problem.text, steps.join("\n")) }] }, seed: 9, temperature: 1 });
        const score = Number(/Score: \\boxed\{(\d+)\}$/.exec(result.samples[0]!.text)![1]);
        expect(score).toBeGreaterThanOrEqual(1);
        expect(score).toBeLessThanOrEqual(10);
        if (score >= 6 === truth.finalAnswerCorrect) pointRight++;
      }),
    );
    expect(within(pointRight / SOLUTIONS, ACCURACY, SOLUTIONS)).toBe(true);

    // Pairs of one right and one wrong solution to the same problem, in both orders.
    const pairs: Array<{ problem: ArithProblem; right: string; wrong: string }> = [];
    for (let seed = 0; pairs.length < SOLUTIONS && seed < 5000; seed++) {
      const problem = generateProblem(7000 + (seed >> 4));
      const steps = sampleSolutionChunks(problem, { errorRate: 0.3, recoveryRate: 0 }, createRng(`pair|${seed}`));
      const correct = truthOfSolution(problem, steps).finalAnswerCorrect;
      const partner = sampleSolutionChunks(problem, { errorRate: correct ? 1 : 0, recoveryRate: 0 }, createRng(`partner|${seed}`));
      if (truthOfSolution(problem, partner).finalAnswerCorrect === correct) continue;
      pairs.push({ problem, right: (correct ? steps : partner).join("\n"), wrong: (correct ? partner : steps).join("\n") });
    }
    let pairRight = 0;
    await Promise.all(
      pairs.map(async ({ problem, right, wrong }, i) => {
        const rightFirst = i % 2 === 0;
        const user = pairwiseUser(problem.text, rightFirst ? right : wrong, rightFirst ? wrong : right);
        const result = await client.generate({ model: "sim-outcome-rm", prompt: { kind: "chat", messages: [{ role: "user", content: user }] }, seed: i, temperature: 1 });
        const text = result.samples[0]!.text;
        const after = text.slice(text.lastIndexOf("</think>"));
        const chosen = after.includes("\\boxed{Assistant 2}") ? 2 : after.includes("\\boxed{Assistant 1}") ? 1 : null;
        expect(chosen).not.toBeNull();
        if (chosen === (rightFirst ? 1 : 2)) pairRight++;
      }),
    );
    expect(within(pairRight / pairs.length, ACCURACY, pairs.length)).toBe(true);
    const again = await client.generate({ model: "sim-outcome-rm", prompt: { kind: "chat", messages: [{ role: "user", content: pairwiseUser(pairs[0]!.problem.text, pairs[0]!.right, pairs[0]!.wrong) }] }, seed: 0, temperature: 1 });
    const first = await client.generate({ model: "sim-outcome-rm", prompt: { kind: "chat", messages: [{ role: "user", content: pairwiseUser(pairs[0]!.problem.text, pairs[0]!.right, pairs[0]!.wrong) }] }, seed: 0, temperature: 1 });
    expect(again.samples[0]!.text).toBe(first.samples[0]!.text);
  });

  it("answers a model asked for the API it does not serve, and a bad pooling body, with HTTP 400", async () => {
    const onChat = client.pool({ model: "sim-policy", input: "Step 1: 2 + 2 = 4 ки" });
    await expect(onChat).rejects.toBeInstanceOf(InferenceError);
    await expect(onChat).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/`sim-policy` is a generation model.*not POST \/pooling/) });
    await expect(client.generate({ model: "sim-math-prm", prompt: { kind: "chat", messages: [{ role: "user", content: "hi" }] } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/`sim-math-prm` is a pooling model: it serves POST \/pooling, not \/v1\/chat\/completions/),
    });
    await expect(client.pool({ model: "sim-math-prm" })).rejects.toThrow(/exactly one of messages and input/);

    const origin = cluster.replicas[0]!.origin;
    const post = (body: unknown) => fetch(`${origin}/pooling`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    for (const body of [{ model: "sim-math-prm" }, { model: "sim-math-prm", input: "x ки", messages: [{ role: "user", content: "x" }] }, { input: "x ки" }, { model: "sim-math-prm", input: 3 }]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { error: { message: string; type: string; code: number } };
      expect(error.error).toMatchObject({ type: "BadRequestError", code: 400 });
    }
    expect((await post({ model: "nope", input: "x" })).status).toBe(404);
    const get = await fetch(`${origin}/pooling`);
    expect(get.status).toBe(405);
  });

  it("answers chat completions with logprobs in OpenAI's wire shape, and refuses top_logprobs without logprobs", async () => {
    const url = `${cluster.urls[0]}/chat/completions`;
    const post = (body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const body = { model: "sim-thinkprm", messages: [{ role: "user", content: thinkPrmUser(generateProblem(1).text, ["x"]) }], max_tokens: 3, seed: 1 };
    const response = await post({ ...body, logprobs: true, top_logprobs: 2 });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { choices: Array<{ message: { content: string }; logprobs: { content: Array<Record<string, unknown>> } }> };
    const entry = json.choices[0]!.logprobs.content[0]!;
    expect(Object.keys(entry).sort()).toEqual(["bytes", "logprob", "token", "top_logprobs"]);
    expect(entry.bytes).toEqual([...Buffer.from(entry.token as string, "utf8")]);
    expect(entry.top_logprobs).toHaveLength(2);
    expect(json.choices[0]!.logprobs.content.map((t) => t.token).join("")).toBe(json.choices[0]!.message.content);
    const refused = await post({ ...body, top_logprobs: 2 });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/`logprobs` must be set to true/);
  });
});

describe("pooling through injected faults", () => {
  it("retries server errors, hangs and cut bodies like generation, and accounts every request once", async () => {
    const cluster = await startSimCluster({
      models: createSimModels(),
      replicas: 2,
      timeScale: 500,
      faults: { error5xxRate: 0.15, hangRate: 0.03, malformedRate: 0.05, dropRate: 0.05, seed: 3 },
    });
    const pool = new EndpointPool(
      cluster.urls.map((baseUrl) => ({ baseUrl, maxInFlight: 16 })),
      { timeouts: { headersMs: 500, bodyIdleMs: 500 } },
    );
    const client = new InferenceClient(pool, { retry: { maxAttempts: 12, baseDelayMs: 5, maxDelayMs: 50 } });
    try {
      const solutions = worldSolutions(200, 5000);
      const results = await Promise.all(
        solutions.map(({ problem, steps }) => client.pool({ model: "sim-math-prm", input: `${problem.text} ${steps.map((step, i) => `Step ${i + 1}: ${step} ки`).join("\n")}` })),
      );
      results.forEach((result, i) => expect(result.data).toHaveLength(solutions[i]!.steps.length));
      expect(results.some((result) => result.attempts > 1)).toBe(true);
      const usage = client.meter.snapshot();
      expect(usage.requests).toBe(200);
      expect(usage.promptTokens).toBe(results.reduce((sum, result) => sum + result.usage.promptTokens, 0));
    } finally {
      await pool.close();
      await cluster.stop();
    }
  });
});
