import type { Label } from "@stepwiser/core";
import { z } from "zod";
import { SimPromptError, type SimChatMessage, type SimGeneration, type SimSampleRequest } from "../model";
import { OPERATION_SYMBOLS, tryParseProblem } from "../world";
import { checkOf, type JudgeEvidence } from "./judge";
import type { ConfiguredSimModel } from "./kinds";
import { believeStep, confidenceOf, decisionTop, protocolModelFields } from "./protocol-beliefs";
import { continueAnswer, judgeRng } from "./prompt-text";

export const simGenPrmConfigSchema = z.strictObject({ id: z.string().trim().min(1).default("sim-genprm"), ...protocolModelFields });
export type SimGenPrmConfig = z.output<typeof simGenPrmConfigSchema>;

export const genPrmAnalyzeStart = (k: number) => `<analyze>\nLet's analyze the Paragraph ${k} step by step: `;
export const GENPRM_VERIFY_START = "<verify>\nLet's use python code to find any potential error:\n```python\n";
export const GENPRM_OUTPUT_START = "<output>\n**Judgement**: $\\boxed";

/** The GenPRM conversation read back: the problem, the steps up to the one judged (k = steps.length), and the assistant prefix. */
export function parseGenPrmConversation(messages: readonly SimChatMessage[], continuing: boolean): { problem: string; steps: string[]; partial: string | null } | null {
  const partial = continuing && messages.at(-1)?.role === "assistant" ? messages.at(-1)!.content : null;
  const users = messages.filter((m) => m.role === "user").map((m) => m.content);
  if (users.length === 0) return null;
  const [first, ...rest] = users as [string, ...string[]];
  const split = splitProblem(first);
  return { problem: split.problem, steps: [split.step, ...rest], partial };
}

/** The first user message is problem + "\n" + step 1: a world problem is found whole at the start; other text splits at its last line break. */
function splitProblem(text: string): { problem: string; step: string } {
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (tryParseProblem(text.slice(0, at).trim())) return { problem: text.slice(0, at), step: text.slice(at + 1) };
  }
  const last = text.lastIndexOf("\n");
  return last === -1 ? { problem: "", step: text } : { problem: text.slice(0, last), step: text.slice(last + 1) };
}

const PY_OPERATOR: Readonly<Record<string, string>> = { "+": "+", "-": "-", "×": "*", "÷": "/" };
const num = (n: number) => (n < 0 ? `(${n})` : String(n));
const apply = (left: number, symbol: string, right: number) =>
  symbol === "+" ? left + right : symbol === "-" ? left - right : symbol === "×" ? left * right : left / right;
const py = (value: boolean) => (value ? "True" : "False");

/** A harmless Python check of the step's arithmetic and what it prints: comparisons of numbers only. */
export function genPrmCode(evidence: JudgeEvidence): { code: string; output: string } {
  const lines: string[] = [];
  const out: string[] = [];
  if (evidence.source === "world") {
    const { truth, problem } = evidence;
    const chunk = truth.chunk;
    if (chunk.kind === "answer") {
      lines.push(`final_value = ${num(truth.trueBefore)}`, `print(final_value == ${num(chunk.value)})`);
      out.push(py(truth.trueBefore === chunk.value));
    } else {
      const e = chunk.equation;
      lines.push(`# the equation as written`, `print(${num(e.left)} ${PY_OPERATOR[e.symbol]} ${num(e.right)} == ${num(e.result)})`);
      out.push(py(apply(e.left, e.symbol, e.right) === e.result));
      const operation = problem.operations[truth.stepIndex];
      if (operation) {
        const symbol = OPERATION_SYMBOLS[operation.kind];
        lines.push(`# the step the problem states, from the right running value`, `print(${num(truth.trueBefore)} ${PY_OPERATOR[symbol]} ${num(operation.operand)} == ${num(e.result)})`);
        out.push(py(apply(truth.trueBefore, symbol, operation.operand) === e.result));
      }
    }
  } else {
    for (const equation of evidence.check.equations.slice(0, 5)) {
      for (let i = 1; i < equation.values.length; i++) {
        const [a, b] = [equation.values[i - 1]!, equation.values[i]!];
        lines.push(`print(abs(${num(a)} - ${num(b)}) < 1e-6)`);
        out.push(py(Math.abs(a - b) < 1e-6));
      }
    }
    if (lines.length === 0) {
      lines.push(`print("no calculation in this paragraph")`);
      out.push("no calculation in this paragraph");
    }
  }
  return { code: lines.join("\n"), output: out.join("\n") };
}

const STATED = /Paragraph \d+ is (correct|incorrect)\./;

/**
 * A simulated GenPRM judge. Given GenPRM's conversation (system, then per step
 * a user message and, for earlier steps, the assistant's judgement), it judges
 * the last user step with the configured accuracy against the world's truth
 * (the arithmetic check for other text): "<analyze>…</analyze>\n<verify>\n…
 * ```python\n<code>\n```\n[Code Output]…</verify>\n<output>\n**Judgement**:
 * $\boxed{Yes|No}$\n</output>\n". The code compares numbers only (so running it
 * is harmless) and the output it writes is what Python prints. It continues
 * any prefix of that answer (the analyze start; the analysis and verify start;
 * a code output appended by an executor; the analysis-only output start),
 * keeping the verdict its analysis stated. The decision token "Yes"/"No"
 * carries both words with P(Yes) near its accuracy. With probability
 * `unparseableRate` the box holds neither word.
 */
export function createSimGenPrm(input: Partial<SimGenPrmConfig> = {}): ConfiguredSimModel<"genprm", SimGenPrmConfig> {
  const config = Object.freeze(simGenPrmConfigSchema.parse(input));
  const generateDetailed = (request: SimSampleRequest): SimGeneration => {
    if (request.prompt.kind !== "chat") throw new SimPromptError(`${config.id} expects GenPRM's chat conversation`);
    const conversation = parseGenPrmConversation(request.prompt.messages, request.prompt.continueFinalMessage);
    if (!conversation) throw new SimPromptError(`${config.id} expects GenPRM's conversation (a user message per step)`);
    const { problem, steps } = conversation;
    const partial = conversation.partial ?? "";
    const k = steps.length;
    const rng = judgeRng(config.id, request);
    const belief = believeStep(config, problem, steps.slice(0, -1), steps.at(-1)!, rng);
    const stated = STATED.exec(partial);
    const said: Label = stated ? (stated[1] === "correct" ? "Positive" : "Negative") : belief.said;
    const unparseable = rng.nextFloat() < config.unparseableRate;
    const confidence = confidenceOf(config, rng);
    const word = unparseable ? "Unsure" : said === "Positive" ? "Yes" : "No";
    const pYes = said === "Positive" ? confidence : 1 - confidence;

    const analysis = `${genPrmAnalyzeStart(k)}${checkOf(belief.evidence, said).replaceAll("chunk", "paragraph")} So Paragraph ${k} is ${said === "Positive" ? "correct" : "incorrect"}.\n</analyze>\n`;
    const { code, output } = genPrmCode(belief.evidence);
    const codeAndOutput = `${code}\n\`\`\`\n[Code Output]\n\n\`\`\`\n${output}\n\`\`\`\n`;
    const commentary = `${said === "Positive" ? `The check agrees with Paragraph ${k}.` : `The check shows a problem in Paragraph ${k}.`}\n</verify>\n`;
    const judgement = `{${word}}$\n</output>\n`;
    const tail = `${commentary}${GENPRM_OUTPUT_START}${judgement}`;

    let text: string;
    if (partial.endsWith(GENPRM_OUTPUT_START)) text = judgement;
    else if (partial.lastIndexOf("[Code Output]") > partial.lastIndexOf(GENPRM_VERIFY_START) && partial.includes(GENPRM_VERIFY_START)) text = tail;
    else if (partial.endsWith(GENPRM_VERIFY_START)) text = codeAndOutput + tail;
    else text = continueAnswer(`${analysis}${GENPRM_VERIFY_START}${codeAndOutput}${tail}`, partial, config.id);

    const at = text.lastIndexOf(`{${word}}$`) + 1;
    const top = word === "Yes" ? decisionTop("Yes", "No", pYes, ["yes", "no"]) : decisionTop("No", "Yes", 1 - pYes, ["no", "yes"]);
    const decisions = unparseable ? [] : [{ at, token: word, top }];
    return { text, decisions };
  };
  return { id: config.id, kind: "genprm", config, generate: (request) => generateDetailed(request).text, generateDetailed };
}
