import {
  buildStepwiserJudgePrompt,
  InputError,
  labelRuleKey,
  describeStoredLabelRule,
  labelRuleParamsKey,
  storedLabelRuleName,
  toChatPrompt,
  type ChatMessage,
  type Label,
  type LabelRule,
} from "@stepwiser/core";
import { Prisma, type Db } from "@stepwiser/db";

/** Segmentations per query: each page loads their chunks, labels and problem in a few statements. */
export const SEGMENTATION_PAGE_SIZE = 500;

/** What every chunk of one solution shares; held once, so a prompt can be rendered when needed. */
interface SolutionContext {
  problem: string;
  /** Chunk texts in index order. */
  chunks: string[];
}

/**
 * One chunk labelled by the run, with where it comes from. The judge prompt is
 * rendered on demand rather than stored: every prompt repeats the chunks
 * before it, so holding all of them would take memory quadratic in solution
 * length, while the selection keeps only a fraction of the chunks.
 */
export class LabelledChunk {
  constructor(
    readonly label: Label,
    /** The label's stored confidence; null for imported labels and those stored without one. */
    readonly confidence: number | null,
    readonly chunkId: string,
    readonly chunkIndex: number,
    /** Position of the chunk in its solution's chunk list (equals chunkIndex unless indexes have gaps). */
    readonly position: number,
    readonly segmentationId: string,
    readonly solutionId: string,
    readonly externalId: string,
    readonly problemId: string,
    readonly datasetId: string,
    private readonly solution: SolutionContext,
  ) {}

  /** The StepWiser judge prompt for this chunk as chat messages. */
  messages(): ChatMessage[] {
    const chunks = this.solution.chunks;
    const rendered = buildStepwiserJudgePrompt({
      problem: this.solution.problem,
      previousChunks: chunks.slice(0, this.position),
      chunk: chunks[this.position]!,
    });
    return toChatPrompt(rendered).messages;
  }

  /** The problem statement of the chunk's solution. */
  get problem(): string {
    return this.solution.problem;
  }

  /** The chunk's own text. */
  get text(): string {
    return this.solution.chunks[this.position]!;
  }

  /** The rendered user message: what the length filter measures. */
  get prompt(): string {
    return this.messages()[0]!.content;
  }
}


/** Number of labels the run holds under the rule; an InputError when the run or those labels do not exist. */
export async function countRunLabels(db: Db, runId: string, rule: LabelRule): Promise<number> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true, kind: true } });
  if (!run) throw new InputError(`run ${runId} does not exist`, { field: "annotateRunId" });
  const where = { runId, rule: storedLabelRuleName(rule.rule), paramsKey: labelRuleParamsKey(rule) };
  const count = await db.chunkLabel.count({ where });
  if (count > 0) return count;
  const stored = await db.chunkLabel.groupBy({ by: ["rule", "paramsKey"], where: { runId }, _count: { _all: true }, orderBy: [{ rule: "asc" }, { paramsKey: "asc" }] });
  if (stored.length === 0) {
    throw new InputError(`run ${runId} (${run.kind}) has no chunk labels; choose an annotate run, or an import run that stored labels`, { field: "annotateRunId" });
  }
  const available = stored.map((row) => `${describeStoredLabelRule(row.rule, row.paramsKey)} (${row._count._all} chunks)`).join(", ");
  throw new InputError(`run ${runId} has no labels under ${labelRuleKey(rule)}; it has labels under: ${available}`, { field: "labelRule" });
}

/**
 * With `minConfidence` set, an InputError on it when none of the run's labels under the rule has a confidence
 * (an import run's labels, or an annotate run's stored before confidences existed and not relabelled): every row
 * would be left out, so the export could only be empty.
 */
export async function assertConfidencesStored(db: Db, runId: string, rule: LabelRule, minConfidence: number | undefined): Promise<void> {
  if (minConfidence === undefined) return;
  const rated = await db.chunkLabel.findFirst({
    where: { runId, rule: storedLabelRuleName(rule.rule), paramsKey: labelRuleParamsKey(rule), confidence: { not: null } },
    select: { id: true },
  });
  if (!rated) {
    throw new InputError(
      `run ${runId} stored no label confidence under ${labelRuleKey(rule)} (imported labels have none; an annotate run stored before confidences existed gets them from run relabel), so minConfidence would leave every row out`,
      { field: "minConfidence" },
    );
  }
}

/**
 * Every chunk the run labelled under the rule, ordered by segmentation id
 * (compared as JavaScript strings, not by the database's collation) and chunk
 * index, so a seeded selection over them is the same on any database.
 * Reads a page of segmentations at a time, each with all of its chunks, since a
 * prompt needs the chunks before the labelled one.
 */
export async function readLabelledChunks(
  db: Db,
  runId: string,
  rule: LabelRule,
  onPage?: (chunksRead: number) => void,
): Promise<LabelledChunk[]> {
  const dbRule = storedLabelRuleName(rule.rule);
  const paramsKey = labelRuleParamsKey(rule);
  // One pass over the run's labels for the list of solutions; paging the labels
  // themselves would split a solution's chunks across pages.
  const segmentationIds = await db.$queryRaw<Array<{ id: string }>>(Prisma.sql`
    SELECT DISTINCT c."segmentationId" AS id
    FROM "ChunkLabel" l JOIN "Chunk" c ON c.id = l."chunkId"
    WHERE l."runId" = ${runId} AND l.rule = CAST(${dbRule} AS "LabelRule") AND l."paramsKey" = ${paramsKey}`);
  const ordered = segmentationIds.map((row) => row.id).sort();
  const problems = new Map<string, string>();
  const out: LabelledChunk[] = [];
  for (let start = 0; start < ordered.length; start += SEGMENTATION_PAGE_SIZE) {
    const ids = ordered.slice(start, start + SEGMENTATION_PAGE_SIZE);
    const rows = await db.segmentation.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        solution: { select: { id: true, externalId: true, datasetId: true, problemId: true, problem: { select: { text: true } } } },
        chunks: {
          orderBy: { index: "asc" },
          select: { id: true, index: true, text: true, labels: { where: { runId, rule: dbRule, paramsKey }, select: { label: true, confidence: true } } },
        },
      },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    let read = 0;
    for (const id of ids) {
      const segmentation = byId.get(id);
      if (!segmentation) continue; // deleted since the ids were read
      const { solution: stored } = segmentation;
      // Solutions of one problem share its text instead of each holding a copy.
      let problem = problems.get(stored.problemId);
      if (problem === undefined) {
        problem = stored.problem.text;
        problems.set(stored.problemId, problem);
      }
      const solution: SolutionContext = { problem, chunks: segmentation.chunks.map((chunk) => chunk.text) };
      segmentation.chunks.forEach((chunk, position) => {
        const label = chunk.labels[0];
        if (label === undefined) return;
        read += 1;
        out.push(
          new LabelledChunk(label.label, label.confidence, chunk.id, chunk.index, position, segmentation.id, stored.id, stored.externalId, stored.problemId, stored.datasetId, solution),
        );
      });
    }
    onPage?.(read);
  }
  return out;
}
