import type { SelectOption } from "~/components/ui";

interface SourceRun {
  id: string;
  kind: string | null;
  name: string;
  status: string;
  dataset: { name: string } | null;
}

/** How a source run reads in a picker: what it is, on which dataset, and whether it is still going. */
export function sourceRunText(run: SourceRun): string {
  return `${run.dataset?.name ?? "no dataset"} · ${run.name}${run.status === "completed" ? "" : ` · ${run.status.replaceAll("_", " ")}`}`;
}

/** A source run as a picker option, with what it is as data attributes (tests pick options by them). */
export function sourceRunOption(run: SourceRun): SelectOption {
  return { value: run.id, label: sourceRunText(run), "data-kind": run.kind ?? undefined, "data-status": run.status, "data-dataset": run.dataset?.name };
}
