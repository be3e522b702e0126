/**
 * A generated file in Math-Shepherd's released layout (`{input, label, task}`
 * JSONL, steps tagged "ки", labels "+"/"-"), with a chosen share of records in
 * each known quirk of the release and a chosen share of broken records, for
 * tests and the import benchmark. Deterministic for a seed.
 */

const TAG = "ки";

export const GENERATED_QUIRKS = ["lowercase-marker", "no-marker", "tag-in-problem"] as const;
export const GENERATED_BREAKAGES = ["no-marker-no-question", "label-missing-mark", "not-json", "text-after-last-tag"] as const;
export type GeneratedQuirk = (typeof GENERATED_QUIRKS)[number];
export type GeneratedBreakage = (typeof GENERATED_BREAKAGES)[number];

export interface MathShepherdFileOptions {
  records: number;
  /** Share of records in one of the release's quirks (readable). */
  quirkyShare: number;
  /** Share of records that cannot be read. */
  brokenShare: number;
  stepsPerRecord?: number;
  seed?: number;
}

export interface GeneratedMathShepherdFile {
  bytes: Uint8Array;
  /** Readable records (well formed or quirky). */
  readable: number;
  /** Steps of the readable records: the chunks an import stores. */
  chunks: number;
  quirky: Record<GeneratedQuirk, number>;
  /** Each broken record: 1-based line, 0-based record index and how it is broken. */
  broken: { line: number; record: number; breakage: GeneratedBreakage }[];
}

/** mulberry32: a small seeded generator, so the chosen records are the same on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct indices out of `n`, drawn without replacement. */
function pick(n: number, count: number, random: () => number, taken: Set<number>): number[] {
  const chosen: number[] = [];
  while (chosen.length < count) {
    const i = Math.floor(random() * n);
    if (taken.has(i)) continue;
    taken.add(i);
    chosen.push(i);
  }
  return chosen;
}

function labelOf(input: string, marks: string[]): string {
  const pieces = input.split(TAG);
  let label = pieces[0]!;
  for (let i = 1; i < pieces.length; i++) label += marks[i - 1]! + pieces[i]!;
  return label;
}

export function generateMathShepherdFile(options: MathShepherdFileOptions): GeneratedMathShepherdFile {
  const { records } = options;
  const stepsPerRecord = options.stepsPerRecord ?? 3;
  const random = seeded(options.seed ?? 1);
  const taken = new Set<number>();
  const quirkyAt = new Map<number, GeneratedQuirk>();
  pick(records, Math.round(records * options.quirkyShare), random, taken).forEach((i, k) => quirkyAt.set(i, GENERATED_QUIRKS[k % GENERATED_QUIRKS.length]!));
  const brokenAt = new Map<number, GeneratedBreakage>();
  pick(records, Math.round(records * options.brokenShare), random, taken).forEach((i, k) => brokenAt.set(i, GENERATED_BREAKAGES[k % GENERATED_BREAKAGES.length]!));

  const lines: string[] = [];
  const quirky: Record<GeneratedQuirk, number> = { "lowercase-marker": 0, "no-marker": 0, "tag-in-problem": 0 };
  const broken: GeneratedMathShepherdFile["broken"] = [];
  let chunks = 0;
  for (let i = 0; i < records; i++) {
    const quirk = quirkyAt.get(i);
    const breakage = brokenAt.get(i);
    const marker = quirk === "lowercase-marker" ? "step" : "Step";
    const steps = Array.from({ length: stepsPerRecord }, (_, s) => {
      const last = s === stepsPerRecord - 1;
      const prefix = quirk === "no-marker" || breakage === "no-marker-no-question" ? "" : `${marker} ${s + 1}: `;
      return `${prefix}We add ${s + 1} to ${i + s} and get ${i + 2 * s + 1}.${last ? ` The answer is: ${i + 2 * s + 1}` : ""} ${TAG}`;
    });
    const marks = steps.map((_, s) => (s < stepsPerRecord - (i % 2) ? "+" : "-"));
    let problem = breakage === "no-marker-no-question" ? `Add the numbers from ${i} on.` : `Problem ${i}: what do we get if we add the numbers from ${i} on?`;
    if (quirk === "tag-in-problem") {
      problem = `Mr. Rocky counts from ${i}. ${TAG} ${problem}`;
      marks.unshift("+");
    }
    let input = `${problem} ${steps.join("\n")}`;
    if (breakage === "text-after-last-tag") input += " and then more";
    let label = labelOf(input, marks);
    if (breakage === "label-missing-mark") label = label.replace(/\+(?=[^+]*$)|-(?=[^-]*$)/, TAG);
    let line = JSON.stringify({ input, label, task: i % 2 === 0 ? "GSM8K" : "MATH" });
    if (breakage === "not-json") line = line.slice(0, -2);
    lines.push(line);
    if (breakage) broken.push({ line: i + 1, record: i, breakage });
    else {
      chunks += stepsPerRecord;
      if (quirk) quirky[quirk] += 1;
    }
  }
  return { bytes: new TextEncoder().encode(`${lines.join("\n")}\n`), readable: records - broken.length, chunks, quirky, broken };
}
