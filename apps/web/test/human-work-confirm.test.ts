import type { HumanWorkCounts } from "@stepwiser/core";
import { describe, expect, it } from "vitest";
import { humanWorkConfirmation, humanWorkDeletedText } from "../src/app/(app)/datasets/human-work-confirm";
import { importSummaryText } from "../src/app/(app)/datasets/import-run-status";

const refused: HumanWorkCounts = {
  solutions: 3,
  humanLabels: 5,
  adjudications: 1,
  annotationItems: 2,
  assignments: 2,
  places: [
    { kind: "queue", id: "q1", name: "audit-1", humanLabels: 4, adjudications: 1, annotationItems: 2, assignments: 2 },
    { kind: "dataset", id: "d1", name: "gsm8k", humanLabels: 1, adjudications: 0, annotationItems: 0, assignments: 0 },
  ],
};

describe("the import form's confirmation before deleting human work", () => {
  it("states every count by place, linking each place, and the totals in the statement to tick", () => {
    expect(humanWorkConfirmation(refused)).toEqual({
      places: [
        { key: "queue q1", text: "4 human labels, 1 adjudication, 2 annotation items and 2 assignments in queue “audit-1”", href: "/annotation-queues/q1" },
        { key: "dataset d1", text: "1 human label in dataset “gsm8k”", href: "/datasets/d1" },
      ],
      statement:
        "Delete 5 human labels, 1 adjudication, 2 annotation items and 2 assignments on 3 replaced solutions. This cannot be undone; the audit log keeps the ids of every row deleted.",
      action: "Import again, deleting them",
    });
  });

  it("offers nothing for a run that was not refused for human work", () => {
    expect(humanWorkConfirmation(undefined)).toBeNull();
    expect(humanWorkConfirmation({ ...refused, humanLabels: 0, adjudications: 0, annotationItems: 0, assignments: 0, places: [] })).toBeNull();
  });

  it("a completed import's counts say what it deleted, and only when it deleted something", () => {
    const summary = { format: "jsonl", records: 3, written: 3, skipped: 0, replaced: 3, chunks: 6, humanLabels: 0, chunkLabels: 0 };
    expect(humanWorkDeletedText(refused)).toBe("deleted 5 human labels, 1 adjudication, 2 annotation items and 2 assignments on replaced solutions");
    expect(importSummaryText({ ...summary, humanWorkDeleted: { ...refused, humanLabels: 1, adjudications: 0, annotationItems: 0, assignments: 0 } })).toBe(
      "3 records · 3 written · 0 skipped · 3 replaced · 6 chunks · deleted 1 human label on replaced solutions",
    );
    expect(importSummaryText(summary)).toBe("3 records · 3 written · 0 skipped · 3 replaced · 6 chunks");
  });
});
