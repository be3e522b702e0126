import type { EndpointRole } from "@stepwiser/db";
import type { EndpointSnapshot } from "../inference/endpoint-clients";
import type { RunEndpoint } from "../runs/run-kind";

/** The model a run names in its facts: the snapshot's, else the endpoint's name, else `fallback`. */
export function modelOf(snapshot: { model: string } | undefined, endpoint: string | undefined, fallback: string): string {
  return snapshot?.model ?? endpoint ?? fallback;
}

/** The endpoint a run's counters cover in `role`, when its config snapshotted one (a rule segmentation has none). */
export function usedEndpoint(role: EndpointRole, endpoint: EndpointSnapshot | null | undefined): RunEndpoint[] {
  return endpoint ? [{ role, endpoint }] : [];
}
