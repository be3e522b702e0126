import type { RouterOutputs } from "@stepwiser/api";
import type { ReactNode } from "react";

export type Candidates = RouterOutputs["compare"]["candidates"];
export type CandidateRun = Candidates["runs"][number];

/** The run's one-line name, or its id when it is not among the candidates. */
export function runLabel(candidates: Candidates, id: string): string {
  return candidates.runs.find((r) => r.id === id)?.label ?? id;
}

/** Numbers as picker options ("5", "10", "20"). */
export function numberOptions(values: readonly number[]): [string, string][] {
  return values.map((value) => [String(value), String(value)]);
}

export function Hint({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-500">{children}</p>;
}
