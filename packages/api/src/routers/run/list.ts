import { RunStatus } from "@stepwiser/db";
import { RUN_KIND_NAMES } from "@stepwiser/jobs";
import { z } from "zod";
import { listRunsByPage, RUN_LIST_SORTS } from "../../services/run/list";
import { researchReadProcedure } from "../../trpc";

const day = z.iso.date("a date is written YYYY-MM-DD");

export const listRunsInput = z.object({
  datasetId: z.string().min(1).optional(),
  /** Part of the run's name, any case. */
  search: z.string().trim().max(200).optional(),
  kinds: z.array(z.enum(RUN_KIND_NAMES)).max(20).optional(),
  statuses: z.array(z.enum(RunStatus)).max(20).optional(),
  /** A model name any of the run's endpoints served (policy, judge or segmenter), as snapshotted at launch. */
  model: z.string().trim().min(1).max(300).optional(),
  /** Runs carrying this tag (exactly as stored). */
  tag: z.string().trim().min(1).max(100).optional(),
  createdById: z.string().min(1).optional(),
  /** First and last day (UTC) of creation, both included. */
  createdFrom: day.optional(),
  createdTo: day.optional(),
  /** Also imports and exports (data jobs); without it they are listed only where `kinds` names their kind. */
  includeDataJobs: z.boolean().default(false),
  /** A run's own column, its duration, or a result its kind ranks it by; runs without the figure come last either way. */
  sort: z.enum(RUN_LIST_SORTS).default("createdAt"),
  order: z.enum(["asc", "desc"]).default("desc"),
  page: z.number().int().min(1).max(100_000).default(1),
  pageSize: z.number().int().min(1).max(200).default(50),
});

/** One page of runs, filtered and sorted in the database, with progress, models, cost, duration and results; newest first unless sorted otherwise. */
export const list = researchReadProcedure.input(listRunsInput).query(({ ctx, input }) => listRunsByPage({ ...ctx, input }));
