import { DEFAULT_LABEL_RULES, labelRuleParamsKey, qPosterior, SELF_SEGMENTING_POLICY_PROMPT, STEPWISER_JUDGE_PROMPT, storedLabelRule, truePositiveProbability, type LabelRule } from "@stepwiser/core";
import { createDb, type Db } from "../client";
import type { Prisma } from "../generated/prisma/client";

/**
 * A large, realistic-looking dataset for load tests and list benchmarks: N
 * self-segmented solutions (4 per problem, 4–16 chunks each, so 100k solutions
 * ≈ 1M chunks) with one completed annotate run (the values of every prefix as
 * the `fixed` strategy stores them, labels under the three default rules) and
 * two completed judge runs (2 samples per chunk), plus the per-solution stats
 * and run units those pipelines write. Rollout rows only on request
 * (`rolloutsPerPrefix: 16`: the annotate run's 16 rollouts of every prefix,
 * ~16 per chunk, so 100k solutions ≈ 16M rows).
 *
 * Values follow a simple model: the success rate climbs from the problem's
 * base rate towards 1 until the solution's first error, then falls by ×0.35 per
 * prefix; 16 simulated rollouts per prefix. Judges agree with the Abs-Q label
 * on ~92% (strong) and ~78% (weak) of samples.
 *
 * Every row is generated inside PostgreSQL (INSERT … SELECT over
 * generate_series, md5-based pseudo-randomness), one transaction per batch.
 * The content depends only on `seed` and the sizes; ids are fresh on every call
 * (cuid-shaped, time-ordered like Prisma's cuid()), so each call adds a new dataset.
 */
export interface LargeDatasetOptions {
  /** Solutions to create (default 100 000); problems = ⌈solutions / 4⌉. */
  solutions?: number;
  /** Chunks per solution, uniform-ish (triangular) between min and max; mean (min+max)/2. Default 4–16 (mean 10). */
  chunksPerSolution?: { min?: number; max?: number };
  /** Makes the content reproducible (default 1). */
  seed?: number;
  /** Dataset name (default "Large seed (<N> solutions, seed <seed>)"). */
  name?: string;
  /** Solutions written per transaction (default 10 000; rounded to a multiple of 4). */
  batchSize?: number;
  /** Batches written at once, each in its own transaction and connection (default 2). */
  concurrency?: number;
  /**
   * Check foreign keys row by row as PostgreSQL normally does. By default they are
   * skipped when the role may do so (a superuser, via session_replication_role =
   * replica, as pg_restore --disable-triggers does): every reference points at a
   * row this call has just written, and the checks cost about a quarter of the time.
   */
  foreignKeyChecks?: boolean;
  /**
   * Rollout rows per scored prefix: 0 (default, none) or 16, the annotate run's M.
   * They are written after the solutions, from the stored ChunkValues, so each
   * prefix has exactly `correctCount` correct rollouts of 16 (the final prefix,
   * the finished solution, has none, as the pipeline stores it).
   */
  rolloutsPerPrefix?: 0 | 16;
  /** What the rollout rows keep (the annotate run's `rolloutText`): full (default) or answer-only (text null). */
  rolloutText?: "full" | "answer-only";
  /** Rollout rows only for the first this many solutions (default: all), so a large tier fits a disk. */
  rolloutSolutions?: number;
  /** Judge samples per chunk and judge run (K): 2 (default) or 1. With 1 each chunk's verdict is its one sample. */
  judgeSamples?: 1 | 2;
  /** Called after each committed batch (`phase` "rollouts" once the solutions are all written). */
  onProgress?: (progress: { phase: "solutions" | "rollouts"; solutions: number; total: number; elapsedMs: number }) => void;
}

export interface LargeDatasetResult {
  datasetId: string;
  annotateRunId: string;
  /** [strong judge, weak judge]. */
  judgeRunIds: [string, string];
  problems: number;
  solutions: number;
  chunks: number;
  /** Rollout rows written (0 unless `rolloutsPerPrefix` was given). */
  rollouts: number;
  /** Wall time of the two phases: solutions with their values, labels, samples and stats; then rollouts. */
  timings: { solutionsMs: number; rolloutsMs: number };
}

/** Rollouts per prefix of the seeded annotate run (its config's `rollouts`): the Q-values are counts out of 16. */
export const SEED_ROLLOUTS_PER_PREFIX = 16;

export const SEED_SUBSETS = ["gsm8k", "math", "olympiadbench", "omnimath"] as const;
export const SEED_GENERATORS = ["Qwen2.5-Math-7B-Instruct", "Llama-3.1-8B-Instruct", "Qwen2.5-72B-Instruct", "Meta-Llama-3-70B-Instruct"] as const;
export const SEED_SEGMENTATION_METHOD = "self-segmented";
export const SEED_JUDGE_ENDPOINTS = ["sim-judge-strong", "sim-judge-weak"] as const;
/** Share of judge samples that agree with the annotate run's Abs-Q label, per judge. */
const JUDGE_AGREEMENT_PER_MILLE = [920, 780] as const;

/** One of these per problem, repeated in its text and in its solutions: a text search on one matches ~1/200 of the rows. */
export const SEED_TOPIC_WORDS: readonly string[] = [
  "apples", "oranges", "bananas", "pears", "plums", "cherries", "grapes", "lemons", "peaches", "mangoes",
  "marbles", "pebbles", "seashells", "buttons", "beads", "ribbons", "stickers", "stamps", "coins", "tokens",
  "pencils", "crayons", "markers", "erasers", "notebooks", "folders", "envelopes", "postcards", "parcels", "scrolls",
  "cookies", "cupcakes", "muffins", "pretzels", "bagels", "donuts", "pancakes", "waffles", "sandwiches", "pies",
  "tulips", "roses", "daisies", "lilies", "orchids", "sunflowers", "violets", "acorns", "pinecones", "feathers",
  "balloons", "kites", "candles", "lanterns", "trophies", "medals", "badges", "puzzles", "dominoes", "dice",
  "bicycles", "tricycles", "scooters", "wagons", "trucks", "tractors", "sailboats", "canoes", "rockets", "helicopters",
  "chairs", "benches", "shelves", "lamps", "clocks", "mirrors", "pillows", "blankets", "curtains", "carpets",
  "magazines", "comics", "novels", "atlases", "posters", "paintings", "sculptures", "photographs", "calendars", "diaries",
  "sheep", "goats", "cows", "horses", "rabbits", "ducks", "geese", "chickens", "turtles", "hamsters",
  "puppies", "kittens", "parrots", "penguins", "dolphins", "otters", "beavers", "squirrels", "owls", "frogs",
  "bottles", "jars", "baskets", "buckets", "barrels", "sacks", "cartons", "mugs", "teapots", "kettles",
  "bricks", "tiles", "planks", "nails", "screws", "bolts", "hinges", "gears", "springs", "cables",
  "tickets", "coupons", "invoices", "receipts", "vouchers", "passports", "keys", "locks", "umbrellas", "raincoats",
  "shoes", "boots", "sandals", "socks", "gloves", "scarves", "hats", "jackets", "sweaters", "mittens",
  "violins", "guitars", "drums", "flutes", "trumpets", "pianos", "harps", "cellos", "banjos", "ukuleles",
  "tomatoes", "carrots", "potatoes", "onions", "peppers", "cucumbers", "pumpkins", "melons", "radishes", "beets",
  "crystals", "fossils", "meteorites", "emeralds", "rubies", "sapphires", "diamonds", "pearls", "opals", "agates",
  "robots", "drones", "satellites", "telescopes", "microscopes", "magnets", "batteries", "lightbulbs", "sensors", "antennas",
  "spoons", "forks", "knives", "plates", "bowls", "napkins", "candlesticks", "vases", "figurines", "paperweights",
];

// Templates are format() strings. Problems: %1$s topic word, %2$s a number unique to the problem, %3$s-%5$s small numbers.
const PROBLEM_TEMPLATES = [
  "A warehouse stores %2$s %1$s in crates of %3$s. After %4$s crates are shipped and %5$s loose %1$s are added, how many %1$s remain in the warehouse?",
  "Let $f(x) = %3$sx^2 - %4$sx + %5$s$. A collector arranges %2$s %1$s so that shelf $x$ holds $f(x)$ of them. What is the smallest positive integer $x$ for which $f(x) > %2$s$?",
  "Maya has %2$s %1$s. She gives $\\frac{1}{%3$s}$ of them to her brother and then buys %4$s more. If she splits the rest equally among %5$s friends, how many %1$s does each friend get?",
  "The number of %1$s in a garden triples every week. There were %3$s %1$s at first, and %2$s were removed at the end of week %4$s. How many %1$s are left after week %5$s?",
  "Compute the remainder when $%3$s^{%2$s} + %4$s$ is divided by %5$s, where the exponent is the number of %1$s in the catalogue.",
  "In triangle $ABC$, $AB = %3$s$, $BC = %4$s$ and $\\angle ABC = 90^\\circ$. A row of %1$s is placed along $AC$ every %5$s units, next to %2$s %1$s already in storage. Find the total number of %1$s.",
  "Find all real $x$ such that $\\sqrt{x + %3$s} + \\sqrt{x - %4$s} = %5$s$. The largest solution, rounded down, is added to a stock of %2$s %1$s; give the new stock.",
  "A store sells %1$s at $\\$%3$s$ each and gives a discount of %4$s percent on orders above %2$s units. How much does an order of %5$s hundred %1$s cost?",
  "Let $S = \\sum_{k=1}^{%3$s} k^2$. A club owns %2$s %1$s and receives $S$ more. If the %1$s are packed %4$s to a bag, how many bags are needed?",
  "A bin holds %2$s %1$s, and each one is defective with probability $\\frac{%3$s}{%5$s}$. What is the expected number of defective %1$s in a sample of %4$s?",
  "Two trains carry %1$s between two cities. The first carries %3$s more than the second, and together they carry %2$s. If the second makes %4$s trips, how many %1$s does it carry in all?",
  "Let $N$ be the number of ordered pairs $(a, b)$ of positive integers with $a + b = %3$s$ and $\\gcd(a, b) = 1$. A shop with %2$s %1$s sells $N$ of them each day for %4$s days. How many %1$s are left?",
];

// Solution sentences: %1$s word, %2$s a, %3$s b, %4$s a*b (off in an error chunk), %5$s a+b (off in an error chunk), %6$s a-b, %7$s a^2, %8$s a(a+1)/2.
const SENTENCE_TEMPLATES = [
  "Each group holds %2$s %1$s, so %3$s groups hold $%2$s \\times %3$s = %4$s$ %1$s.",
  "Adding the two amounts gives $%2$s + %3$s = %5$s$.",
  "Subtracting, we find $%2$s - %3$s = %6$s$, which is the change in the count.",
  "Squaring, $%2$s^2 = %7$s$, so the area of the square is %7$s.",
  "By the formula $\\frac{n(n+1)}{2}$ with $n = %2$s$, the running sum equals %8$s.",
  "Let $N$ be the number of %1$s after this step; then $N = %4$s$.",
  "We substitute $x = %2$s$ into the expression and simplify it term by term.",
  "Now we can write the equation $%3$sx + %2$s = %5$s$ and solve it for $x$.",
  "Multiplying both sides by %3$s gives $%3$s \\cdot %2$s = %4$s$.",
  "So the ratio of %1$s is $\\frac{%2$s}{%5$s}$, which cannot be simplified further.",
  "Since $\\gcd(%2$s, %3$s)$ divides both totals, we can reduce the fraction first.",
  "Next, share the %1$s evenly: $%4$s \\div %3$s = %2$s$ per bag.",
  "Checking the units, the count of %1$s must be a whole number, so this is consistent.",
  "We use the identity $(a+b)^2 = a^2 + 2ab + b^2$ with $a = %2$s$ and $b = %3$s$.",
  "Thus $\\sqrt{%7$s} = %2$s$, which gives a side length of %2$s.",
  "Taking the total modulo %3$s, we only need the remainder of %4$s.",
  "The difference between the two counts of %1$s is %6$s, as computed above.",
  "Hence there are %5$s %1$s in the combined collection.",
  "Combining the previous results, the expression becomes $%4$s + %8$s$.",
  "Let me double-check this: $%3$s \\times %2$s$ is indeed %4$s.",
  "This matches the condition stated in the problem, so we can move on.",
  "The equation $x^2 - %5$sx + %4$s = 0$ factors as $(x - %2$s)(x - %3$s) = 0$.",
  "So the roots are $x = %2$s$ and $x = %3$s$, and only the positive one is valid here.",
  "Therefore each of the %3$s friends receives %2$s %1$s.",
];
const OPENING_TEMPLATES = [
  "We need to find how many %1$s there are at the end.",
  "First, let us restate the problem: we track the %1$s through each stage.",
  "To solve this, we organise the information about the %1$s.",
  "Let us start by identifying the quantities given in the problem.",
];
/** Appended when a chunk would be shorter than 100 characters. */
const FILLER_SENTENCES = [
  "We keep this intermediate value in mind, since it will be needed again in the next part of the solution.",
  "Before going further, it is worth writing down what we know so far so that no quantity is lost.",
  "This does not change the count yet; it only sets up the notation that the next steps rely on.",
];
// Judge rationales: %1$s word, %2$s a, %3$s b, %4$s a*b, %5$s chunk number (1-based), %6$s a wrong product.
const RATIONALE_INTROS = [
  "Analysis: The goal of step %5$s is to update the count of %1$s using the quantities established in the historical reasoning path.",
  "Analysis: In this chunk the solver continues from the previous steps and computes a new intermediate quantity about the %1$s.",
  "Analysis: Step %5$s takes the result of the earlier chunks and combines it with the data given in the problem.",
  "Analysis: The new reasoning chunk sets up the next part of the computation for the %1$s.",
];
const RATIONALE_CHECKS_POSITIVE = [
  "Checking the calculation, $%2$s \\times %3$s = %4$s$ is correct, and the method follows from the problem statement.",
  "The logic is sound: every quantity used was defined earlier, and the arithmetic ($%2$s \\times %3$s = %4$s$) holds.",
  "I re-derived the numbers independently and they agree with the chunk; no step skips a needed condition.",
];
const RATIONALE_CHECKS_NEGATIVE = [
  "Checking the calculation, the chunk uses $%2$s \\times %3$s = %6$s$, but the correct product is %4$s, so the value is wrong.",
  "The chunk misreads the problem: it applies the operation to the wrong quantity of %1$s, which contradicts the earlier steps.",
  "The reasoning assumes a condition that was never established, and the resulting value of %6$s does not follow.",
];
const RATIONALE_ENDS_POSITIVE = [
  "The chunk is a valid step forward.\nFinal Judgment: \\boxed{Positive}",
  "No mistakes were found in this chunk.\nFinal Judgment: \\boxed{Positive}",
];
const RATIONALE_ENDS_NEGATIVE = [
  "This mistake makes the chunk incorrect.\nFinal Judgment: \\boxed{Negative}",
  "The chunk therefore contains an error.\nFinal Judgment: \\boxed{Negative}",
];

/** Characters of the judge prompt around the problem, history and chunk (for token estimates). */
const JUDGE_PROMPT_OVERHEAD_CHARS = 1500;
const MAX_CHUNKS = 64;
const MAX_SENTENCES = 6;

function sqlString(value: string): string {
  if (/[^\x20-\x7e\n]/.test(value)) throw new Error(`seed text must be printable ASCII: ${JSON.stringify(value)}`);
  return `'${value.replaceAll("'", "''")}'`;
}

function sqlArray(values: readonly string[]): string {
  return `(ARRAY[${values.map(sqlString).join(", ")}]::text[])`;
}

/** `array[1 + index % length]` for an inline constant array. */
function pick(values: readonly string[], index: string): string {
  return `${sqlArray(values)}[1 + (${index}) % ${values.length}]`;
}

/** The i-th unsigned 32-bit number (i = 0..3) of an md5 hex digest. */
function hx(md5: string, i: number): string {
  return `('x' || substr(${md5}, ${1 + 8 * i}, 8))::bit(32)::bigint`;
}

function assertInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  return value;
}

type Sql = Pick<Prisma.TransactionClient, "$executeRawUnsafe" | "$queryRawUnsafe">;

interface BatchTotals {
  chunks: number;
  annotateRequests: number;
  annotatePromptTokens: number;
  annotateCompletionTokens: number;
  judgeSamples: number[][];
  judgePromptTokens: number[];
  judgeCompletionTokens: number[];
}

/**
 * Creates the dataset described above and returns its ids and sizes. `target`
 * is a client (createDb) or a connection URL (a client is then opened and closed here).
 */
export async function seedLargeDataset(target: Db | string, options: LargeDatasetOptions = {}): Promise<LargeDatasetResult> {
  const db = typeof target === "string" ? createDb(target, { poolSize: (options.concurrency ?? 2) + 1 }) : target;
  try {
    return await seed(db, options);
  } finally {
    if (typeof target === "string") await db.$disconnect();
  }
}

async function seed(db: Db, options: LargeDatasetOptions): Promise<LargeDatasetResult> {
  const started = Date.now();
  const total = assertInt("solutions", options.solutions ?? 100_000, 1, 10_000_000);
  const seedValue = assertInt("seed", options.seed ?? 1, 0, 2 ** 31 - 1);
  const minChunks = assertInt("chunksPerSolution.min", options.chunksPerSolution?.min ?? 4, 1, MAX_CHUNKS);
  const maxChunks = assertInt("chunksPerSolution.max", options.chunksPerSolution?.max ?? 16, minChunks, MAX_CHUNKS);
  const concurrency = assertInt("concurrency", options.concurrency ?? 2, 1, 16);
  const batchSize = Math.max(4, Math.floor(assertInt("batchSize", options.batchSize ?? 10_000, 1, 1_000_000) / 4) * 4);
  const rolloutsPerPrefix = options.rolloutsPerPrefix ?? 0;
  const judgeSamples = options.judgeSamples ?? 2;
  if (judgeSamples !== 1 && judgeSamples !== 2) throw new RangeError(`judgeSamples must be 1 or 2, got ${String(judgeSamples)}`);
  if (rolloutsPerPrefix !== 0 && rolloutsPerPrefix !== SEED_ROLLOUTS_PER_PREFIX) {
    throw new RangeError(`rolloutsPerPrefix must be 0 or ${SEED_ROLLOUTS_PER_PREFIX} (the seeded Q-values are counts out of ${SEED_ROLLOUTS_PER_PREFIX} rollouts), got ${rolloutsPerPrefix}`);
  }
  const problems = Math.ceil(total / 4);
  const name = options.name ?? `Large seed (${total} solutions, seed ${seedValue})`;

  const rules = [DEFAULT_LABEL_RULES["abs-q"], DEFAULT_LABEL_RULES["rel-ratio"], DEFAULT_LABEL_RULES["rel-effective"]];
  const annotateConfig = {
    datasetId: "",
    segmentationMethod: SEED_SEGMENTATION_METHOD,
    policyEndpoint: "sim-policy",
    promptTemplateId: SELF_SEGMENTING_POLICY_PROMPT.id,
    rollouts: SEED_ROLLOUTS_PER_PREFIX,
    temperature: 1,
    maxTokens: 4096,
    strategy: "fixed",
    earlyStopBatch: 4,
    rolloutText: options.rolloutText ?? "full",
    seed: seedValue,
    labelRules: rules,
    concurrency: 32,
  };
  const judgeConfig = (judgeEndpoint: string) => ({
    datasetId: "",
    segmentationMethod: SEED_SEGMENTATION_METHOD,
    judgeEndpoint,
    samples: judgeSamples,
    temperature: 0.7,
    maxTokens: 2048,
    seed: seedValue,
    tiePolicy: "Negative",
    stopAtFirstNegative: false,
    concurrency: 32,
  });

  const now = new Date(started);
  const dataset = await db.dataset.create({
    data: {
      name,
      source: "seed",
      license: "generated",
      version: `seed-${seedValue}`,
      description: `Synthetic dataset from seedLargeDataset: ${total} self-segmented solutions of ${problems} problems, one annotate run and two judge runs.`,
      status: "importing",
    },
  });
  const datasetId = dataset.id;
  const createRun = (kind: "annotate" | "judge", config: object) =>
    db.run.create({ data: { kind, status: "running", config: { ...config, datasetId }, datasetId, startedAt: now, plannedAt: now, unitsTotal: total, attempts: 1 } });
  const annotateRun = await createRun("annotate", annotateConfig);
  const judgeRuns = [await createRun("judge", judgeConfig(SEED_JUDGE_ENDPOINTS[0])), await createRun("judge", judgeConfig(SEED_JUDGE_ENDPOINTS[1]))] as const;

  const [role] = await db.$queryRawUnsafe<Array<{ superuser: boolean }>>(`SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`);
  const ctx: BatchContext = {
    skipForeignKeyChecks: !(options.foreignKeyChecks ?? false) && role?.superuser === true,
    rolloutText: (options.rolloutText ?? "full") === "full",
    judgeSamples,
    seed: seedValue,
    minChunks,
    maxChunks,
    idBase: BigInt(started) * 1024n,
    createdAtMs: started,
    datasetId,
    annotateRunId: annotateRun.id,
    judgeRunIds: [judgeRuns[0].id, judgeRuns[1].id],
    paramsKeys: rules.map(labelRuleParamsKey),
    gamma: DEFAULT_LABEL_RULES["rel-ratio"].gamma,
    alpha: DEFAULT_LABEL_RULES["rel-effective"].alpha,
    bestOfN: DEFAULT_LABEL_RULES["rel-effective"].n,
    truePositive: JSON.stringify(truePositiveTable(rules)),
  };
  const totals: BatchTotals = {
    chunks: 0,
    annotateRequests: 0,
    annotatePromptTokens: 0,
    annotateCompletionTokens: 0,
    judgeSamples: [
      [0, 0],
      [0, 0],
    ],
    judgePromptTokens: [0, 0],
    judgeCompletionTokens: [0, 0],
  };

  const batches: Array<[number, number]> = [];
  for (let lo = 0; lo < total; lo += batchSize) batches.push([lo, Math.min(total, lo + batchSize) - 1]);
  let next = 0;
  let written = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < batches.length) {
      const [lo, hi] = batches[next++]!;
      try {
        await db.$transaction((tx) => writeBatch(tx, ctx, lo, hi, totals), { maxWait: 60_000, timeout: 60 * 60_000 });
      } catch (error) {
        failed = true;
        throw error;
      }
      written += hi - lo + 1;
      options.onProgress?.({ phase: "solutions", solutions: written, total, elapsedMs: Date.now() - started });
    }
  };
  let solutionsMs = 0;
  let rolloutsMs = 0;
  const rolloutTotals = { rollouts: 0, completionTokens: 0 };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
    solutionsMs = Date.now() - started;
    if (rolloutsPerPrefix > 0) {
      const rolloutsStarted = Date.now();
      let rolloutNext = 0;
      let rolloutsWritten = 0;
      // The first `rolloutSolutions` solutions only, when given.
      const limit = options.rolloutSolutions ?? total;
      const rolloutBatches = batches.filter(([lo]) => lo < limit).map(([lo, hi]) => [lo, Math.min(hi, limit - 1)] as const);
      const rolloutWorker = async () => {
        while (!failed && rolloutNext < rolloutBatches.length) {
          const [lo, hi] = rolloutBatches[rolloutNext++]!;
          try {
            await db.$transaction((tx) => writeRollouts(tx, ctx, lo, hi, rolloutTotals), { maxWait: 60_000, timeout: 60 * 60_000 });
          } catch (error) {
            failed = true;
            throw error;
          }
          rolloutsWritten += hi - lo + 1;
          options.onProgress?.({ phase: "rollouts", solutions: rolloutsWritten, total, elapsedMs: Date.now() - started });
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, rolloutBatches.length) }, rolloutWorker));
      rolloutsMs = Date.now() - rolloutsStarted;
    }
  } catch (error) {
    // The batches already committed stay, under a dataset and runs marked failed (delete the dataset to drop them).
    const message = error instanceof Error ? error.message : String(error);
    const runIds = [annotateRun.id, judgeRuns[0].id, judgeRuns[1].id];
    await db.run.updateMany({ where: { id: { in: runIds } }, data: { status: "failed", error: message.slice(0, 2000), finishedAt: new Date() } }).catch(() => undefined);
    await db.dataset.update({ where: { id: datasetId }, data: { status: "failed" } }).catch(() => undefined);
    throw error;
  }

  const finishedAt = new Date();
  const chunkValues = total + totals.chunks;
  await db.$transaction([
    db.run.update({
      where: { id: annotateRun.id },
      data: {
        status: "completed",
        unitsDone: total,
        requests: totals.annotateRequests,
        promptTokens: BigInt(totals.annotatePromptTokens),
        completionTokens: BigInt(totals.annotateCompletionTokens),
        finishedAt,
        // What the annotate handler's summarize() reports (no Rollout rows unless rolloutsPerPrefix was given).
        summary: { rollouts: rolloutTotals.rollouts, chunkValues, rolloutCompletionTokens: rolloutTotals.completionTokens },
      },
    }),
    ...judgeRuns.map((run, r) => {
      const [positive, negative] = totals.judgeSamples[r]!;
      return db.run.update({
        where: { id: run.id },
        data: {
          status: "completed",
          unitsDone: total,
          requests: totals.chunks,
          promptTokens: BigInt(totals.judgePromptTokens[r]!),
          completionTokens: BigInt(totals.judgeCompletionTokens[r]!),
          finishedAt,
          summary: { samples: positive! + negative!, verdicts: { Positive: positive, Negative: negative }, unparseableRate: 0 },
          // What the judge kind's resultColumns stores beside that summary.
          negativeShare: positive! + negative! > 0 ? negative! / (positive! + negative!) : null,
        },
      });
    }),
    db.dataset.update({ where: { id: datasetId }, data: { status: "ready" } }),
  ]);

  // As autovacuum leaves freshly written tables once it has visited them: statistics for the planner, and the
  // visibility map set, so that covering indexes are read without visiting the table. Done here rather than left to
  // autovacuum, which would otherwise visit these tables (16M rollouts take minutes) while a benchmark times requests.
  const vacuumed = ["Problem", "Solution", "Segmentation", "Chunk", "ChunkValue", "ChunkLabel", "JudgeSample", "ChunkVotes", "SolutionRunStat", "SolutionLabelConfidence", "RunUnit", "RowsChange"];
  for (const table of rolloutsPerPrefix > 0 ? [...vacuumed, "Rollout"] : vacuumed) await db.$executeRawUnsafe(`VACUUM (ANALYZE) "${table}"`);

  // What the judge kind's resultColumns stores when a judge run finishes: its agreement with the annotate run's labels
  // under that run's first rule (ties Negative, the judge runs' tie policy), one aggregate per judge run.
  const firstRule = storedLabelRule(rules[0]!);
  for (const judgeRun of judgeRuns) {
    await db.$executeRaw`
      UPDATE "Run" r SET "mcAgreement" = a.agreeing::double precision / a.chunks, "mcAgreementRunId" = ${annotateRun.id}
      FROM (
        SELECT count(*) AS chunks,
          count(*) FILTER (WHERE l.label::text = CASE WHEN v.positive = 0 AND v.negative = 0 THEN 'unparseable' WHEN v.positive > v.negative THEN 'Positive' ELSE 'Negative' END) AS agreeing
        FROM "ChunkVotes" v
        JOIN "ChunkLabel" l ON l."chunkId" = v."chunkId" AND l."runId" = ${annotateRun.id} AND l.rule = ${firstRule.rule}::"LabelRule" AND l."paramsKey" = ${firstRule.paramsKey}
        WHERE v."runId" = ${judgeRun.id}
      ) a
      WHERE r.id = ${judgeRun.id} AND a.chunks > 0`;
  }

  return {
    datasetId,
    annotateRunId: annotateRun.id,
    judgeRunIds: [judgeRuns[0].id, judgeRuns[1].id],
    problems,
    solutions: total,
    chunks: totals.chunks,
    rollouts: rolloutTotals.rollouts,
    timings: { solutionsMs, rolloutsMs },
  };
}

interface BatchContext {
  skipForeignKeyChecks: boolean;
  /** Rollout rows keep their text (rolloutText full). */
  rolloutText: boolean;
  judgeSamples: 1 | 2;
  seed: number;
  minChunks: number;
  maxChunks: number;
  idBase: bigint;
  createdAtMs: number;
  datasetId: string;
  annotateRunId: string;
  judgeRunIds: [string, string];
  paramsKeys: string[];
  gamma: number;
  alpha: number;
  bestOfN: number;
  /** P(true Positive) per rule and (previous count, count, last chunk), as JSON rows for `_seed_conf`. */
  truePositive: string;
}

/** A cuid-shaped id (25 chars: "c", 13 hex digits of call time and `seq`, 11 random hex digits), ordered by `seq` within a call. */
function idExpr(ctx: BatchContext, seq: string): string {
  return `('c' || lpad(to_hex(${ctx.idBase}::bigint + (${seq})), 13, '0') || lpad(to_hex((random() * 17592186044416)::bigint), 11, '0'))`;
}

const float = (value: number) => `${value}::float8`;

/**
 * P(true Positive) under each seeded rule for every count the seed writes (16 rollouts per sampled prefix; the last
 * chunk's value is the solution's known outcome), computed by core, so seeded confidences are what a run would store.
 */
function truePositiveTable(rules: readonly LabelRule[]): { rule_no: number; prev_cnt: number; cnt: number; last: boolean; p: number }[] {
  const rows: { rule_no: number; prev_cnt: number; cnt: number; last: boolean; p: number }[] = [];
  const sampled = (cnt: number) => qPosterior({ correct: cnt, rollouts: 16 });
  rules.forEach((rule, no) => {
    for (const last of [false, true]) {
      for (let cnt = 0; cnt <= (last ? 1 : 16); cnt++) {
        const current = last ? qPosterior({ known: cnt }) : sampled(cnt);
        for (let prev = 0; prev <= (rule.rule === "abs-q" ? 0 : 16); prev++) {
          rows.push({ rule_no: no, prev_cnt: prev, cnt, last, p: truePositiveProbability(rule, rule.rule === "abs-q" ? null : sampled(prev), current) });
        }
      }
    }
  });
  return rows;
}

/** Solutions lo..hi (0-based, lo a multiple of 4) with their problems, chunks, values, labels, judge samples, stats and run units. */
async function writeBatch(tx: Sql, ctx: BatchContext, lo: number, hi: number, totals: BatchTotals): Promise<void> {
  const { seed } = ctx;
  const exec = (sql: string, ...params: unknown[]) => tx.$executeRawUnsafe(sql, ...params);
  await exec(`SET LOCAL synchronous_commit = off`);
  await exec(`SET LOCAL work_mem = '256MB'`);
  if (ctx.skipForeignKeyChecks) await exec(`SET LOCAL session_replication_role = replica`);
  const utcNow = `(now() AT TIME ZONE 'UTC')`;
  const span = ctx.maxChunks - ctx.minChunks + 1;

  // Problems: topic word, subset, a unique number in the text, reference answer num/den (den 1 = integer).
  await exec(`
    CREATE TEMP TABLE _seed_p ON COMMIT DROP AS
    SELECT pn, ${idExpr(ctx, "pn")} AS id, word, subset, num, den,
      CASE WHEN den = 1 THEN num::text ELSE '\\frac{' || num || '}{' || den || '}' END AS answer,
      format(${pick(PROBLEM_TEMPLATES, "h2")}, word, 37 + pn, 2 + (h3 >> 4) % 17, 2 + (h3 >> 12) % 13, 2 + (h3 >> 20) % 11) AS text
    FROM (
      SELECT pn, h2, h3,
        ${pick(SEED_TOPIC_WORDS, "h0")} AS word,
        ${pick(SEED_SUBSETS, "h1")} AS subset,
        den,
        CASE WHEN den = 1 THEN 2 + (h3 >> 8) % 2000 ELSE den * (1 + (h3 >> 8) % 20) + 1 + (h3 >> 16) % (den - 1) END AS num
      FROM (
        SELECT pn, ${hx("m", 0)} AS h0, ${hx("m", 1)} AS h1, ${hx("m", 2)} AS h2, ${hx("m", 3)} AS h3,
          CASE WHEN ${hx("m", 1)} % 4 = 0 OR ${hx("m", 2)} % 3 <> 0 THEN 1 ELSE (ARRAY[3, 5, 7, 11, 13])[1 + ${hx("m", 0)} % 5] END AS den
        FROM generate_series(${lo / 4}, ${Math.floor(hi / 4)}) pn, LATERAL (SELECT md5('${seed}:p:' || pn) AS m) r
      ) a
    ) b`);

  // Solutions: chunk count k, the source's first error, the final outcome, the policy's success rate p0.
  await exec(`
    CREATE TEMP TABLE _seed_t ON COMMIT DROP AS
    SELECT n, pn, gen, k, src_err, final_correct, wrong_delta, p0,
      CASE WHEN src_err >= 0 THEN src_err WHEN NOT final_correct THEN k - 1 END AS eff_err,
      greatest(0, least(16, round(16 * p0)::int + noise0)) AS c0,
      ${idExpr(ctx, "n")} AS id, ${idExpr(ctx, "n")} AS seg_id
    FROM (
      SELECT n, n / 4 AS pn, n % 4 AS gen, k,
        CASE WHEN has_err THEN (h2 % k)::int ELSE -1 END AS src_err,
        CASE WHEN has_err THEN h3 % 100 < 15 ELSE h3 % 100 < 95 END AS final_correct,
        (1 + (h2 >> 8) % 19)::int AS wrong_delta,
        0.3::float8 + 0.65::float8 * ((h1 >> 8) % 1000)::float8 / 1000 AS p0,
        ((h3 >> 8) % 3)::int - 1 AS noise0
      FROM (
        SELECT n, h1, h2, h3,
          (${ctx.minChunks} + ((h0 % ${span}) + ((h0 >> 12) % ${span}) + (h1 & 1)) / 2)::int AS k,
          ((h1 >> 1) & 1) = 1 AS has_err
        FROM generate_series(${lo}, ${hi}) n,
          LATERAL (SELECT md5('${seed}:t:' || n) AS m) r,
          LATERAL (SELECT ${hx("m", 0)} AS h0, ${hx("m", 1)} AS h1, ${hx("m", 2)} AS h2, ${hx("m", 3)} AS h3) h
      ) a
    ) b`);

  // Chunks: text (sentences drawn from templates, 100–600 chars), offsets, the value of the
  // prefix ending at the chunk, labels under the three rules and the four judge verdicts.
  const cntExpr = `CASE WHEN idx = k - 1 THEN (CASE WHEN final_correct THEN 1 ELSE 0 END)
      WHEN eff_err IS NULL OR idx + 1 <= eff_err THEN greatest(0, least(16, round(16 * (p0 + (0.97::float8 - p0) * (idx + 1) / k))::int + noise))
      ELSE round(16 * (p0 + (0.97::float8 - p0) * eff_err / k) * power(0.35::float8, idx + 1 - eff_err))::int END`;
  // 1–6 sentences from the templates; numbers from a per-sentence mix of the chunk's hash.
  const sentence = (j: number) => {
    const x = `((((h1 >> 2) + ${j * 1_000_003}) * 2654435761) % 4294967296)`;
    const a = `(2 + (${x} >> 4) % 47)`;
    const b = `(2 + (${x} >> 10) % 23)`;
    return `format(${pick(SENTENCE_TEMPLATES, `${x} >> 16`)}, word, ${a}, ${b}, ${a} * ${b} + delta, ${a} + ${b} + delta, ${a} - ${b}, ${a} * ${a}, ${a} * (${a} + 1) / 2)`;
  };
  const sentences = `concat_ws(' ', ${Array.from({ length: MAX_SENTENCES }, (_, i) => (i === 0 ? sentence(1) : `CASE WHEN sentence_count > ${i} THEN ${sentence(i + 1)} END`)).join(", ")})`;
  const eps = float(1e-9);
  const bestOf = (q: string) => `(1 - power(1 - ${q}, ${ctx.bestOfN}))`;
  await exec(`
    CREATE TEMP TABLE _seed_c ON COMMIT DROP AS
    WITH base AS MATERIALIZED (
      SELECT t.n, t.pn, t.k, c.idx, t.final_correct, t.eff_err, t.p0, t.c0, t.seg_id, p.word, length(p.text) AS problem_len,
        CASE WHEN t.final_correct THEN p.answer WHEN p.den = 1 THEN (p.num + t.wrong_delta)::text ELSE '\\frac{' || (p.num + t.wrong_delta) || '}{' || p.den || '}' END AS shown,
        h.*
      FROM _seed_t t JOIN _seed_p p USING (pn)
      CROSS JOIN LATERAL generate_series(0, t.k - 1) c(idx)
      CROSS JOIN LATERAL (SELECT md5('${seed}:c:' || t.n || ':' || c.idx) AS m, md5('${seed}:j:' || t.n || ':' || c.idx) AS mj) r
      CROSS JOIN LATERAL (SELECT ${hx("m", 0)} AS h0, ${hx("m", 1)} AS h1, ${hx("m", 2)} AS h2, ${hx("m", 3)} AS h3,
        ${hx("mj", 0)} AS g0, ${hx("mj", 1)} AS g1, ${hx("mj", 2)} AS g2, ${hx("mj", 3)} AS g3) h
    ),
    parts AS MATERIALIZED (
      SELECT b.*,
        (CASE WHEN idx = 0 THEN format(${pick(OPENING_TEMPLATES, "h0 >> 8")}, word) || ' ' ELSE '' END) || ${sentences} AS raw,
        CASE WHEN idx = k - 1 THEN ' Therefore, the final answer is $\\boxed{' || shown || '}$.' ELSE '' END AS closing,
        ${pick(FILLER_SENTENCES, "h0 >> 16")} AS filler,
        ((h3 >> 4) % 3)::int - 1 AS noise
      FROM (SELECT base.*, 1 + h0 % ${MAX_SENTENCES} AS sentence_count, CASE WHEN idx = eff_err THEN 1 + h2 % 9 ELSE 0 END AS delta FROM base) b
    ),
    texts AS MATERIALIZED (
      SELECT p.*,
        rtrim(left(CASE WHEN length(raw) + length(closing) < 100 THEN raw || ' ' || filler ELSE raw END, 600 - length(closing))) || closing AS text
      FROM parts p
    ),
    vals AS (
      SELECT x.*,
        CASE WHEN idx = k - 1 THEN cnt::float8 ELSE cnt::float8 / 16 END AS q,
        CASE WHEN idx = k - 1 THEN 0 ELSE 16 END AS rollouts,
        cnt > 0 AS success
      FROM (SELECT t.*, ${cntExpr} AS cnt FROM texts t) x
    ),
    prevs AS (
      SELECT v.*, coalesce(lag(q) OVER (PARTITION BY n ORDER BY idx), c0::float8 / 16) AS prev,
        coalesce(lag(cnt) OVER (PARTITION BY n ORDER BY idx), c0) AS prev_cnt,
        success AS abs_pos, -- Abs-Q, own-prefix evidence (the default rule): this prefix's own rollouts
        coalesce(sum(length(text) + 2) OVER (PARTITION BY n ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int AS start_offset
      FROM vals v
    )
    SELECT n, pn, k, idx, seg_id, word, problem_len, text, start_offset, start_offset + length(text) AS end_offset,
      cnt, prev_cnt, q, rollouts, abs_pos,
      CASE WHEN prev <= ${eps} THEN q > ${eps} ELSE q / prev > ${float(ctx.gamma)} + ${eps} END AS ratio_pos,
      q + ${float(ctx.alpha)} * (${bestOf("q")} - ${bestOf("prev")}) > ${eps} AS eff_pos,
      CASE WHEN g0 % 1000 < ${JUDGE_AGREEMENT_PER_MILLE[0]} THEN abs_pos ELSE NOT abs_pos END AS v00,
      CASE WHEN ${ctx.judgeSamples === 1 ? "g0" : "g1"} % 1000 < ${JUDGE_AGREEMENT_PER_MILLE[0]} THEN abs_pos ELSE NOT abs_pos END AS v01,
      CASE WHEN g2 % 1000 < ${JUDGE_AGREEMENT_PER_MILLE[1]} THEN abs_pos ELSE NOT abs_pos END AS v10,
      CASE WHEN ${ctx.judgeSamples === 1 ? "g2" : "g3"} % 1000 < ${JUDGE_AGREEMENT_PER_MILLE[1]} THEN abs_pos ELSE NOT abs_pos END AS v11,
      g0 >> 10 AS r0, g1 >> 10 AS r1, g2 >> 10 AS r2, g3 >> 10 AS r3,
      ${idExpr(ctx, `n::bigint * ${MAX_CHUNKS} + idx`)} AS chunk_id
    FROM prevs`);
  await exec(`ANALYZE _seed_p`);
  await exec(`ANALYZE _seed_t`);

  const generators = sqlArray(SEED_GENERATORS);
  await exec(
    `INSERT INTO "Problem" (id, "datasetId", "textHash", text, "referenceAnswer", metadata)
     SELECT id, $1, encode(sha256(convert_to(text, 'UTF8')), 'hex'), text, answer, jsonb_build_object('seed', ${seed}, 'index', pn, 'topic', word)
     FROM _seed_p ORDER BY pn`,
    ctx.datasetId,
  );
  await exec(
    `INSERT INTO "Solution" (id, "datasetId", "problemId", "externalId", subset, generator, text, "finalAnswer", "finalAnswerCorrect", "sourceFirstErrorIndex", metadata, "createdAt")
     SELECT t.id, $1, p.id, 'seed-' || t.n, p.subset, ${generators}[1 + t.gen], x.text,
       CASE WHEN t.final_correct THEN p.answer WHEN p.den = 1 THEN (p.num + t.wrong_delta)::text ELSE '\\frac{' || (p.num + t.wrong_delta) || '}{' || p.den || '}' END,
       t.final_correct, t.src_err, '{}'::jsonb, timestamp '1970-01-01' + (${ctx.createdAtMs}::bigint + t.n) * interval '1 millisecond'
     FROM _seed_t t JOIN _seed_p p USING (pn)
     JOIN (SELECT n, string_agg(text, E'\\n\\n' ORDER BY idx) AS text FROM _seed_c GROUP BY n) x USING (n)
     ORDER BY t.n`,
    ctx.datasetId,
  );
  await exec(
    `INSERT INTO "Segmentation" (id, "solutionId", method, params)
     SELECT seg_id, id, $1, jsonb_build_object('promptTemplateId', $2::text) FROM _seed_t ORDER BY n`,
    SEED_SEGMENTATION_METHOD,
    SELF_SEGMENTING_POLICY_PROMPT.id,
  );
  await exec(`
    INSERT INTO "Chunk" (id, "segmentationId", index, text, "startOffset", "endOffset")
    SELECT chunk_id, seg_id, idx, text, start_offset, end_offset FROM _seed_c ORDER BY n, idx`);
  await exec(
    `INSERT INTO "ChunkValue" (id, "runId", "segmentationId", "prefixLength", "qValue", "rolloutCount", "correctCount")
     SELECT ${idExpr(ctx, `n::bigint * ${MAX_CHUNKS + 1} + prefix_length`)}, $1, seg_id, prefix_length, q, rollouts, cnt
     FROM (
       SELECT n, seg_id, 0 AS prefix_length, c0::float8 / 16 AS q, 16 AS rollouts, c0 AS cnt FROM _seed_t
       UNION ALL
       SELECT n, seg_id, idx + 1, q, rollouts, cnt FROM _seed_c
     ) v ORDER BY n, prefix_length`,
    ctx.annotateRunId,
  );
  // Labels with their confidence (core's posterior probability, looked up by counts) and each solution's lowest per rule.
  await exec(`CREATE TEMP TABLE _seed_conf ON COMMIT DROP AS SELECT * FROM json_to_recordset($1::json) AS x(rule_no int, prev_cnt int, cnt int, last boolean, p float8)`, ctx.truePositive);
  await exec(`
    CREATE TEMP TABLE _seed_l ON COMMIT DROP AS
    SELECT c.n, c.idx, c.chunk_id, r.no, r.rule, r.key, l.pos, CASE WHEN l.pos THEN f.p ELSE 1 - f.p END AS confidence
    FROM _seed_c c CROSS JOIN (VALUES (0, 'abs_q', $1::text), (1, 'rel_ratio', $2::text), (2, 'rel_effective', $3::text)) r(no, rule, key)
    CROSS JOIN LATERAL (SELECT CASE r.no WHEN 0 THEN c.abs_pos WHEN 1 THEN c.ratio_pos ELSE c.eff_pos END AS pos) l
    JOIN _seed_conf f ON f.rule_no = r.no AND f.prev_cnt = CASE WHEN r.no = 0 THEN 0 ELSE c.prev_cnt END AND f.cnt = c.cnt AND f.last = (c.idx = c.k - 1)`,
    ...ctx.paramsKeys,
  );
  await exec(
    `INSERT INTO "ChunkLabel" (id, "chunkId", "runId", rule, "paramsKey", label, confidence)
     SELECT ${idExpr(ctx, `(n::bigint * ${MAX_CHUNKS} + idx) * 4 + no`)}, chunk_id, $1, rule::"LabelRule", key,
       (CASE WHEN pos THEN 'Positive' ELSE 'Negative' END)::"StepLabel", confidence
     FROM _seed_l ORDER BY n, idx, no`,
    ctx.annotateRunId,
  );
  await exec(
    `INSERT INTO "SolutionLabelConfidence" ("runId", "solutionId", rule, "paramsKey", "lowestConfidence")
     SELECT $1, t.id, l.rule::"LabelRule", l.key, min(l.confidence)
     FROM _seed_l l JOIN _seed_t t USING (n) GROUP BY t.id, l.rule, l.key`,
    ctx.annotateRunId,
  );

  // Judge samples, counted per run and verdict as they are written.
  const rationale = (pos: string, bits: string) => `format(
      ${pick(RATIONALE_INTROS, bits)} || ' ' ||
      CASE WHEN ${pos} THEN ${pick(RATIONALE_CHECKS_POSITIVE, `${bits} >> 4`)} ELSE ${pick(RATIONALE_CHECKS_NEGATIVE, `${bits} >> 4`)} END || ' ' ||
      CASE WHEN ${pos} THEN ${pick(RATIONALE_ENDS_POSITIVE, `${bits} >> 8`)} ELSE ${pick(RATIONALE_ENDS_NEGATIVE, `${bits} >> 8`)} END,
      word, a, b, a * b, idx + 1, a * b + 1 + (${bits} >> 12) % 9)`;
  const judged = await tx.$queryRawUnsafe<Array<{ run_no: number; verdict: string; samples: number; prompt_tokens: number; completion_tokens: number }>>(
    `WITH samples AS (
       SELECT c.n, c.idx, r.run_no, r.run_id, s.s, c.chunk_id,
         CASE WHEN r.run_no = 0 THEN (CASE WHEN s.s = 0 THEN c.v00 ELSE c.v01 END) ELSE (CASE WHEN s.s = 0 THEN c.v10 ELSE c.v11 END) END AS pos,
         CASE WHEN r.run_no = 0 THEN (CASE WHEN s.s = 0 THEN c.r0 ELSE c.r1 END) ELSE (CASE WHEN s.s = 0 THEN c.r2 ELSE c.r3 END) END AS bits,
         c.word, 2 + c.r0 % 47 AS a, 2 + c.r1 % 23 AS b,
         (c.problem_len + c.end_offset + ${JUDGE_PROMPT_OVERHEAD_CHARS}) / 4 AS prompt_tokens
       FROM _seed_c c
       CROSS JOIN (VALUES (0, $1::text), (1, $2::text)) r(run_no, run_id)
       CROSS JOIN generate_series(0, ${ctx.judgeSamples - 1}) s(s)
     ),
     drafts AS MATERIALIZED (
       SELECT *, ${rationale("pos", "bits")} AS rationale FROM samples
     ),
     inserted AS (
       INSERT INTO "JudgeSample" (id, "runId", "chunkId", "sampleIndex", "promptTemplateId", rationale, verdict, "promptTokens", "completionTokens")
       SELECT ${idExpr(ctx, `((n::bigint * ${MAX_CHUNKS} + idx) * 2 + run_no) * 2 + s`)}, run_id, chunk_id, s, $3, rationale,
         (CASE WHEN pos THEN 'Positive' ELSE 'Negative' END)::"Verdict",
         CASE WHEN s = 0 THEN prompt_tokens ELSE 0 END, (length(rationale) + 3) / 4
       FROM drafts ORDER BY n, idx, run_no, s
       RETURNING "runId", verdict, "promptTokens", "completionTokens"
     )
     SELECT CASE WHEN "runId" = $1 THEN 0 ELSE 1 END AS run_no, verdict::text AS verdict, count(*)::int AS samples,
       sum("promptTokens")::float8 AS prompt_tokens, sum("completionTokens")::float8 AS completion_tokens
     FROM inserted GROUP BY 1, 2`,
    ctx.judgeRunIds[0],
    ctx.judgeRunIds[1],
    STEPWISER_JUDGE_PROMPT.id,
  );
  for (const row of judged) {
    totals.judgeSamples[row.run_no]![row.verdict === "Positive" ? 0 : 1]! += Number(row.samples);
    totals.judgePromptTokens[row.run_no]! += Number(row.prompt_tokens);
    totals.judgeCompletionTokens[row.run_no]! += Number(row.completion_tokens);
  }

  // Per-solution stats: annotate (Abs-Q, the first rule, is primary) and judges (majority of 2, tie → Negative).
  await exec(
    `INSERT INTO "SolutionRunStat" ("runId", "solutionId", "datasetId", "chunkCount", "qMin", "firstNegative", "negativeCount", "labelsDisagree", "updatedAt")
     SELECT s.run_id, t.id, $4, t.k, s.q_min, s.first_negative, s.negative_count, s.disagree, ${utcNow}
     FROM _seed_t t JOIN (
       SELECT n, $1::text AS run_id, min(q) AS q_min, coalesce(min(idx) FILTER (WHERE NOT abs_pos), -1) AS first_negative,
         (count(*) FILTER (WHERE NOT abs_pos))::int AS negative_count, bool_or(abs_pos <> ratio_pos OR abs_pos <> eff_pos) AS disagree
       FROM _seed_c GROUP BY n
       UNION ALL
       SELECT n, $2::text, NULL, coalesce(min(idx) FILTER (WHERE NOT (v00 AND v01)), -1), (count(*) FILTER (WHERE NOT (v00 AND v01)))::int, false
       FROM _seed_c GROUP BY n
       UNION ALL
       SELECT n, $3::text, NULL, coalesce(min(idx) FILTER (WHERE NOT (v10 AND v11)), -1), (count(*) FILTER (WHERE NOT (v10 AND v11)))::int, false
       FROM _seed_c GROUP BY n
     ) s USING (n)
     ORDER BY s.run_id, t.n`,
    ctx.annotateRunId,
    ctx.judgeRunIds[0],
    ctx.judgeRunIds[1],
    ctx.datasetId,
  );

  // Run units as the engine leaves them: one per segmentation, done; judge units keep their votes.
  const votes = (a: string, b: string) =>
    `jsonb_build_object('votes', jsonb_agg(CASE WHEN ${a} AND ${b} THEN 'Positive' ELSE 'Negative' END ORDER BY idx),
       'predictedFirstError', coalesce(min(idx) FILTER (WHERE NOT (${a} AND ${b})), -1))`;
  await exec(
    `INSERT INTO "RunUnit" (id, "runId", key, position, status, attempts, result, "updatedAt")
     SELECT ${idExpr(ctx, "n::bigint * 4 + u.run_no")}, u.run_id, t.seg_id, t.n, 'done'::"RunUnitStatus", 1, u.result, ${utcNow}
     FROM _seed_t t JOIN (
       SELECT n, 0 AS run_no, $1::text AS run_id, NULL::jsonb AS result FROM _seed_t
       UNION ALL SELECT n, 1, $2::text, ${votes("v00", "v01")} FROM _seed_c GROUP BY n
       UNION ALL SELECT n, 2, $3::text, ${votes("v10", "v11")} FROM _seed_c GROUP BY n
     ) u USING (n)
     ORDER BY u.run_no, t.n`,
    ctx.annotateRunId,
    ctx.judgeRunIds[0],
    ctx.judgeRunIds[1],
  );

  const [sums] = await tx.$queryRawUnsafe<Array<{ chunks: number; requests: number; prompt_tokens: number; completion_tokens: number }>>(`
    SELECT count(*)::int AS chunks,
      count(*)::int AS requests,
      sum((problem_len + start_offset) / 4 + 150)::float8 AS prompt_tokens,
      sum(16 * (len - start_offset) / 4)::float8 AS completion_tokens
    FROM _seed_c JOIN (SELECT n, max(end_offset) AS len FROM _seed_c GROUP BY n) l USING (n)`);
  totals.chunks += Number(sums!.chunks);
  totals.annotateRequests += Number(sums!.requests);
  totals.annotatePromptTokens += Number(sums!.prompt_tokens);
  totals.annotateCompletionTokens += Number(sums!.completion_tokens);
}

// Rollout continuations, kept short (the benchmarks need their number, not their prose): text before the answer.
const ROLLOUT_OPENINGS = [
  "Continuing from here, we carry the running total forward and simplify. Therefore, the final answer is $\\boxed{",
  "Checking the remaining steps once more, the computation gives $\\boxed{",
  "We finish the calculation with the values found so far, so the answer is $\\boxed{",
  "Putting the pieces together, the result is $\\boxed{",
];
/** A rollout that stopped before giving an answer (extracted answer null, wrong). */
const ROLLOUT_UNFINISHED = "Continuing, we set up the remaining computation, but the generation stops before reaching the end.";

/** The first 14 characters of `idExpr(ctx, seq)`: ids of one call sort by seq, so a range of seqs is a range of ids. */
function idPrefix(ctx: BatchContext, seq: number): string {
  return `c${(ctx.idBase + BigInt(seq)).toString(16).padStart(13, "0")}`;
}

/**
 * The annotate run's Rollout rows for solutions lo..hi, 16 per prefix that has
 * rollouts, read from the ChunkValues written before: `correctCount` of a
 * prefix's 16 samples are correct (which ones: a per-prefix permutation of the
 * sample indices), a correct one answers the reference answer, a wrong one
 * another number or (1 in 50) nothing. The request's completion tokens (what
 * the rest of the solution would take) are spread evenly over its samples, as
 * the pipeline stores them.
 */
async function writeRollouts(tx: Sql, ctx: BatchContext, lo: number, hi: number, totals: { rollouts: number; completionTokens: number }): Promise<void> {
  const exec = (sql: string, ...params: unknown[]) => tx.$executeRawUnsafe(sql, ...params);
  const m = SEED_ROLLOUTS_PER_PREFIX;
  await exec(`SET LOCAL synchronous_commit = off`);
  await exec(`SET LOCAL work_mem = '256MB'`);
  if (ctx.skipForeignKeyChecks) await exec(`SET LOCAL session_replication_role = replica`);
  // Segmentation ids were written as idExpr(n): solutions lo..hi are one id range. The prefix of chunk i
  // continues from the chunk's start; the text ends where the last chunk ends.
  await exec(
    `CREATE TEMP TABLE _seed_r ON COMMIT DROP AS
     SELECT n, seg_id, prefix_length, cnt, answer, tokens, ${hx("m", 0)} AS h0, ${hx("m", 1)} AS h1,
       (${hx("m", 2)} % 1000000000)::int AS seed0
     FROM (
       SELECT substr(t."externalId", 6)::bigint AS n, c."segmentationId" AS seg_id, v."prefixLength" AS prefix_length, v."correctCount" AS cnt,
         p."referenceAnswer" AS answer, greatest(1, round((c.len - c."startOffset") / 4.0))::int AS tokens,
         md5('${ctx.seed}:r:' || t."externalId" || ':' || v."prefixLength") AS m
       FROM (
         SELECT "segmentationId", index, "startOffset", max("endOffset") OVER (PARTITION BY "segmentationId") AS len
         FROM "Chunk" WHERE "segmentationId" >= $2 AND "segmentationId" < $3
       ) c
       JOIN "ChunkValue" v ON v."runId" = $1 AND v."segmentationId" = c."segmentationId" AND v."prefixLength" = c.index
       JOIN "Segmentation" sg ON sg.id = c."segmentationId"
       JOIN "Solution" t ON t.id = sg."solutionId"
       JOIN "Problem" p ON p.id = t."problemId"
       WHERE v."rolloutCount" = ${m}
     ) x
     ORDER BY n, prefix_length`,
    ctx.annotateRunId,
    idPrefix(ctx, lo),
    idPrefix(ctx, hi + 1),
  );
  // Rows go in in (solution, prefix, sample) order, _seed_r's (the set-returning function expands each row in place),
  // so the primary key grows at its right edge.
  // Sample s of a prefix is correct when its rank (s·a + b) mod 16, a odd, is below the prefix's correct count.
  const sampleHash = `((h1 + s * 2654435761) % 4294967296)`;
  const wrongAnswer = `CASE WHEN answer ~ '^-?[0-9]+$' THEN (answer::bigint + 1 + (${sampleHash} >> 8) % 19)::text ELSE (1 + (${sampleHash} >> 8) % 40)::text END`;
  const inserted = await exec(
    `INSERT INTO "Rollout" ("runId", "segmentationId", "prefixLength", "sampleIndex", seed, text, "extractedAnswer", correct, "completionTokens", "createdAt")
     SELECT $1, seg_id, prefix_length, s, seed0 + s,
       CASE WHEN NOT ${ctx.rolloutText} THEN NULL
            WHEN correct THEN ${pick(ROLLOUT_OPENINGS, sampleHash)} || answer || '}$.'
            WHEN ${sampleHash} % 50 = 0 THEN ${sqlString(ROLLOUT_UNFINISHED)}
            ELSE ${pick(ROLLOUT_OPENINGS, sampleHash)} || ${wrongAnswer} || '}$.' END,
       CASE WHEN correct THEN answer WHEN ${sampleHash} % 50 = 0 THEN NULL ELSE ${wrongAnswer} END,
       correct, tokens, (now() AT TIME ZONE 'UTC')
     FROM (
       SELECT y.*, ((s * (1 + 2 * (h0 % 8)) + (h0 >> 3)) % ${m}) < cnt AS correct
       FROM (SELECT r.*, generate_series(0, ${m - 1}) AS s FROM _seed_r r) y
     ) x`,
    ctx.annotateRunId,
  );
  const [sums] = await tx.$queryRawUnsafe<Array<{ tokens: number }>>(`SELECT coalesce(sum(tokens), 0)::float8 * ${m} AS tokens FROM _seed_r`);
  totals.rollouts += inserted;
  totals.completionTokens += Number(sums!.tokens);
}
