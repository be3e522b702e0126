export { Field, formControl as control } from "~/components/form-field";
export const primaryButton = "rounded bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50";

/** How a source run reads in a picker: what it is, on which dataset, and whether it is still going. */
export function sourceRunText(run: { name: string; status: string; dataset: { name: string } | null }): string {
  return `${run.dataset?.name ?? "no dataset"} · ${run.name}${run.status === "completed" ? "" : ` · ${run.status.replaceAll("_", " ")}`}`;
}
