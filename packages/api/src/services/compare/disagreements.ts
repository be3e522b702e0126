import { DISAGREEMENT_KINDS, InputError, predictionDisagreements, type DisagreementKind } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { loadCommonGold, loadComparableRuns } from "./runs";

/**
 * Solutions two runs predict differently (on the gold they are compared on in
 * `checkpoints`), in file order, with who was right. `counts` splits the
 * subset / gold-position filtered list by kind before the kind filter applies.
 */
export async function compareDisagreements({ db, input }: ServiceArgs<{ runA: string; runB: string; subset?: string; goldFirstError?: "none" | "error" | number; kind?: DisagreementKind; cursor: number; limit: number }>) {
  if (input.runA === input.runB) throw new InputError("pick two different runs");
  const runs = await loadComparableRuns(db, [input.runA, input.runB]);
  const { gold, predictions } = await loadCommonGold(db, runs);
  const trajectoryOf = new Map(gold.map((g) => [g.id, g.trajectoryId]));
  const goldFilter = input.goldFirstError;
  const filtered = predictionDisagreements(gold, predictions.get(input.runA)!, predictions.get(input.runB)!).filter(
    (d) =>
      (input.subset === undefined || d.subset === input.subset) &&
      (goldFilter === undefined || (goldFilter === "none" ? d.gold === -1 : goldFilter === "error" ? d.gold >= 0 : d.gold === goldFilter)),
  );
  const counts = Object.fromEntries(DISAGREEMENT_KINDS.map((k) => [k, 0])) as Record<DisagreementKind, number>;
  for (const d of filtered) counts[d.kind] += 1;
  const matching = input.kind ? filtered.filter((d) => d.kind === input.kind) : filtered;
  const page = matching.slice(input.cursor, input.cursor + input.limit);
  const next = input.cursor + page.length;
  return {
    runA: runs[0]!,
    runB: runs[1]!,
    gold: gold.length,
    subsets: [...new Set(gold.map((g) => g.subset))].sort((a, b) => a.localeCompare(b)),
    counts,
    total: matching.length,
    items: page.map((d) => ({ trajectoryId: trajectoryOf.get(d.id)!, externalId: d.id, subset: d.subset, gold: d.gold, a: d.a, b: d.b, kind: d.kind })),
    nextCursor: next < matching.length ? next : null,
  };
}
