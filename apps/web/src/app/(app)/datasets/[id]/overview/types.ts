import type { RouterOutputs } from "@stepwiser/api";

export type DatasetOverview = RouterOutputs["dataset"]["overview"];

/** What every overview card receives: the one overview request's state. */
export interface OverviewState {
  overview: DatasetOverview | undefined;
  loading: boolean;
  error: unknown;
}
