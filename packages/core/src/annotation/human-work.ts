/*
 * Human work: what people did in the product and cannot be computed again:
 * human labels (of every source), adjudications (the labels an adjudicator
 * wrote, source "adjudication"), annotation items and their assignments. A
 * delete that would remove some is refused unless asked for explicitly; these
 * are its counts and their wording, the same on every surface.
 */

/** Where human work lives: an annotation queue, or a dataset for human labels outside any queue. */
export interface HumanWorkPlace {
  kind: "queue" | "dataset";
  id: string;
  name: string;
  humanLabels: number;
  adjudications: number;
  annotationItems: number;
  assignments: number;
}

export interface HumanWorkCounts {
  /** Distinct solutions holding the work. */
  solutions: number;
  /** Human labels other than adjudications. */
  humanLabels: number;
  adjudications: number;
  annotationItems: number;
  assignments: number;
  /** By queue, then by dataset (labels outside queues), each in name order. */
  places: HumanWorkPlace[];
}

export function hasHumanWork(work: Pick<HumanWorkCounts, "humanLabels" | "adjudications" | "annotationItems" | "assignments">): boolean {
  return work.humanLabels + work.adjudications + work.annotationItems + work.assignments > 0;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "5 human labels, 1 adjudication and 2 annotation items": the non-zero counts, in that order. */
export function describeHumanWorkCounts(counts: Pick<HumanWorkPlace, "humanLabels" | "adjudications" | "annotationItems" | "assignments">): string {
  const parts = [
    counts.humanLabels > 0 ? plural(counts.humanLabels, "human label", "human labels") : null,
    counts.adjudications > 0 ? plural(counts.adjudications, "adjudication", "adjudications") : null,
    counts.annotationItems > 0 ? plural(counts.annotationItems, "annotation item", "annotation items") : null,
    counts.assignments > 0 ? plural(counts.assignments, "assignment", "assignments") : null,
  ].filter((part): part is string => part !== null);
  if (parts.length <= 1) return parts[0] ?? "nothing";
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/**
 * The work by place, e.g. `5 human labels and 2 annotation items in queue "audit-1" (id q1);
 * 1 human label in dataset "gsm8k" (id d1)`.
 */
export function describeHumanWork(work: HumanWorkCounts): string {
  return work.places.map((place) => `${describeHumanWorkCounts(place)} in ${place.kind} ${JSON.stringify(place.name)} (id ${place.id})`).join("; ");
}
