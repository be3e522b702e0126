import { cohensKappa, fleissKappaFromLabels } from "../stats/kappa";
import { firstErrorFromRatings, isHumanRating, type HumanRating } from "./human-label";
import type { AnnotationSchemeName } from "./submission";

/**
 * Inter-annotator agreement of one annotation queue, from its stored rows.
 *
 * Rating scheme: a unit is one chunk of one item, its category the rating as a
 * string ("-1", "0", "1"). First-error scheme: a unit is one item (a
 * solution), its category the picked chunk index as a string ("-1" = no
 * error), because the pick is the annotator's only decision; chunk ratings
 * derived from it would count one decision several times.
 *
 * Fleiss' κ needs the same number of raters on every unit (its formula assumes
 * it), so it is computed over the units rated by exactly `annotatorsPerItem`
 * people; Cohen's κ is computed per annotator pair over the units both rated.
 */

export interface AgreementItem {
  itemId: string;
  solutionId: string;
  externalId: string;
  position: number;
  adjudicated: boolean;
}

export interface AgreementAnnotator {
  id: string;
  name: string;
}

/** A stored human label of a submitted assignment; oldest first when createdAt ties. */
export interface AgreementLabelRow {
  itemId: string;
  chunkId: string;
  chunkIndex: number;
  annotatorId: string;
  rating: number | null;
  createdAt: Date;
  /** Adjudication rows are ignored: agreement is measured between annotators. */
  source?: string;
}

/** One submitted assignment: its first-error pick (first_error scheme; null if not recorded). */
export interface AgreementSubmission {
  itemId: string;
  annotatorId: string;
  firstErrorIndex: number | null;
}

export interface AnnotationAgreementInput {
  scheme: AnnotationSchemeName;
  annotatorsPerItem: number;
  items: readonly AgreementItem[];
  annotators: readonly AgreementAnnotator[];
  labels: readonly AgreementLabelRow[];
  submissions: readonly AgreementSubmission[];
}

export interface FleissAgreement {
  kappa: number;
  observedAgreement: number;
  expectedAgreement: number;
  /** Units rated by exactly `raters` annotators: the units the coefficient is computed over. */
  items: number;
  raters: number;
}

export interface PairAgreement {
  a: AgreementAnnotator;
  b: AgreementAnnotator;
  kappa: number;
  observedAgreement: number;
  expectedAgreement: number;
  /** Units both annotators rated. */
  items: number;
}

export interface AgreementDisagreement {
  itemId: string;
  solutionId: string;
  externalId: string;
  position: number;
  /** The chunk (rating scheme); null when the unit is the whole solution (first_error scheme). */
  chunkIndex: number | null;
  ratings: Array<{ annotatorId: string; name: string; rating: HumanRating | null; firstErrorIndex: number | null }>;
  adjudicated: boolean;
}

export interface AnnotationAgreement {
  scheme: AnnotationSchemeName;
  unit: "chunk" | "solution";
  /** Units with at least one rating. */
  ratedUnits: number;
  fleiss: FleissAgreement | null;
  cohen: PairAgreement[];
  disagreements: AgreementDisagreement[];
}

interface Unit {
  itemId: string;
  chunkIndex: number | null;
  /** annotatorId → category. */
  categories: Map<string, string>;
}

export function annotationAgreement(input: AnnotationAgreementInput): AnnotationAgreement {
  const itemsById = new Map(input.items.map((item) => [item.itemId, item]));
  const nameOf = new Map(input.annotators.map((a) => [a.id, a.name]));
  const annotator = (id: string): AgreementAnnotator => ({ id, name: nameOf.get(id) ?? id });

  // Each annotator's latest row per chunk: a resubmission after undo replaces the earlier rating.
  const latest = new Map<string, AgreementLabelRow>();
  for (const row of input.labels) {
    if (row.source === "adjudication" || !itemsById.has(row.itemId)) continue;
    const key = `${row.itemId}\u0000${row.chunkId}\u0000${row.annotatorId}`;
    const seen = latest.get(key);
    if (!seen || row.createdAt >= seen.createdAt) latest.set(key, row);
  }
  const rowsByItemAnnotator = new Map<string, AgreementLabelRow[]>();
  for (const row of latest.values()) {
    const key = `${row.itemId}\u0000${row.annotatorId}`;
    rowsByItemAnnotator.set(key, [...(rowsByItemAnnotator.get(key) ?? []), row]);
  }
  const pickOf = new Map<string, number | null>();
  for (const submission of input.submissions) {
    const key = `${submission.itemId}\u0000${submission.annotatorId}`;
    let pick = submission.firstErrorIndex;
    if (pick === null && rowsByItemAnnotator.has(key)) {
      const rows = [...rowsByItemAnnotator.get(key)!].sort((a, b) => a.chunkIndex - b.chunkIndex);
      const at = firstErrorFromRatings(rows.map((r) => (isHumanRating(r.rating) ? r.rating : null)));
      pick = at === -1 ? -1 : rows[at]!.chunkIndex;
    }
    pickOf.set(key, pick);
  }

  const units = new Map<string, Unit>();
  const unitFor = (itemId: string, chunkIndex: number | null) => {
    const key = `${itemId}\u0000${chunkIndex ?? "solution"}`;
    let unit = units.get(key);
    if (!unit) units.set(key, (unit = { itemId, chunkIndex, categories: new Map() }));
    return unit;
  };
  if (input.scheme === "rating") {
    for (const row of latest.values()) {
      if (row.rating === null) continue;
      unitFor(row.itemId, row.chunkIndex).categories.set(row.annotatorId, String(row.rating));
    }
  } else {
    for (const [key, pick] of pickOf) {
      if (pick === null) continue;
      const [itemId, annotatorId] = key.split("\u0000") as [string, string];
      if (!itemsById.has(itemId)) continue;
      unitFor(itemId, null).categories.set(annotatorId, String(pick));
    }
  }
  const rated = [...units.values()].filter((unit) => unit.categories.size > 0);
  const order = (a: Unit, b: Unit) =>
    itemsById.get(a.itemId)!.position - itemsById.get(b.itemId)!.position || (a.chunkIndex ?? -1) - (b.chunkIndex ?? -1);
  rated.sort(order);

  const k = input.annotatorsPerItem;
  const full = rated.filter((unit) => unit.categories.size === k);
  let fleiss: FleissAgreement | null = null;
  if (k >= 2 && full.length > 0) {
    const result = fleissKappaFromLabels(full.map((unit) => [...unit.categories.values()]));
    fleiss = { kappa: result.kappa, observedAgreement: result.observedAgreement, expectedAgreement: result.expectedAgreement, items: result.items, raters: result.raters };
  }

  const raterIds = [...new Set(rated.flatMap((unit) => [...unit.categories.keys()]))].map(annotator);
  raterIds.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const cohen: PairAgreement[] = [];
  for (let i = 0; i < raterIds.length; i++) {
    for (let j = i + 1; j < raterIds.length; j++) {
      const a = raterIds[i]!;
      const b = raterIds[j]!;
      const both = rated.filter((unit) => unit.categories.has(a.id) && unit.categories.has(b.id));
      if (both.length === 0) continue;
      const result = cohensKappa(
        both.map((unit) => unit.categories.get(a.id)!),
        both.map((unit) => unit.categories.get(b.id)!),
      );
      cohen.push({ a, b, kappa: result.kappa, observedAgreement: result.observedAgreement, expectedAgreement: result.expectedAgreement, items: result.items });
    }
  }

  const disagreements: AgreementDisagreement[] = rated
    .filter((unit) => new Set(unit.categories.values()).size > 1)
    .map((unit) => {
      const item = itemsById.get(unit.itemId)!;
      const ratings = [...unit.categories.entries()].map(([annotatorId, category]) => ({
        annotatorId,
        name: nameOf.get(annotatorId) ?? annotatorId,
        rating: unit.chunkIndex === null ? null : (Number(category) as HumanRating),
        firstErrorIndex: pickOf.get(`${unit.itemId}\u0000${annotatorId}`) ?? null,
      }));
      ratings.sort((x, y) => x.name.localeCompare(y.name) || x.annotatorId.localeCompare(y.annotatorId));
      return {
        itemId: item.itemId,
        solutionId: item.solutionId,
        externalId: item.externalId,
        position: item.position,
        chunkIndex: unit.chunkIndex,
        ratings,
        adjudicated: item.adjudicated,
      };
    });

  return { scheme: input.scheme, unit: input.scheme === "rating" ? "chunk" : "solution", ratedUnits: rated.length, fleiss, cohen, disagreements };
}
