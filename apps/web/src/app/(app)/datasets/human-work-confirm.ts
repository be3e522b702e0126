import { describeHumanWorkCounts, hasHumanWork, type HumanWorkCounts } from "@stepwiser/core";

/*
 * What the import form shows when a replace import was refused for the human
 * work it would delete, without React: the work by place, and the statement
 * the user confirms before importing again with deleteHumanLabels.
 * Unit-tested in apps/web/test.
 */

export interface HumanWorkPlaceLine {
  key: string;
  /** e.g. `5 human labels and 2 annotation items in queue “audit-1”`. */
  text: string;
  /** The queue's or dataset's page. */
  href: string;
}

export interface HumanWorkConfirmation {
  places: HumanWorkPlaceLine[];
  /** The checkbox's text, with the totals. */
  statement: string;
  /** The button that imports again, deleting them. */
  action: string;
}

/** The confirmation for a refused import's counts (the failed run's `humanWorkRefused`), or null when there is nothing to confirm. */
export function humanWorkConfirmation(refused: HumanWorkCounts | null | undefined): HumanWorkConfirmation | null {
  if (!refused || !hasHumanWork(refused)) return null;
  const places = refused.places.map((place) => ({
    key: `${place.kind} ${place.id}`,
    text: `${describeHumanWorkCounts(place)} in ${place.kind} “${place.name}”`,
    href: place.kind === "queue" ? `/annotation-queues/${place.id}` : `/datasets/${place.id}`,
  }));
  const solutions = `${refused.solutions.toLocaleString("en-US")} replaced ${refused.solutions === 1 ? "solution" : "solutions"}`;
  return {
    places,
    statement: `Delete ${describeHumanWorkCounts(refused)} on ${solutions}. This cannot be undone; the audit log keeps the ids of every row deleted.`,
    action: "Import again, deleting them",
  };
}

/** A completed import's note on the human work it deleted at the user's request, or null when it deleted none. */
export function humanWorkDeletedText(deleted: HumanWorkCounts | null | undefined): string | null {
  return deleted && hasHumanWork(deleted) ? `deleted ${describeHumanWorkCounts(deleted)} on replaced solutions` : null;
}
