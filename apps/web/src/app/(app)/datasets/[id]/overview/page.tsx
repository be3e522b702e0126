"use client";

import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { useTRPC } from "~/trpc/react";
import { FirstErrorCard } from "./first-error-card";
import { LabelBalanceCard } from "./label-balance-card";
import { LabelConfidenceCard } from "./label-confidence-card";
import { QValueCard } from "./q-value-card";
import { ChunkLengthCard, ChunksPerSolutionCard } from "./segmentation-cards";
import type { OverviewState } from "./types";

export default function DatasetOverviewPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const overview = useQuery(trpc.dataset.overview.queryOptions({ datasetId: id }));
  const state: OverviewState = { overview: overview.data, loading: overview.isPending, error: overview.error };

  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      <ChunksPerSolutionCard {...state} />
      <ChunkLengthCard {...state} />
      <QValueCard {...state} />
      <LabelBalanceCard {...state} />
      <LabelConfidenceCard {...state} />
      <FirstErrorCard {...state} />
    </div>
  );
}
