import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SessionUser } from "@stepwiser/api";
import { claimNextItem, createAnnotationQueue, defaultLabelRule, submitAssignment } from "@stepwiser/api/services/annotation-queue";
import { actingCreatorId } from "@stepwiser/api/services/user";
import { recordAudit, type AuditDemoRuns, type Db } from "@stepwiser/db";
import { DEMO_PROCESSBENCH_FILES } from "@stepwiser/db/local";
import { createSimWorldDataset, isTerminal, simWorldChunkTruth, submitProcessBenchImport, submitRun, type JobQueue } from "@stepwiser/jobs";

/**
 * The demo data of a first start: every page has something to show.
 *
 * `seedDemoData` runs once per database, before the worker starts: the
 * ProcessBench demo subsets (mode "1") and the simulated-world dataset with a
 * named annotate run, a benchmark pair (sim-judge-medium against
 * sim-judge-correlated) and two named judge runs of different strength (the pair
 * the Compare page opens on, submitted last so it is the newest). The runs execute in the background on the simulated
 * cluster. `completeDemoQueue` runs on every start after that and, once the
 * annotate run has finished, makes the demo annotation queue from its least
 * confident solutions (a blind queue) and submits the demo annotators' labels; it resumes
 * where it stopped, so a start interrupted midway finishes the queue next time.
 */

export const DEMO_MARKER_ACTION = "demo.seeded";
export const DEMO_QUEUE_MARKER_ACTION = "demo.queue_seeded";

/** STEPWISER_DEMO_DATA: "1" (default) ProcessBench subsets and the simulated world; "sim" only the latter; "0" nothing. */
export type DemoMode = "1" | "sim" | "0";

export function demoModeOf(value: string | undefined): DemoMode {
  const mode = value ?? "1";
  if (mode === "1" || mode === "sim" || mode === "0") return mode;
  throw new Error(`STEPWISER_DEMO_DATA must be 1, sim or 0 (got "${mode}")`);
}

export const DEMO_DATASET_NAME = "Simulated world (demo)";
/** The simulated world the demo dataset is drawn from: 24 solutions, two per problem. */
export const DEMO_WORLD = { problems: 12, solutionsPerProblem: 2, seed: 2025 } as const;
export const DEMO_QUEUE_NAME = "Demo: least confident Monte-Carlo labels";
/** Solutions in the demo queue, and how many of them each demo annotator has labelled. */
export const DEMO_QUEUE_ITEMS = 6;
export const DEMO_LABELLED_PER_ANNOTATOR = 4;

/** The demo's runs on the simulated world, as a researcher would name and tag them. Judges in submission order: the baseline first. */
export const DEMO_RUNS = {
  annotate: {
    name: "Demo: Monte-Carlo labels (sim-policy), M=8",
    tags: ["demo", "monte-carlo"],
    notes: "Eight `sim-policy` rollouts from every chunk of the simulated-world demo set. Its least confident labels are audited in the demo annotation queue.",
  },
  judges: [
    {
      endpoint: "sim-judge-weak",
      name: "Demo: weak judge (sim-judge-weak), K=3",
      tags: ["demo", "judge", "baseline"],
      notes: "`sim-judge-weak` (about 65% accurate per chunk, leans Positive), three votes per chunk at temperature 1. The baseline of the demo comparison.",
    },
    {
      endpoint: "sim-judge-strong",
      name: "Demo: strong judge (sim-judge-strong), K=3",
      tags: ["demo", "judge"],
      notes: "`sim-judge-strong` (about 95% accurate per chunk), three votes per chunk at temperature 1. Compare it with the weak judge on **Compare**.",
    },
  ],
  /** A ProcessBench-style benchmark pair on the same solutions (their gold is the world's true first error), submitted before the judges. */
  benchmarks: [
    {
      endpoint: "sim-judge-medium",
      name: "Demo benchmark: medium judge (sim-judge-medium), K=1",
      tags: ["demo", "benchmark", "baseline"],
      notes:
        "ProcessBench scoring (F1 of acc_err and acc_cor) of `sim-judge-medium`, one sample per chunk, against the simulated world's true first errors. The baseline of the demo benchmark pair.\n\n" +
        "Expect a low acc_cor: this simulated judge is right about 80 % of chunks, independently, and a correct solution counts only if every one of its chunks is judged Positive, so a correct solution of ten chunks comes through with none flagged only about one time in ten (0.79¹⁰ ≈ 0.1). The results show the figures its configuration predicts beside the measured ones; they describe the simulator, not a real judge.",
    },
    {
      endpoint: "sim-judge-correlated",
      name: "Demo benchmark: correlated judge (sim-judge-correlated), K=1",
      tags: ["demo", "benchmark"],
      notes: "`sim-judge-correlated` is as good as the medium judge on most chunks but systematically wrong about two kinds of chunk; select both benchmark runs on **Compare** to see where that shows.",
    },
  ],
} as const;

/**
 * The demo annotators: accounts without a password (no credential), so nobody
 * can sign in as them; they exist to have written the demo queue's labels.
 * Each labels like a careful person who sometimes slips: they give the
 * simulated world's true label of every chunk (+1 right, -1 wrong), and each
 * rating is flipped, independently, with their stated error rate. The flips
 * are seeded by annotator, solution and chunk, so every start writes the same labels.
 */
export const DEMO_ANNOTATORS = [
  { email: "demo-annotator-a@stepwiser.local", name: "Demo annotator A", errorRate: 0.1 },
  { email: "demo-annotator-b@stepwiser.local", name: "Demo annotator B", errorRate: 0.15 },
] as const;

type Rating = -1 | 1;

/** A uniform number in [0, 1) from the annotator, solution and chunk: the same every time. */
function seededUniform(...parts: Array<string | number>): number {
  return createHash("sha256").update(parts.join("\u0000")).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * A demo annotator's ratings of one solution's chunks: the world's truth
 * (`truth[i]`: chunk i is right), each flipped when the annotator's seeded
 * draw for that chunk falls below their error rate.
 */
export function demoRatings(truth: readonly boolean[], annotator: { email: string; errorRate: number }, solutionKey: string): Rating[] {
  return truth.map((right, index): Rating => {
    const slip = seededUniform(annotator.email, solutionKey, index) < annotator.errorRate;
    return right !== slip ? 1 : -1;
  });
}

/** Seeds the demo once per database and says what it queued; nothing on later starts or in mode "0". */
export async function seedDemoData(db: Db, queue: JobQueue, options: { mode: DemoMode; simulated: boolean }): Promise<string[]> {
  if (options.mode === "0") return [];
  // Seed once per database: deleting the demo datasets later must not bring them back.
  if (await db.auditLog.findFirst({ where: { action: DEMO_MARKER_ACTION }, select: { id: true } })) return [];
  const seeded: string[] = [];
  // The demo's imports and runs are the first admin's (made before the demo is seeded), so the Runs page names who made them.
  const createdById = (await actingCreatorId({ db })) ?? undefined;
  if (options.mode !== "sim") {
    for (const file of DEMO_PROCESSBENCH_FILES) {
      await submitProcessBenchImport(db, queue, {
        createdById,
        fileName: path.basename(file),
        content: await readFile(file),
        datasetName: `ProcessBench ${path.basename(file, ".json")} (demo)`,
      });
    }
    seeded.push(`${DEMO_PROCESSBENCH_FILES.length} ProcessBench imports`);
  }
  let runs: AuditDemoRuns | undefined;
  if (options.simulated) {
    const { datasetId } = await createSimWorldDataset(db, { name: DEMO_DATASET_NAME, ...DEMO_WORLD });
    const annotate = await submitRun(db, queue, {
      kind: "annotate",
      createdById,
      config: { datasetId, policyEndpoint: "sim-policy", rollouts: 8, strategy: "fixed" },
      name: DEMO_RUNS.annotate.name,
      notes: DEMO_RUNS.annotate.notes,
      tags: [...DEMO_RUNS.annotate.tags],
    });
    for (const benchmark of DEMO_RUNS.benchmarks) {
      await submitRun(db, queue, {
        kind: "benchmark",
        createdById,
        // The simulated world's solutions are segmented by the policy itself; ProcessBench imports by paragraph (the benchmark's default).
        config: { datasetId, judgeEndpoint: benchmark.endpoint, samples: 1, segmentationMethod: "self-segmented" },
        name: benchmark.name,
        notes: benchmark.notes,
        tags: [...benchmark.tags],
      });
    }
    const judgeRunIds: string[] = [];
    for (const judge of DEMO_RUNS.judges) {
      const run = await submitRun(db, queue, {
        kind: "judge",
        createdById,
        config: { datasetId, judgeEndpoint: judge.endpoint, samples: 3, temperature: 1 },
        name: judge.name,
        notes: judge.notes,
        tags: [...judge.tags],
      });
      judgeRunIds.push(run.id);
    }
    runs = { datasetId, annotateRunId: annotate.id, judgeRunIds };
    seeded.push("a simulated-world dataset with an annotate run, a benchmark pair and two judge runs (the demo annotation queue follows once the annotate run has finished)");
  }
  await recordAudit(db, null, { action: DEMO_MARKER_ACTION, entityType: "Database", entityId: "demo", ...(runs ? { after: runs } : {}) });
  return seeded;
}

/** The simulated-world runs the demo marker recorded; null when the demo had none (or predates the record). */
async function demoRuns(db: Db): Promise<AuditDemoRuns | null> {
  const marker = await db.auditLog.findFirst({ where: { action: DEMO_MARKER_ACTION }, orderBy: { createdAt: "asc" }, select: { after: true } });
  const after = marker?.after as Partial<AuditDemoRuns> | null | undefined;
  if (!after || typeof after.annotateRunId !== "string" || typeof after.datasetId !== "string" || !Array.isArray(after.judgeRunIds)) return null;
  return { datasetId: after.datasetId, annotateRunId: after.annotateRunId, judgeRunIds: after.judgeRunIds.filter((id): id is string => typeof id === "string") };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The demo annotators' accounts, made without a credential when missing. */
async function ensureDemoAnnotators(db: Db): Promise<Array<SessionUser & { errorRate: number }>> {
  const users: Array<SessionUser & { errorRate: number }> = [];
  for (const annotator of DEMO_ANNOTATORS) {
    let user = await db.user.findUnique({ where: { email: annotator.email }, select: { id: true, email: true, name: true, role: true } });
    if (!user) {
      const id = randomUUID();
      user = await db.$transaction(async (tx) => {
        const created = await tx.user.create({ data: { id, email: annotator.email, name: annotator.name, role: "annotator" }, select: { id: true, email: true, name: true, role: true } });
        await recordAudit(tx, null, { action: "user.created", entityType: "User", entityId: id, after: { email: created.email, role: created.role } });
        return created;
      });
    }
    users.push({ ...user, errorRate: annotator.errorRate });
  }
  return users;
}

export interface DemoQueueResult {
  queueId: string;
  items: number;
  submissions: number;
}

/**
 * Makes the demo annotation queue once the demo annotate run has finished, and
 * submits the demo annotators' labels in it (each labels the first
 * DEMO_LABELLED_PER_ANNOTATOR items, so the agreement panel has pairs to compare).
 * Waits for the run (polling every `pollMs`) until it ends or `signal` aborts;
 * null when there is nothing to do: already done, no simulated demo, the run
 * gone or not successful, no admin, or aborted. Safe to run on every start.
 */
export async function completeDemoQueue(
  db: Db,
  options: { pollMs?: number; signal?: AbortSignal; log?: (line: string) => void } = {},
): Promise<DemoQueueResult | null> {
  const { pollMs = 2000, signal, log = () => {} } = options;
  if (await db.auditLog.findFirst({ where: { action: DEMO_QUEUE_MARKER_ACTION }, select: { id: true } })) return null;
  const runs = await demoRuns(db);
  if (!runs) return null;

  let run = await db.run.findUnique({ where: { id: runs.annotateRunId }, select: { id: true, kind: true, status: true, config: true } });
  while (run && !isTerminal(run.status)) {
    if (signal?.aborted) return null;
    await sleep(pollMs, signal);
    run = await db.run.findUnique({ where: { id: runs.annotateRunId }, select: { id: true, kind: true, status: true, config: true } });
  }
  if (signal?.aborted) return null;
  if (!run || run.kind !== "annotate") return null;
  if (run.status !== "completed" && run.status !== "completed_with_failures") {
    log(`the demo annotate run ended ${run.status}; no demo annotation queue is made`);
    return null;
  }
  const admin = await db.user.findFirst({ where: { role: "admin" }, orderBy: { createdAt: "asc" }, select: { id: true, email: true, name: true, role: true } });
  if (!admin) return null;
  const annotators = await ensureDemoAnnotators(db);

  // A queue made by an earlier, interrupted start is finished rather than made twice.
  let queue = await db.annotationQueue.findFirst({ where: { name: DEMO_QUEUE_NAME, annotateRunId: run.id }, select: { id: true } });
  if (!queue) {
    const rule = await defaultLabelRule(db, { id: run.id, kind: "annotate", config: run.config });
    if (!rule) {
      log("the demo annotate run stored no labels; no demo annotation queue is made");
      return null;
    }
    const strongJudge = runs.judgeRunIds[runs.judgeRunIds.length - 1];
    const judgeRunId = strongJudge && (await db.run.findUnique({ where: { id: strongJudge }, select: { id: true } })) ? strongJudge : undefined;
    const created = await createAnnotationQueue({
      db,
      user: admin,
      input: {
        name: DEMO_QUEUE_NAME,
        instructions:
          "Rate every step: **+1** correct, **-1** wrong, **0** unsure or not judged. These are the demo annotate run's least confident solutions; two simulated demo annotators have labelled the first four.",
        scheme: "rating",
        annotatorsPerItem: 2,
        leaseSeconds: 600,
        blind: true,
        datasetId: runs.datasetId,
        judgeRunId,
        selection: { kind: "least-confident", annotateRunId: run.id, rule, count: DEMO_QUEUE_ITEMS },
        annotatorIds: annotators.map((annotator) => annotator.id),
      },
    });
    queue = { id: created.queueId };
  }

  let submissions = 0;
  for (const annotator of annotators) {
    const done = await db.annotationAssignment.count({ where: { annotatorId: annotator.id, status: "submitted", item: { queueId: queue.id } } });
    submissions += done;
    for (let n = done; n < DEMO_LABELLED_PER_ANNOTATOR; n++) {
      const view = await claimNextItem({ db, user: annotator, input: { queueId: queue.id } });
      if (!view) break;
      const chunks = [...view.chunks].sort((a, b) => a.index - b.index);
      const truth = simWorldChunkTruth(view.solution.problemText, chunks.map((chunk) => chunk.text));
      if (!truth) throw new Error(`demo solution ${view.solution.externalId} is not the simulated world's text; its true labels are unknown`);
      const ratings = demoRatings(truth, annotator, view.solution.externalId);
      await submitAssignment({
        db,
        user: annotator,
        input: { assignmentId: view.assignmentId, labels: chunks.map((chunk, i) => ({ chunkId: chunk.id, rating: ratings[i] ?? null })) },
      });
      submissions += 1;
    }
  }
  const items = await db.annotationItem.count({ where: { queueId: queue.id } });
  await recordAudit(db, null, {
    action: DEMO_QUEUE_MARKER_ACTION,
    entityType: "AnnotationQueue",
    entityId: queue.id,
    after: {
      items,
      annotators: annotators.map((annotator) => annotator.email),
      submissions,
      simulatedAnnotators: annotators.map((annotator) => ({ email: annotator.email, name: annotator.name, errorRate: annotator.errorRate })),
    },
  });
  return { queueId: queue.id, items, submissions };
}
