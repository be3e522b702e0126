import { createHash, randomBytes } from "node:crypto";
import { chunksFromParagraphs, hasHumanWork, storedLabelRule, type ImportedRating, type ImportedSolution } from "@stepwiser/core";
import { humanWorkOfSolutions, mergeHumanWork, NO_HUMAN_WORK, type AuditImportSummary, type HumanWork, type Prisma } from "@stepwiser/db";
import { clearHumanWorkOfSolutions, replacingSolutions } from "../../human-work/guard";

type Tx = Prisma.TransactionClient;

/**
 * Ids for the rows of one import that increase in the order they are written:
 * every index keyed by them (and by the ids of parents, e.g. a chunk's
 * segmentation) then grows at one end instead of at random places, which
 * makes bulk inserts several times cheaper than with random ids. A random
 * prefix per import keeps them unique across imports and workers.
 */
export class SequentialIds {
  private readonly prefix = `i${randomBytes(6).toString("hex")}`;
  private next = 0;

  id(): string {
    return `${this.prefix}${(this.next++).toString(36).padStart(9, "0")}`;
  }

  /** Whether this import wrote the row with this id. */
  owns(id: string): boolean {
    return id.startsWith(this.prefix);
  }
}

/**
 * Problem ids for a batch's solutions: problems are shared by the solutions
 * that solve them, so each is looked up once per import, not once per batch.
 * A problem new to this import gets an id at once; its row is returned to be
 * written with the batch (`newRows`) when the dataset is this import's own, as
 * nobody else can add problems to a dataset that is invisible until the import
 * commits. In an existing dataset the problem may be stored already (from an
 * earlier import): it is inserted first, and one that was there is kept and its
 * id read back.
 */
async function problemIdsFor(tx: Tx, target: WriteTarget, solutions: readonly ImportedSolution[]): Promise<{ ids: Map<string, string>; newRows: TableRows | null }> {
  const known = target.problemIds;
  const missing = new Map<string, ImportedSolution>();
  for (const s of solutions) if (!known.has(s.problem) && !missing.has(s.problem)) missing.set(s.problem, s);
  if (missing.size === 0) return { ids: known, newRows: null };
  const rows = [...missing.values()].map((s) => ({ id: target.ids.id(), textHash: sha256(s.problem), text: s.problem, referenceAnswer: s.referenceAnswer }));
  const problems: TableRows = {
    table: "Problem",
    columns: [
      ["id", "text", rows.map((r) => r.id)],
      ["datasetId", "text", rows.map(() => target.datasetId)],
      ["textHash", "text", rows.map((r) => r.textHash)],
      ["text", "text", rows.map((r) => r.text)],
      ["referenceAnswer", "text", rows.map((r) => r.referenceAnswer)],
    ],
  };
  if (target.writtenInThisImport) {
    for (const row of rows) known.set(row.text, row.id);
    return { ids: known, newRows: problems };
  }
  // A problem already in the dataset is kept as it is; RETURNING names the rows this statement did write.
  const { sql, params } = insertStatement([{ ...problems, suffix: 'ON CONFLICT ("datasetId", "textHash") DO NOTHING RETURNING "textHash"' }]);
  const inserted = new Set((await tx.$queryRawUnsafe<Array<{ textHash: string }>>(sql, ...params)).map((r) => r.textHash));
  const kept = rows.filter((r) => !inserted.has(r.textHash));
  const stored = kept.length === 0 ? [] : await tx.problem.findMany({ where: { datasetId: target.datasetId, textHash: { in: kept.map((r) => r.textHash) } }, select: { id: true, textHash: true } });
  const storedIdByHash = new Map(stored.map((p) => [p.textHash, p.id]));
  for (const row of rows) known.set(row.text, inserted.has(row.textHash) ? row.id : storedIdByHash.get(row.textHash)!);
  return { ids: known, newRows: null };
}

export interface WriteTarget {
  datasetId: string;
  runId: string;
  segmentationMethod: string;
  duplicates: "skip" | "replace";
  /** Author of imported human ratings (see importedLabelsAuthor). */
  labelsAuthorId: string;
  ids: SequentialIds;
  /** Set when the import created the dataset: the ids and content hashes written so far. */
  writtenInThisImport: { ids: Set<string>; hashes: Set<string> } | null;
  /** Problem ids of this import by problem text, filled as problems are written. */
  problemIds: Map<string, string>;
  /** Replace only: delete the human work that replaced solutions hold instead of refusing the import. */
  deleteHumanLabels: boolean;
  /**
   * The human work of the stored solutions this import replaces: `deleted` so far (with deleteHumanLabels),
   * or, without it, what was found (`refused`): from then on nothing more is written, the rest of the file
   * is only searched for more, and the import fails at its end with all of it.
   */
  humanWork: { deleted: HumanWork; refused: HumanWork | null };
}

export function newHumanWorkLedger(): WriteTarget["humanWork"] {
  return { deleted: NO_HUMAN_WORK, refused: null };
}

/** What a batch of records wrote: the counts an import's summary (and its audit entry) adds up. */
export type BatchCounts = Pick<AuditImportSummary, "written" | "skipped" | "replaced" | "chunks" | "humanLabels" | "chunkLabels">;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** Imported hard labels were estimated by their source from each step's own completions (Math-Shepherd "hard" estimation). */
const IMPORTED_ABS_Q = storedLabelRule({ rule: "abs-q", evidence: "own-prefix" });

/** One table's rows of a batch, column by column. */
export interface TableRows {
  table: string;
  columns: Array<[name: string, type: string, values: unknown[]]>;
  /** Appended to the table's INSERT, e.g. an ON CONFLICT clause. */
  suffix?: string;
}

/**
 * A column's values as one PostgreSQL array literal, e.g. {"a","b",NULL}: sent
 * as a single text parameter, a column costs Prisma and the driver one string.
 * Passed as an array, every value would be converted one by one several times
 * over (Prisma maps each element, serialises the lot to JSON and parses it back
 * before the driver quotes each element), which took a second or two of this
 * process's time per 400,000 chunks. Inside double quotes only a backslash and
 * a double quote need escaping; the server parses the literal as the column's
 * array type, exactly as it parses the driver's own quoting of an array.
 */
function arrayLiteral(values: readonly unknown[]): string {
  // A plain loop with string concatenation: five times faster than map/join with template strings here.
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ",";
    const value = values[i];
    if (value === null || value === undefined) {
      literal += "NULL";
      continue;
    }
    const text = String(value);
    literal += text.includes('"') || text.includes("\\") ? `"${text.replace(/[\\"]/g, "\\$&")}"` : `"${text}"`;
  }
  return `${literal}}`;
}

/**
 * One INSERT statement for the rows of several tables. Each column is sent as
 * one array parameter and unnested by the server, and each table but the last
 * is a data-modifying WITH item, so a whole batch (problems, solutions,
 * segmentations, chunks, labels) costs one round trip however many rows it
 * holds, and the database never waits for this process between tables. Rows
 * may reference rows of the same statement: PostgreSQL checks foreign keys once
 * the statement has run, when every item has written its rows.
 */
export function insertStatement(tables: readonly TableRows[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const inserts = tables
    .filter(({ columns }) => columns[0]![2].length > 0)
    .map(({ table, columns, suffix = "" }) => {
      const names = columns.map(([name]) => `"${name}"`).join(", ");
      const arrays = columns.map(([, type, values]) => `$${params.push(arrayLiteral(values))}::${type}[]`).join(", ");
      return `INSERT INTO "${table}" (${names}) SELECT * FROM unnest(${arrays}) ${suffix}`;
    });
  const last = inserts.pop();
  if (last === undefined) return { sql: "", params };
  const items = inserts.map((insert, i) => `written${i} AS (${insert})`);
  return { sql: items.length > 0 ? `WITH ${items.join(", ")} ${last}` : last, params };
}

/**
 * Keeps, of a batch, the records to write: a record whose id or content hash is
 * already in the dataset (or earlier in the file: earlier batches are visible in
 * the same transaction) is skipped, or replaces what is stored.
 */
async function resolveDuplicates(
  tx: Tx,
  target: WriteTarget,
  batch: readonly ImportedSolution[],
): Promise<{ keep: ImportedSolution[]; skipped: number; replaced: number; sameContentRated: ImportedSolution[] }> {
  const written = target.writtenInThisImport;
  // A dataset this import created holds only what it wrote, so memory answers without a query.
  const mayBeStored = !written || batch.some((s) => written.ids.has(s.externalId) || written.hashes.has(s.contentHash));
  const stored = !mayBeStored ? [] : await tx.solution.findMany({
    where: {
      datasetId: target.datasetId,
      OR: [{ externalId: { in: batch.map((s) => s.externalId) } }, { contentHash: { in: batch.map((s) => s.contentHash) } }],
    },
    select: { id: true, externalId: true, contentHash: true },
  });
  const storedById = new Map(stored.map((t) => [t.externalId, t.id]));
  const storedByHash = new Map(stored.filter((t) => t.contentHash).map((t) => [t.contentHash!, t.id]));
  const keep = new Map<string, ImportedSolution>(); // by external id; within a batch the later record wins on replace
  const keptIdByHash = new Map<string, string>();
  const toDelete = new Set<string>();
  let skipped = 0;
  const sameContentRated: ImportedSolution[] = [];
  for (const solution of batch) {
    const storedIds = [storedById.get(solution.externalId), storedByHash.get(solution.contentHash)].filter((id): id is string => id !== undefined);
    const inBatch = keep.get(solution.externalId) ?? (keptIdByHash.has(solution.contentHash) ? keep.get(keptIdByHash.get(solution.contentHash)!) : undefined);
    if (target.duplicates === "skip") {
      if (storedIds.length > 0 || inBatch) {
        skipped += 1;
        const sameContent = storedByHash.has(solution.contentHash) || keptIdByHash.has(solution.contentHash);
        if (sameContent && solution.ratings?.some((r) => r.rating !== null || r.flagged)) sameContentRated.push(solution);
        continue;
      }
    } else {
      for (const id of storedIds) toDelete.add(id);
      if (inBatch) {
        keep.delete(inBatch.externalId);
        keptIdByHash.delete(inBatch.contentHash);
        skipped += 1; // the earlier copy in this file is dropped in favour of this one
      }
    }
    keep.set(solution.externalId, solution);
    keptIdByHash.set(solution.contentHash, solution.externalId);
  }
  if (toDelete.size > 0) await clearReplaced(tx, target, [...toDelete]);
  // A refused import writes nothing more; it fails once the whole file has been searched.
  if (target.humanWork.refused) return { keep: [], skipped, replaced: 0, sameContentRated: [] };
  if (toDelete.size > 0) await tx.solution.deleteMany({ where: { id: { in: [...toDelete] } } });
  if (written) {
    for (const s of keep.values()) {
      written.ids.add(s.externalId);
      written.hashes.add(s.contentHash);
    }
  }
  return { keep: [...keep.values()], skipped, replaced: toDelete.size, sameContentRated };
}

/**
 * Makes the solutions to replace deletable, or marks the import refused
 * (`target.humanWork.refused`). Human work on stored solutions is deleted only
 * with deleteHumanLabels. Solutions this import wrote itself (a record
 * repeated later in the file) carry only the labels the file gave them, which
 * go with them.
 */
async function clearReplaced(tx: Tx, target: WriteTarget, ids: readonly string[]): Promise<void> {
  const stored = ids.filter((id) => !target.ids.owns(id));
  const own = ids.filter((id) => target.ids.owns(id));
  const ledger = target.humanWork;
  if (ledger.refused || !target.deleteHumanLabels) {
    const work = await humanWorkOfSolutions(tx, stored);
    if (hasHumanWork(work)) ledger.refused = mergeHumanWork(ledger.refused ?? NO_HUMAN_WORK, work);
    if (ledger.refused) return;
  } else {
    const work = await clearHumanWorkOfSolutions(tx, stored, { deleteHumanLabels: true, action: replacingSolutions });
    ledger.deleted = mergeHumanWork(ledger.deleted, work);
  }
  if (own.length > 0) await clearHumanWorkOfSolutions(tx, own, { deleteHumanLabels: true, action: replacingSolutions });
}

/** Writes one batch of solutions: problems (shared by text), solutions, one segmentation each, chunks and the labels the file carried. */
export async function writeSolutions(tx: Tx, target: WriteTarget, batch: readonly ImportedSolution[]): Promise<BatchCounts> {
  const { keep, skipped, replaced, sameContentRated } = await resolveDuplicates(tx, target, batch);
  const counts: BatchCounts = { written: keep.length, skipped, replaced, chunks: 0, humanLabels: 0, chunkLabels: 0 };
  if (keep.length > 0) await writeNewSolutions(tx, target, keep, counts);
  if (sameContentRated.length > 0) counts.humanLabels += await addRatingsToStoredCopies(tx, target, sameContentRated);
  return counts;
}

/**
 * The same solution rated again (PRM800K has the same path labelled by several
 * people): the stored copy is kept and gains this labeller's ratings, unless
 * that labeller's imported ratings are already there (a file imported twice).
 */
async function addRatingsToStoredCopies(tx: Tx, target: WriteTarget, solutions: readonly ImportedSolution[]): Promise<number> {
  const stored = await tx.solution.findMany({
    where: { datasetId: target.datasetId, contentHash: { in: solutions.map((s) => s.contentHash) } },
    select: {
      contentHash: true,
      segmentations: {
        where: { method: target.segmentationMethod },
        select: { chunks: { orderBy: { index: "asc" }, select: { id: true, humanLabels: { where: { source: "imported" }, select: { externalAuthor: true } } } } },
      },
    },
  });
  const chunksByHash = new Map(stored.map((t) => [t.contentHash!, t.segmentations[0]?.chunks ?? []]));
  const rows: Prisma.HumanLabelCreateManyInput[] = [];
  for (const solution of solutions) {
    const chunks = chunksByHash.get(solution.contentHash);
    if (!chunks || chunks.length !== solution.steps.length) continue;
    solution.ratings!.forEach((rating, i) => {
      const chunk = chunks[i]!;
      if (rating.rating === null && !rating.flagged) return;
      if (chunk.humanLabels.some((l) => l.externalAuthor === rating.labeler)) return;
      chunk.humanLabels.push({ externalAuthor: rating.labeler });
      rows.push({
        chunkId: chunk.id,
        authorId: target.labelsAuthorId,
        rating: rating.rating,
        flagged: rating.flagged,
        externalAuthor: rating.labeler,
        source: "imported",
        note: importedRatingNote(rating),
      });
    });
  }
  if (rows.length > 0) await tx.humanLabel.createMany({ data: rows });
  return rows.length;
}

async function writeNewSolutions(tx: Tx, target: WriteTarget, keep: readonly ImportedSolution[], counts: BatchCounts): Promise<void> {
  const { ids: problemIds, newRows: newProblems } = await problemIdsFor(tx, target, keep);

  const solutions: unknown[][] = Array.from({ length: 12 }, () => []);
  const segmentations: unknown[][] = [[], [], [], []];
  const chunks: unknown[][] = [[], [], [], [], [], []];
  const humanLabels: unknown[][] = [[], [], [], [], [], [], [], []];
  const chunkLabels: unknown[][] = [[], [], [], [], [], []];
  const chunkValues: unknown[][] = [[], [], [], [], [], [], []];
  const push = (columns: unknown[][], ...values: unknown[]) => values.forEach((v, i) => columns[i]!.push(v));

  for (const s of keep) {
    const solutionId = target.ids.id();
    const segmentationId = target.ids.id();
    const located = chunksFromParagraphs(s.steps, s.separator);
    push(
      solutions,
      solutionId,
      target.datasetId,
      problemIds.get(s.problem)!,
      s.externalId,
      s.subset,
      s.generator,
      located.text,
      s.finalAnswer,
      s.finalAnswerCorrect,
      s.firstErrorIndex,
      JSON.stringify(s.metadata),
      s.contentHash,
    );
    push(segmentations, segmentationId, solutionId, target.segmentationMethod, target.runId);
    located.chunks.forEach((chunk, i) => {
      const chunkId = target.ids.id();
      push(chunks, chunkId, segmentationId, chunk.index, chunk.text, chunk.startOffset, chunk.endOffset);
      const rating = s.ratings?.[i];
      if (rating && (rating.rating !== null || rating.flagged)) {
        push(humanLabels, target.ids.id(), chunkId, target.labelsAuthorId, rating.rating, rating.flagged, rating.labeler, "imported", importedRatingNote(rating));
      }
      const hard = s.hardLabels?.[i];
      // Hard labels are Math-Shepherd's "hard estimation", which is Abs-Q (spec §2).
      if (hard) push(chunkLabels, target.ids.id(), chunkId, target.runId, hard, IMPORTED_ABS_Q.rule, IMPORTED_ABS_Q.paramsKey);
      const soft = s.softLabels?.[i];
      if (soft !== null && soft !== undefined) push(chunkValues, target.ids.id(), target.runId, segmentationId, i + 1, soft, 0, 0);
    });
  }

  const { sql, params } = insertStatement([
    ...(newProblems ? [newProblems] : []),
    {
      table: "Solution",
      columns: [
        ["id", "text", solutions[0]!],
        ["datasetId", "text", solutions[1]!],
        ["problemId", "text", solutions[2]!],
        ["externalId", "text", solutions[3]!],
        ["subset", "text", solutions[4]!],
        ["generator", "text", solutions[5]!],
        ["text", "text", solutions[6]!],
        ["finalAnswer", "text", solutions[7]!],
        ["finalAnswerCorrect", "boolean", solutions[8]!],
        ["sourceFirstErrorIndex", "int", solutions[9]!],
        ["metadata", "jsonb", solutions[10]!],
        ["contentHash", "text", solutions[11]!],
      ],
    },
    {
      table: "Segmentation",
      columns: [
        ["id", "text", segmentations[0]!],
        ["solutionId", "text", segmentations[1]!],
        ["method", "text", segmentations[2]!],
        ["runId", "text", segmentations[3]!],
      ],
    },
    {
      table: "Chunk",
      columns: [
        ["id", "text", chunks[0]!],
        ["segmentationId", "text", chunks[1]!],
        ["index", "int", chunks[2]!],
        ["text", "text", chunks[3]!],
        ["startOffset", "int", chunks[4]!],
        ["endOffset", "int", chunks[5]!],
      ],
    },
    {
      table: "HumanLabel",
      columns: [
        ["id", "text", humanLabels[0]!],
        ["chunkId", "text", humanLabels[1]!],
        ["authorId", "text", humanLabels[2]!],
        ["rating", "int", humanLabels[3]!],
        ["flagged", "boolean", humanLabels[4]!],
        ["externalAuthor", "text", humanLabels[5]!],
        ["source", "text", humanLabels[6]!],
        ["note", "text", humanLabels[7]!],
      ],
    },
    {
      table: "ChunkLabel",
      columns: [
        ["id", "text", chunkLabels[0]!],
        ["chunkId", "text", chunkLabels[1]!],
        ["runId", "text", chunkLabels[2]!],
        ["label", '"StepLabel"', chunkLabels[3]!],
        ["rule", '"LabelRule"', chunkLabels[4]!],
        ["paramsKey", "text", chunkLabels[5]!],
      ],
    },
    {
      table: "ChunkValue",
      columns: [
        ["id", "text", chunkValues[0]!],
        ["runId", "text", chunkValues[1]!],
        ["segmentationId", "text", chunkValues[2]!],
        ["prefixLength", "int", chunkValues[3]!],
        ["qValue", "double precision", chunkValues[4]!],
        // A soft label is the source's Q estimate; how many rollouts it came from is not in the file.
        ["rolloutCount", "int", chunkValues[5]!],
        ["correctCount", "int", chunkValues[6]!],
      ],
    },
  ]);
  if (sql) await tx.$executeRawUnsafe(sql, ...params);
  counts.chunks = chunks[0]!.length;
  counts.humanLabels = humanLabels[0]!.length;
  counts.chunkLabels = chunkLabels[0]!.length;
}

/** The note an imported rating carries: where a rated step came from when it is not a model's completion. */
export const HUMAN_COMPLETION_NOTE = "PRM800K human_completion: a step the labeller wrote (the README rates such steps +1)";

function importedRatingNote(rating: ImportedRating): string | null {
  return rating.source === "human_completion" ? HUMAN_COMPLETION_NOTE : null;
}
