import { ConflictError, describeHumanWork, hasHumanWork, type HumanWorkCounts } from "@stepwiser/core";
import { deleteHumanWork, humanWorkCounts, humanWorkOfSolutions, type HumanWork, type Prisma } from "@stepwiser/db";

/** How a refusal tells every surface to proceed: the CLI flag and the API's input field. */
export const DELETE_HUMAN_LABELS_HINT = "pass --delete-human-labels (deleteHumanLabels: true in the API) to delete them";

/**
 * A delete refused because it would remove human work. The message says how
 * much of each kind and where (queue or dataset, by name and id), e.g.
 * `replacing 3 solutions would delete 5 human labels and 2 annotation items in
 * queue "audit-1" (id q1); pass --delete-human-labels …`. A ConflictError, so
 * the API answers 409.
 */
export class HumanWorkRefusal extends ConflictError {
  readonly work: HumanWorkCounts;
  constructor(action: string, work: HumanWorkCounts, options: { file?: string } = {}) {
    super(`${options.file ? `${options.file}: ` : ""}${action} would delete ${describeHumanWork(work)}; ${DELETE_HUMAN_LABELS_HINT}`);
    this.work = humanWorkCounts(work);
  }
}

/** "replacing 3 solutions": what an import does to the solutions that hold the work. */
export function replacingSolutions(count: number): string {
  return `replacing ${count.toLocaleString("en-US")} ${count === 1 ? "solution" : "solutions"}`;
}

/**
 * The one check before solutions are deleted: with no human work on them it
 * returns nothing to audit; with some, it refuses (HumanWorkRefusal) unless
 * `deleteHumanLabels`, and then deletes that work first (the RESTRICT keys
 * would stop the solutions' delete otherwise) and returns it, ids included,
 * for the caller's audit entry. Run it in the transaction that deletes them.
 */
export async function clearHumanWorkOfSolutions(
  tx: Prisma.TransactionClient,
  solutionIds: readonly string[],
  options: { deleteHumanLabels: boolean; action: (solutions: number) => string; file?: string },
): Promise<HumanWork> {
  const work = await humanWorkOfSolutions(tx, solutionIds);
  if (!hasHumanWork(work)) return work;
  if (!options.deleteHumanLabels) throw new HumanWorkRefusal(options.action(work.solutions), work, { file: options.file });
  await deleteHumanWork(tx, work.ids);
  return work;
}
