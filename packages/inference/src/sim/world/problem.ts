import { createRng, type Rng, type Seed } from "@stepwiser/core";
import { WorldParseError } from "./errors";
import { capitalize, fnv1a32Hex } from "./text";

export type OperationKind = "add" | "subtract" | "multiply" | "divide";

export interface Operation {
  kind: OperationKind;
  /** The amount added or taken away, or the factor / divisor. */
  operand: number;
  /** Which wording of this kind the problem uses (an id from `OPERATION_PHRASINGS`). */
  phrasing: string;
}

export type Pronoun = "she" | "he";

/** How the operations are laid out in the problem text. */
export type ProblemLayout = "then-list" | "first-next-finally" | "after-that";

export const PROBLEM_LAYOUTS: readonly ProblemLayout[] = ["then-list", "first-next-finally", "after-that"];

export interface ArithProblem {
  /** `arith-` + a hash of the text, so the same text always has the same id (also when parsed back). */
  id: string;
  text: string;
  name: string;
  pronoun: Pronoun;
  /** Plural noun, e.g. "marbles". */
  item: string;
  layout: ProblemLayout;
  start: number;
  operations: readonly Operation[];
  /** values[0] = start, values[i + 1] = the running value after operation i; all integers ≥ 1. */
  values: readonly number[];
  answer: number;
}

export const OPERATION_SYMBOLS = { add: "+", subtract: "-", multiply: "×", divide: "÷" } as const satisfies Record<OperationKind, string>;
export type OperationSymbol = (typeof OPERATION_SYMBOLS)[OperationKind];

/** The exact result of an operation, or null when a division does not come out even. */
export function applyOperation(kind: OperationKind, value: number, operand: number): number | null {
  switch (kind) {
    case "add":
      return value + operand;
    case "subtract":
      return value - operand;
    case "multiply":
      return value * operand;
    case "divide":
      return value % operand === 0 ? value / operand : null;
  }
}

interface Phrasing {
  id: string;
  kind: OperationKind;
  /** Fixed-operand wordings ("doubles") exist only for that operand. */
  fixedOperand?: number;
  minOperand: number;
  render(operand: number, pronoun: Pronoun): string;
}

/** Every wording of every operation, as a verb phrase after the subject ("She buys 5 more"). */
export const OPERATION_PHRASINGS: readonly Phrasing[] = [
  { id: "buys", kind: "add", minOperand: 1, render: (n) => `buys ${n} more` },
  { id: "finds", kind: "add", minOperand: 1, render: (n) => `finds ${n} more` },
  { id: "gets-from-friend", kind: "add", minOperand: 1, render: (n) => `gets ${n} more from a friend` },
  { id: "wins", kind: "add", minOperand: 1, render: (n) => `wins ${n} more` },
  { id: "gives-away", kind: "subtract", minOperand: 1, render: (n) => `gives away ${n}` },
  { id: "loses", kind: "subtract", minOperand: 1, render: (n) => `loses ${n}` },
  { id: "sells", kind: "subtract", minOperand: 1, render: (n) => `sells ${n}` },
  { id: "trades-away", kind: "subtract", minOperand: 1, render: (n) => `trades away ${n}` },
  { id: "doubles", kind: "multiply", fixedOperand: 2, minOperand: 2, render: (_n, p) => `doubles what ${p} has` },
  { id: "triples", kind: "multiply", fixedOperand: 3, minOperand: 3, render: (_n, p) => `triples what ${p} has` },
  { id: "times-as-many", kind: "multiply", minOperand: 2, render: (n) => `ends up with ${n} times as many` },
  { id: "multiplies-by", kind: "multiply", minOperand: 2, render: (n, p) => `multiplies what ${p} has by ${n}` },
  { id: "gives-away-half", kind: "divide", fixedOperand: 2, minOperand: 2, render: (_n, p) => `gives away half of what ${p} has` },
  { id: "splits-keeps-one", kind: "divide", minOperand: 2, render: (n, p) => `splits what ${p} has into ${n} equal groups and keeps one group` },
];

const PHRASING_BY_ID = new Map(OPERATION_PHRASINGS.map((phrasing) => [phrasing.id, phrasing]));

function phrasingsFor(kind: OperationKind, operand: number): Phrasing[] {
  return OPERATION_PHRASINGS.filter(
    (phrasing) => phrasing.kind === kind && operand >= phrasing.minOperand && (phrasing.fixedOperand === undefined || phrasing.fixedOperand === operand),
  );
}

/** The verb phrase of an operation, e.g. "buys 5 more" or "doubles what she has". */
export function operationClause(operation: Operation, pronoun: Pronoun): string {
  const phrasing = PHRASING_BY_ID.get(operation.phrasing);
  if (!phrasing || phrasing.kind !== operation.kind) throw new RangeError(`unknown phrasing "${operation.phrasing}" for ${operation.kind}`);
  return phrasing.render(operation.operand, pronoun);
}

const NAMES: Readonly<Record<Pronoun, readonly string[]>> = {
  she: ["Mia", "Emma", "Sofia", "Ava", "Lily", "Nora", "Zoe", "Chloe", "Amara", "Priya"],
  he: ["Liam", "Noah", "Leo", "Omar", "Ben", "Sam", "Ravi", "Jack", "Mateo", "Kofi"],
};
const ITEMS: readonly string[] = ["marbles", "stickers", "apples", "coins", "cards", "pencils", "shells", "stamps", "cookies", "beads", "books", "balloons"];

type ProblemSpec = Omit<ArithProblem, "id" | "text" | "values" | "answer">;

function renderProblemText(spec: ProblemSpec): string {
  const { name, pronoun: p, item, start, operations } = spec;
  const clauses = operations.map((operation) => operationClause(operation, p));
  switch (spec.layout) {
    case "then-list":
      return `${name} has ${start} ${item}. ${capitalize(p)} ${clauses.join(", then ")}. How many ${item} does ${p} have now?`;
    case "first-next-finally": {
      const sentences = clauses.map((clause, i) => `${i === 0 ? "First" : i === clauses.length - 1 ? "Finally" : "Next"} ${p} ${clause}.`);
      return `${name} starts with ${start} ${item}. ${sentences.join(" ")} How many ${item} does ${name} have at the end?`;
    }
    case "after-that": {
      const sentences = clauses.map((clause, i) => (i === 0 ? `${capitalize(p)} ${clause}.` : `After that, ${p} ${clause}.`));
      return `${name} has a box of ${start} ${item}. ${sentences.join(" ")} How many ${item} are in the box now?`;
    }
  }
}

function runningValues(start: number, operations: readonly Operation[]): number[] | null {
  const values = [start];
  let value = start;
  for (const operation of operations) {
    const next = applyOperation(operation.kind, value, operation.operand);
    if (next === null || next < 1) return null;
    values.push(next);
    value = next;
  }
  return values;
}

function buildProblem(spec: ProblemSpec): ArithProblem {
  const values = runningValues(spec.start, spec.operations);
  if (!values) throw new RangeError("the operations must keep the running value a positive integer");
  const text = renderProblemText(spec);
  return { id: `arith-${fnv1a32Hex(text)}`, text, ...spec, operations: spec.operations.map((op) => ({ ...op })), values, answer: values[values.length - 1]! };
}

export const DEFAULT_STEP_RANGE: readonly [number, number] = [3, 6];
export const MAX_STEPS = 10;
/** Running values stay small, like a grade-school problem. */
export const MAX_RUNNING_VALUE = 120;
const MAX_START = 20;
const MAX_ADDEND = 12;

export interface GenerateProblemOptions {
  seed: Seed;
  /** An exact number of operations, or an inclusive range; default 3–6. */
  steps?: number | readonly [number, number];
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[rng.nextInt(items.length)]!;
}

function stepRange(steps: GenerateProblemOptions["steps"]): [number, number] {
  const [min, max] = typeof steps === "number" ? [steps, steps] : (steps ?? DEFAULT_STEP_RANGE);
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min || max > MAX_STEPS) {
    throw new RangeError(`steps must be integers with 1 ≤ min ≤ max ≤ ${MAX_STEPS}, got ${JSON.stringify(steps)}`);
  }
  return [min, max];
}

/** Every (kind, operand) that keeps the running value a small positive integer. */
function feasibleOperations(value: number): Array<{ kind: OperationKind; operands: number[] }> {
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const options: Array<{ kind: OperationKind; operands: number[] }> = [
    { kind: "add", operands: range(1, Math.min(MAX_ADDEND, MAX_RUNNING_VALUE - value)) },
    { kind: "subtract", operands: range(1, Math.min(MAX_ADDEND, value - 1)) },
    { kind: "multiply", operands: range(2, 4).filter((k) => value * k <= Math.min(MAX_RUNNING_VALUE, 60)) },
    { kind: "divide", operands: range(2, 5).filter((k) => value % k === 0 && value / k >= 2) },
  ];
  return options.filter((option) => option.operands.length > 0);
}

/**
 * A random problem, the same for the same seed: a start quantity and k
 * operations whose results are all positive integers ≤ MAX_RUNNING_VALUE
 * (division only when exact).
 */
export function generateProblem(options: Seed | GenerateProblemOptions): ArithProblem {
  const { seed, steps } = typeof options === "object" ? options : { seed: options, steps: undefined };
  const [minSteps, maxSteps] = stepRange(steps);
  const rng = createRng(`arith-problem|${typeof seed}|${seed}`);
  const count = minSteps + rng.nextInt(maxSteps - minSteps + 1);
  const pronoun: Pronoun = rng.nextInt(2) === 0 ? "she" : "he";
  const name = pick(rng, NAMES[pronoun]);
  const item = pick(rng, ITEMS);
  const layouts = count >= 2 ? PROBLEM_LAYOUTS : PROBLEM_LAYOUTS.filter((layout) => layout !== "first-next-finally");
  const layout = pick(rng, layouts);
  const start = 2 + rng.nextInt(MAX_START - 1);
  const operations: Operation[] = [];
  let value = start;
  for (let i = 0; i < count; i++) {
    const option = pick(rng, feasibleOperations(value));
    const operand = pick(rng, option.operands);
    const phrasing = pick(rng, phrasingsFor(option.kind, operand)).id;
    operations.push({ kind: option.kind, operand, phrasing });
    value = applyOperation(option.kind, value, operand)!;
  }
  return buildProblem({ name, pronoun, item, layout, start, operations });
}

const HEADERS: ReadonlyArray<{ layout: ProblemLayout; pattern: RegExp }> = [
  { layout: "after-that", pattern: /^([A-Z][a-z]+) has a box of (\d+) ([a-z]+)\. / },
  { layout: "first-next-finally", pattern: /^([A-Z][a-z]+) starts with (\d+) ([a-z]+)\. / },
  { layout: "then-list", pattern: /^([A-Z][a-z]+) has (\d+) ([a-z]+)\. / },
];

function parseClause(clause: string, pronoun: Pronoun): Operation | null {
  const number = /\d+/.exec(clause);
  for (const phrasing of OPERATION_PHRASINGS) {
    const operand = phrasing.fixedOperand ?? (number ? Number(number[0]) : undefined);
    if (operand === undefined || operand < phrasing.minOperand) continue;
    if (phrasing.render(operand, pronoun) === clause) return { kind: phrasing.kind, operand, phrasing: phrasing.id };
  }
  return null;
}

function splitClauses(layout: ProblemLayout, body: string): { pronoun: Pronoun; clauses: string[] } | null {
  const subject = /^(She|He) /.exec(body);
  switch (layout) {
    case "then-list": {
      if (!subject || !body.endsWith(".")) return null;
      return { pronoun: subject[1]!.toLowerCase() as Pronoun, clauses: body.slice(subject[0].length, -1).split(", then ") };
    }
    case "first-next-finally": {
      const first = /^First (she|he) /.exec(body);
      if (!first) return null;
      const pronoun = first[1] as Pronoun;
      const sentences = body.split(/(?<=\.) /);
      const clauses: string[] = [];
      for (const [i, sentence] of sentences.entries()) {
        const lead = i === 0 ? "First" : i === sentences.length - 1 ? "Finally" : "Next";
        const prefix = `${lead} ${pronoun} `;
        if (!sentence.startsWith(prefix) || !sentence.endsWith(".")) return null;
        clauses.push(sentence.slice(prefix.length, -1));
      }
      return { pronoun, clauses };
    }
    case "after-that": {
      if (!subject) return null;
      const pronoun = subject[1]!.toLowerCase() as Pronoun;
      const sentences = body.split(/(?<=\.) (?=After that, )/);
      const clauses: string[] = [];
      for (const [i, sentence] of sentences.entries()) {
        const prefix = i === 0 ? `${subject[1]} ` : `After that, ${pronoun} `;
        if (!sentence.startsWith(prefix) || !sentence.endsWith(".")) return null;
        clauses.push(sentence.slice(prefix.length, -1));
      }
      return { pronoun, clauses };
    }
  }
}

/** The problem written in `text`, or null when the text is not exactly one this world writes. */
export function tryParseProblem(text: string): ArithProblem | null {
  for (const { layout, pattern } of HEADERS) {
    const header = pattern.exec(text);
    if (!header) continue;
    const [, name, startText, item] = header as unknown as [string, string, string, string];
    const questionAt = text.lastIndexOf(" How many ");
    if (questionAt < header[0].length) return null;
    const split = splitClauses(layout, text.slice(header[0].length, questionAt));
    if (!split) return null;
    const operations: Operation[] = [];
    for (const clause of split.clauses) {
      const operation = parseClause(clause, split.pronoun);
      if (!operation) return null;
      operations.push(operation);
    }
    const spec: ProblemSpec = { name, pronoun: split.pronoun, item, layout, start: Number(startText), operations };
    if (!runningValues(spec.start, operations)) return null;
    // Rendering back and comparing makes the parse exact: any other wording is rejected.
    if (renderProblemText(spec) !== text) return null;
    return buildProblem(spec);
  }
  return null;
}

/** The problem written in `text`; throws `WorldParseError` when the text is not one this world writes. */
export function parseProblem(text: string): ArithProblem {
  const problem = tryParseProblem(text);
  if (!problem) throw new WorldParseError(`not an arithmetic-world problem: ${JSON.stringify(text.slice(0, 120))}`);
  return problem;
}

/**
 * A problem at the start of `text`, followed by anything (a raw completion
 * prompt holds the problem and then the partial solution). Problems end at
 * their only question mark.
 */
export function parseProblemAtStart(text: string): { problem: ArithProblem; rest: string } | null {
  const end = text.indexOf("?");
  if (end === -1) return null;
  const problem = tryParseProblem(text.slice(0, end + 1));
  return problem ? { problem, rest: text.slice(end + 1) } : null;
}
