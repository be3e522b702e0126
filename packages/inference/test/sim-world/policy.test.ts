import { parseChunkTags } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { SimPromptError } from "../../src/sim/model";
import { createSimPolicy } from "../../src/sim/models";
import { generateProblem, parseProblem, parseWorldChunk, solutionStateAfter, truthOfSolution, type ArithProblem } from "../../src/sim/world";
import { chat, chatContinuing, generate, MIA_RIGHT, MIA_TEXT, policyPrompt, tagged } from "./helpers";

const mia = parseProblem(MIA_TEXT);
const chunksOf = (text: string) => parseChunkTags(text).map((chunk) => chunk.text);

/** A whole solution: k operation chunks, then the answer, every chunk one this world writes. */
function expectWellFormed(problem: ArithProblem, text: string): string[] {
  const chunks = chunksOf(text);
  expect(chunks).toHaveLength(problem.operations.length + 1);
  for (const chunk of chunks) expect(parseWorldChunk(chunk)).not.toBeNull();
  expect(parseWorldChunk(chunks.at(-1)!)?.kind).toBe("answer");
  expect(truthOfSolution(problem, chunks).finalAnswer).not.toBeNull();
  return chunks;
}

describe("sim-policy", () => {
  const policy = createSimPolicy({ errorRate: 0.3, recoveryRate: 0.3 });

  it("solves the self-segmenting policy prompt in chunk tags, one per line", () => {
    const greedy = generate(createSimPolicy(), chat(policyPrompt(MIA_TEXT)), 0, 0);
    expect(greedy).toBe(tagged(MIA_RIGHT));
    for (let seed = 0; seed < 100; seed++) {
      const problem = generateProblem(seed);
      expectWellFormed(problem, generate(policy, chat(policyPrompt(problem.text)), seed));
    }
  });

  it("is deterministic in (prompt, seed) and varies with the seed", () => {
    const prompt = chat(policyPrompt(MIA_TEXT));
    expect(generate(policy, prompt, 5)).toBe(generate(policy, prompt, 5));
    const texts = new Set(Array.from({ length: 50 }, (_, seed) => generate(policy, prompt, seed)));
    expect(texts.size).toBeGreaterThan(5);
  });

  it("makes no errors at temperature 0", () => {
    const sloppy = createSimPolicy({ errorRate: 0.45, recoveryRate: 0.1 });
    for (let seed = 0; seed < 100; seed++) {
      const problem = generateProblem(seed);
      const text = generate(sloppy, chat(policyPrompt(problem.text)), seed, 0);
      expect(truthOfSolution(problem, chunksOf(text)).firstErrorIndex).toBe(-1);
      expect(generate(sloppy, chat(policyPrompt(problem.text)), seed + 1, 0)).toBe(text);
    }
  });

  it("continues a prefix from the running value it wrote, right or wrong", () => {
    const exact = createSimPolicy({ errorRate: 0, recoveryRate: 0 });
    const wrong = tagged(["She buys 5 more: 12 + 5 = 18."]);
    expect(generate(exact, chatContinuing(policyPrompt(MIA_TEXT), wrong), 1)).toBe(
      "\n<chunk>She gives away 3: 18 - 3 = 15.</chunk>\n<chunk>She doubles what she has: 15 × 2 = 30.</chunk>\n<chunk>So the answer is \\boxed{30}.</chunk>",
    );
    // Greedy with q > 0.5: the recovery is the most likely next chunk.
    const recovering = createSimPolicy({ errorRate: 0, recoveryRate: 0.9 });
    expect(chunksOf(wrong + generate(recovering, chatContinuing(policyPrompt(MIA_TEXT), wrong), 1, 0))[1]).toBe(
      "Wait, let me recheck: 12 + 5 = 17, not 18. So now 17 - 3 = 14.",
    );
    for (let seed = 0; seed < 200; seed++) {
      const problem = generateProblem(seed);
      const full = chunksOf(generate(policy, chat(policyPrompt(problem.text)), seed));
      const cut = seed % full.length;
      const prefix = full.slice(0, cut);
      const continuation = generate(policy, chatContinuing(policyPrompt(problem.text), tagged(prefix)), seed + 1000);
      const chunks = expectWellFormed(problem, tagged(prefix) + continuation);
      expect(chunks.slice(0, cut)).toEqual(prefix);
      // The next chunk starts from the value the prefix wrote, unless it rechecks.
      const state = solutionStateAfter(problem, prefix);
      const next = parseWorldChunk(chunks[cut]!)!;
      if (next.kind === "step") expect(next.equation.left).toBe(state.written);
      if (next.kind === "answer") expect(next.value).toBe(state.written);
    }
  });

  it("continues raw completion prompts: policy prompt, then the partial solution", () => {
    const base = `${policyPrompt(MIA_TEXT)}\n`;
    expectWellFormed(mia, generate(policy, { kind: "completion", prompt: base }, 3));
    const afterOne = `<chunk>${MIA_RIGHT[0]}</chunk>`;
    const continuation = generate(policy, { kind: "completion", prompt: base + afterOne }, 3);
    expect(continuation.startsWith("\n<chunk>")).toBe(true);
    expectWellFormed(mia, afterOne + continuation);
    expect(generate(policy, { kind: "completion", prompt: `${base + afterOne}\n` }, 3).startsWith("<chunk>")).toBe(true);
    expect(generate(policy, { kind: "completion", prompt: base + tagged(MIA_RIGHT) }, 3)).toBe("");
  });

  it("finishes a chunk cut off mid-way as one it could have written", () => {
    const prompt = policyPrompt(MIA_TEXT);
    const partial = "<chunk>She buys 5 more: 12 + 5 = 1";
    const seen = new Set<string>();
    for (let seed = 0; seed < 100; seed++) {
      const continuation = generate(policy, chatContinuing(prompt, partial), seed);
      seen.add(chunksOf(partial + continuation)[0]!);
      expectWellFormed(mia, partial + continuation);
    }
    expect(seen).toEqual(new Set(["She buys 5 more: 12 + 5 = 17.", "She buys 5 more: 12 + 5 = 14.", "She buys 5 more: 12 + 5 = 15.", "She buys 5 more: 12 + 5 = 16.", "She buys 5 more: 12 + 5 = 18.", "She buys 5 more: 12 + 5 = 19."]));
    expect(generate(policy, chatContinuing(prompt, partial), 0, 0)).toMatch(/^7\.<\/chunk>\n<chunk>She gives away 3: 17 - 3 = 14\./);
    expect(generate(policy, chatContinuing(prompt, `${tagged(MIA_RIGHT.slice(0, 1))}\n<chu`), 0, 0)).toMatch(/^nk>She gives away 3: 17 - 3 = 14\.<\/chunk>/);
    expect(generate(policy, chatContinuing(prompt, `<chunk>${MIA_RIGHT[0]}</chu`), 0, 0)).toMatch(/^nk>\n<chunk>She gives away 3/);
    expect(() => generate(policy, chatContinuing(prompt, "<chunk>She buys 5 more: 12 + 5 = 9"), 0)).toThrow(SimPromptError);
  });

  it("refuses prompts and prefixes that are not its world's", () => {
    expect(() => generate(policy, chat("What is 2 + 2?"), 0)).toThrow(SimPromptError);
    expect(() => generate(policy, chat(policyPrompt("Natalia sold 48 clips in April and half as many in May. How many in total?")), 0)).toThrow(SimPromptError);
    expect(() => generate(policy, chatContinuing(policyPrompt(MIA_TEXT), "<chunk>First, add the marbles.</chunk>"), 0)).toThrow(SimPromptError);
    expect(() => generate(policy, chatContinuing(policyPrompt(MIA_TEXT), "Let me think."), 0)).toThrow(SimPromptError);
    const lastIsUser = { kind: "chat" as const, messages: [{ role: "user" as const, content: policyPrompt(MIA_TEXT) }], continueFinalMessage: true };
    expect(() => generate(policy, lastIsUser, 0)).toThrow(SimPromptError);
  });
});
