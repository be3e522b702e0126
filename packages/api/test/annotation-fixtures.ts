import { randomUUID } from "node:crypto";
import { createRng, type UserRole } from "@stepwiser/core";
import type { Db, StepLabel, Verdict } from "@stepwiser/db";
import { appRouter } from "../src";
import type { SessionUser } from "../src/trpc";

/**
 * A small dataset built row by row for annotation-queue tests: solutions with a
 * "self-segmented" segmentation, a fake annotate run (Abs-Q and Rel-Ratio
 * labels, Q-values, per-solution stats) and a fake judge run (K verdicts per
 * chunk), all drawn from a seeded generator so every test sees the same world.
 */
export interface WorldSolution {
  id: string;
  externalId: string;
  createdAt: Date;
  sourceFirstErrorIndex: number;
  segmentationId: string;
  chunkIds: string[];
}

export interface AnnotationWorld {
  datasetId: string;
  annotateRunId: string;
  judgeRunId: string;
  /** Segmented solutions in file order (createdAt, id). */
  solutions: WorldSolution[];
  /** A solution with only a "blank-line" segmentation: never an item of a self-segmented queue. */
  unsegmentedId: string;
}

export const ABS_Q = { rule: "abs_q", paramsKey: '{"evidence":"own-prefix"}' } as const;
export const REL_RATIO = { rule: "rel_ratio", paramsKey: '{"gamma":0.7}' } as const;

export async function createAnnotationWorld(db: Db, options: { solutions: number; seed?: number; judgeSamples?: number; name?: string }): Promise<AnnotationWorld> {
  const rng = createRng(options.seed ?? 1);
  const samples = options.judgeSamples ?? 3;
  const dataset = await db.dataset.create({ data: { name: options.name ?? "annotation world", source: "test", status: "ready" } });
  const problem = await db.problem.create({ data: { datasetId: dataset.id, textHash: randomUUID(), text: "What is 2 + 3 * 4?", referenceAnswer: "14" } });
  const annotateRun = await db.run.create({
    data: {
      kind: "annotate",
      status: "completed",
      datasetId: dataset.id,
      config: { datasetId: dataset.id, policyEndpoint: "policy", segmentationMethod: "self-segmented", labelRules: [{ rule: "abs-q" }, { rule: "rel-ratio", gamma: 0.7 }] },
    },
  });
  const judgeRun = await db.run.create({
    data: { kind: "judge", status: "completed", datasetId: dataset.id, config: { datasetId: dataset.id, judgeEndpoint: "judge", segmentationMethod: "self-segmented", samples, temperature: 1, tiePolicy: "Negative" } },
  });
  const base = Date.UTC(2026, 0, 1);
  const solutions: WorldSolution[] = [];
  for (let i = 0; i < options.solutions; i++) {
    const chunkCount = 2 + (i % 3);
    const createdAt = new Date(base + i * 1000);
    const sourceFirstErrorIndex = rng.nextInt(2) === 0 ? -1 : rng.nextInt(chunkCount);
    const solution = await db.solution.create({
      data: {
        datasetId: dataset.id,
        problemId: problem.id,
        externalId: `sol-${String(i).padStart(3, "0")}`,
        generator: "test-policy",
        text: Array.from({ length: chunkCount }, (_, c) => `step ${c}`).join("\n"),
        finalAnswer: "14",
        finalAnswerCorrect: sourceFirstErrorIndex === -1,
        sourceFirstErrorIndex,
        createdAt,
      },
    });
    const segmentation = await db.segmentation.create({ data: { solutionId: solution.id, method: "self-segmented" } });
    const chunkIds: string[] = [];
    for (let c = 0; c < chunkCount; c++) {
      const chunk = await db.chunk.create({ data: { segmentationId: segmentation.id, index: c, text: `step ${c} of ${solution.externalId}`, startOffset: c * 7, endOffset: c * 7 + 6 } });
      chunkIds.push(chunk.id);
    }
    // Q after each chunk; Abs-Q: Negative from the first zero on. Rel-Ratio: Negative where Q fell below 0.7 of the previous.
    const q0 = 0.5 + rng.nextInt(5) / 10;
    const q = Array.from({ length: chunkCount }, () => rng.nextInt(5) / 4);
    const absQ: StepLabel[] = q.map((_, c) => (q.slice(c).some((v) => v > 0) ? "Positive" : "Negative"));
    const relRatio: StepLabel[] = q.map((v, c) => (v >= 0.7 * (c === 0 ? q0 : q[c - 1]!) ? "Positive" : "Negative"));
    await db.chunkValue.createMany({
      data: [q0, ...q].map((qValue, prefixLength) => ({ runId: annotateRun.id, segmentationId: segmentation.id, prefixLength, qValue, rolloutCount: 4, correctCount: Math.round(qValue * 4) })),
    });
    await db.chunkLabel.createMany({
      data: chunkIds.flatMap((chunkId, c) => [
        { chunkId, runId: annotateRun.id, ...ABS_Q, label: absQ[c]! },
        { chunkId, runId: annotateRun.id, ...REL_RATIO, label: relRatio[c]! },
      ]),
    });
    // Per chunk the judge mostly agrees with Abs-Q; sometimes it is split (a tie), sometimes wrong, sometimes unreadable.
    const verdicts: Verdict[][] = absQ.map((label) => {
      const opposite: Verdict = label === "Positive" ? "Negative" : "Positive";
      const roll = rng.nextInt(20);
      const all = (verdict: Verdict) => Array.from({ length: samples }, () => verdict);
      if (roll < 14) return all(label).map((v, k) => (k === 0 && rng.nextInt(8) === 0 ? "unparseable" : v));
      if (roll < 16) return all(opposite);
      if (roll < 19) return all(label).map((v, k) => (k % 2 === 1 ? opposite : v));
      return all("unparseable");
    });
    await db.judgeSample.createMany({
      data: chunkIds.flatMap((chunkId, c) =>
        verdicts[c]!.map((verdict, sampleIndex) => ({ runId: judgeRun.id, chunkId, sampleIndex, promptTemplateId: "test", rationale: `sample ${sampleIndex}`, verdict })),
      ),
    });
    const majority = verdicts.map((vs) => {
      const pos = vs.filter((v) => v === "Positive").length;
      const neg = vs.filter((v) => v === "Negative").length;
      return pos + neg === 0 ? "unparseable" : pos > neg ? "Positive" : "Negative";
    });
    await db.solutionRunStat.createMany({
      data: [
        { runId: annotateRun.id, solutionId: solution.id, datasetId: dataset.id, chunkCount, qMin: Math.min(...q), firstNegative: absQ.indexOf("Negative"), negativeCount: absQ.filter((l) => l === "Negative").length },
        { runId: judgeRun.id, solutionId: solution.id, datasetId: dataset.id, chunkCount, qMin: null, firstNegative: majority.indexOf("Negative"), negativeCount: majority.filter((l) => l === "Negative").length },
      ],
    });
    solutions.push({ id: solution.id, externalId: solution.externalId, createdAt, sourceFirstErrorIndex, segmentationId: segmentation.id, chunkIds });
  }
  const unsegmented = await db.solution.create({
    data: { datasetId: dataset.id, problemId: problem.id, externalId: "unsegmented", generator: "test-policy", text: "one\n\ntwo", sourceFirstErrorIndex: 0, finalAnswerCorrect: false, createdAt: new Date(base - 1000) },
  });
  await db.segmentation.create({ data: { solutionId: unsegmented.id, method: "blank-line", chunks: { create: [{ index: 0, text: "one", startOffset: 0, endOffset: 3 }] } } });
  await db.solutionRunStat.create({ data: { runId: annotateRun.id, solutionId: unsegmented.id, datasetId: dataset.id, chunkCount: 1, qMin: 0, firstNegative: 0, negativeCount: 1 } });
  solutions.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  return { datasetId: dataset.id, annotateRunId: annotateRun.id, judgeRunId: judgeRun.id, solutions, unsegmentedId: unsegmented.id };
}

export async function createUser(db: Db, role: UserRole, name: string): Promise<SessionUser> {
  return db.user.create({ data: { id: randomUUID(), name, email: `${name.toLowerCase()}@annotation.test`, role }, select: { id: true, name: true, email: true, role: true } });
}

export function callerFor(db: Db, user: SessionUser) {
  return appRouter.createCaller({
    db,
    getQueue: async () => {
      throw new Error("no job queue in annotation tests");
    },
    user,
  });
}

export type Caller = ReturnType<typeof callerFor>;

/** An annotator's caller, made a member (by the researcher, as the web app does) of the given queues. */
export async function memberAnnotator(db: Db, researcher: Caller, name: string, queueIds: readonly string[]): Promise<Caller> {
  const user = await createUser(db, "annotator", name);
  for (const queueId of queueIds) await researcher.annotationQueue.addMembers({ queueId, userIds: [user.id] });
  return callerFor(db, user);
}

/** A rating for every chunk of an assignment's item, `pick(index)` choosing each. */
export function rateAll(chunks: readonly { id: string; index: number }[], pick: (index: number) => -1 | 0 | 1) {
  return chunks.map((chunk) => ({ chunkId: chunk.id, rating: pick(chunk.index) }));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
