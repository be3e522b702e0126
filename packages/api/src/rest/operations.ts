import { InputError, type Capability } from "@stepwiser/core";
import { RunStatus } from "@stepwiser/db";
import { RUN_KIND_NAMES } from "@stepwiser/jobs";
import { z } from "zod";
import { methodChangesState } from "../auth/caller";
import type { QueueServiceArgs } from "../services/args";
import { listDatasets } from "../services/dataset/list";
import { cancelRun } from "../services/run/cancel";
import { getRun } from "../services/run/get";
import { launchRun } from "../services/run/launch";
import { runLabelLines, runPredictionLines } from "../services/run/lines";
import { listRuns } from "../services/run/list";
import { resumeStoppedRun } from "../services/run/resume";
import { solutionChunks } from "../services/solution/chunks";
import { checkSolutionFilter, SOLUTION_SORTS } from "../services/solution/filters";
import { listDatasetSolutions } from "../services/solution/list";
import {
  datasetListSchema,
  labelLineSchema,
  launchRequestSchema,
  predictionLineSchema,
  runDetailSchema,
  runPageSchema,
  solutionChunksSchema,
  solutionPageSchema,
} from "./schemas";

/*
 * The REST API (`/api/v1/…`): one table of operations. Each names its method
 * and path, its inputs (path parameters, query parameters, JSON body) and its
 * answer as zod schemas, the capability a caller needs, and one call into the
 * services the tRPC procedures use. `handleRestRequest` serves the table and
 * `openApiDocument` describes it; neither knows any operation by name.
 */

type ParamsSchema = z.ZodObject;

/** What an operation's call gets: the services' arguments with its parsed inputs. */
export type RestCallArgs<P, Q, B> = QueueServiceArgs<{ params: P; query: Q; body: B }>;

export interface RestOperation {
  /** Unique, for the document (`operationId`) and the tests. */
  id: string;
  method: "GET" | "POST";
  /** Under /api/v1, with `{name}` path parameters. */
  path: string;
  summary: string;
  description?: string;
  tag: "runs" | "datasets" | "solutions";
  access: Capability;
  params?: ParamsSchema;
  query?: ParamsSchema;
  body?: z.ZodType;
  /** The success status. */
  status: 200 | 201;
  /** "json": one JSON body; "jsonl": JSON Lines (`application/x-ndjson`), `output` describing one line. */
  response: "json" | "jsonl";
  /** The name of the answer's (or line's) schema in the document's components. */
  outputName: string;
  output: z.ZodType;
  call(args: RestCallArgs<unknown, unknown, unknown>): Promise<unknown>;
}

/**
 * Whether an operation changes state, read from the table: every operation but
 * a GET does. A read-scoped API token is refused on these (403).
 */
export function operationChangesState(operation: Pick<RestOperation, "method">): boolean {
  return methodChangesState(operation.method);
}

/** Types an operation's call from its schemas; the table itself holds them untyped. */
type NoParams = z.ZodObject<Record<never, z.ZodType>>;

function operation<P extends ParamsSchema = NoParams, Q extends ParamsSchema = NoParams, B extends z.ZodType = z.ZodUndefined>(
  op: Omit<RestOperation, "params" | "query" | "body" | "call"> & {
    params?: P;
    query?: Q;
    body?: B;
    call(args: RestCallArgs<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>;
  },
): RestOperation {
  return op as RestOperation;
}

const idParam = z.strictObject({ id: z.string().min(1).describe("The id") });

/** Query parameters arrive as text: numbers and booleans are read from it, and an unknown parameter is refused by name. */
const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const queryBoolean = z.enum(["true", "false"]).transform((value) => value === "true");

const runPageQuery = z.strictObject({
  kind: z.enum(RUN_KIND_NAMES).optional(),
  status: z.enum(RunStatus).optional(),
  datasetId: z.string().min(1).optional(),
  search: z.string().trim().min(1).max(200).optional().describe("Part of the run's name, any case"),
  tag: z.string().trim().min(1).max(100).optional().describe("Runs carrying this tag (exactly as stored)"),
  model: z.string().trim().min(1).max(300).optional().describe("A model any of the run's endpoints served (policy, judge or segmenter), as snapshotted at launch"),
  limit: queryInt(1, 200).default(50).describe("Runs per page (1–200)"),
  offset: queryInt(0, 1_000_000).default(0).describe("Runs to skip (the previous page's nextOffset)"),
});

const solutionPageQuery = z
  .strictObject({
    page: queryInt(1, 100_000).default(1),
    pageSize: queryInt(1, 500).default(50).describe("Solutions per page (1–500)"),
    subset: z.string().min(1).optional(),
    generator: z.string().min(1).optional(),
    correct: queryBoolean.optional().describe("The final answer was graded correct (true) or wrong (false)"),
    hasError: queryBoolean.optional().describe("true: the source marks a first error; false: the source says error-free"),
    search: z.string().trim().max(200).optional().describe("Words (prefix-matched) in the problem or the solution, or an exact solution id"),
    annotateRunId: z.string().min(1).optional().describe("Annotate run whose per-solution stats (qMin, annotateFirstNegative) the rows carry and the Q filters read"),
    qMin: z.coerce.number().min(0).max(1).optional(),
    qMax: z.coerce.number().min(0).max(1).optional(),
    judgeRunId: z.string().min(1).optional().describe("Judge run whose majority verdicts the rows carry (judgeFirstNegative)"),
    judgeVerdict: z.enum(["flagged", "clean"]).optional(),
    disagreement: z.enum(["rules", "judge"]).optional(),
    sort: z.enum(SOLUTION_SORTS).default("position"),
    order: z.enum(["asc", "desc"]).default("asc"),
  })
  .superRefine(checkSolutionFilter);

export const REST_OPERATIONS: readonly RestOperation[] = [
  operation({
    id: "listRuns",
    method: "GET",
    path: "/runs",
    summary: "List runs, newest first",
    description: "Filtered by kind, status, dataset, name, tag and model (the Runs page's list); paged by limit and offset (follow nextOffset until it is null).",
    tag: "runs",
    access: "research.read",
    query: runPageQuery,
    status: 200,
    response: "json",
    outputName: "RunPage",
    output: runPageSchema,
    call: async (ctx) => {
      const { kind, status, limit, offset, ...filter } = ctx.input.query;
      const page = await listRuns({ ...ctx, input: { ...filter, kinds: kind && [kind], statuses: status && [status], sort: "createdAt", order: "desc", offset, limit } });
      return { items: page.runs, total: page.total, limit, offset, nextOffset: page.hasMore ? offset + limit : null };
    },
  }),
  operation({
    id: "getRun",
    method: "GET",
    path: "/runs/{id}",
    summary: "Get one run with its progress, configuration and summary",
    tag: "runs",
    access: "research.read",
    params: idParam,
    status: 200,
    response: "json",
    outputName: "RunDetail",
    output: runDetailSchema,
    call: (ctx) => getRun({ ...ctx, input: ctx.input.params }),
  }),
  operation({
    id: "launchRun",
    method: "POST",
    path: "/runs",
    summary: "Launch a run",
    description: "Creates the run and queues it for the workers; with offline true (annotate and judge), only creates it, for execution through an OpenAI batch file.",
    tag: "runs",
    access: "research.manage",
    body: launchRequestSchema,
    status: 201,
    response: "json",
    outputName: "RunDetail",
    output: runDetailSchema,
    call: async (ctx) => {
      const { runId } = await launchRun({ ...ctx, input: ctx.input.body }).catch((error: unknown) => {
        // The jobs layer names a field of the configuration by itself; in this body it sits under "config".
        const field = error instanceof InputError ? error.location.field : undefined;
        throw field && field !== "kind" ? new InputError((error as InputError).reason, { ...(error as InputError).location, field: `config.${field}` }) : error;
      });
      return getRun({ ...ctx, input: { id: runId } });
    },
  }),
  operation({
    id: "cancelRun",
    method: "POST",
    path: "/runs/{id}/cancel",
    summary: "Cancel a queued or running run",
    description: "The run stops taking new work and aborts its requests; it answers with the run, whose status turns cancelled once its workers have stopped. A run that has ended is refused (400).",
    tag: "runs",
    access: "research.manage",
    params: idParam,
    status: 200,
    response: "json",
    outputName: "RunDetail",
    output: runDetailSchema,
    call: async (ctx) => {
      await getRun({ ...ctx, input: ctx.input.params }); // a run that does not exist is a 404 here, as on every path naming one
      await cancelRun({ ...ctx, input: ctx.input.params });
      return getRun({ ...ctx, input: ctx.input.params });
    },
  }),
  operation({
    id: "resumeRun",
    method: "POST",
    path: "/runs/{id}/resume",
    summary: "Resume a cancelled or interrupted run",
    description: "Queues the run again; its done units are kept.",
    tag: "runs",
    access: "research.manage",
    params: idParam,
    status: 200,
    response: "json",
    outputName: "RunDetail",
    output: runDetailSchema,
    call: async (ctx) => {
      await getRun({ ...ctx, input: ctx.input.params });
      await resumeStoppedRun({ ...ctx, input: ctx.input.params });
      return getRun({ ...ctx, input: ctx.input.params });
    },
  }),
  operation({
    id: "getRunLabels",
    method: "GET",
    path: "/runs/{id}/labels",
    summary: "Download an annotate (or labelled import) run's chunk labels as JSON Lines",
    description:
      "One JSON object per line and chunk, solution by solution: Q-values, every stored label with its confidence, human ratings. The same lines the labels export writes, streamed. Other run kinds are refused (400, field id).",
    tag: "runs",
    access: "research.read",
    params: idParam,
    status: 200,
    response: "jsonl",
    outputName: "LabelLine",
    output: labelLineSchema,
    call: (ctx) => runLabelLines({ ...ctx, input: ctx.input.params }),
  }),
  operation({
    id: "getRunPredictions",
    method: "GET",
    path: "/runs/{id}/predictions",
    summary: "Download a judge or benchmark run's predictions as JSON Lines",
    description: "ProcessBench's format, one solution per line: {id, prediction}. The same lines the predictions export writes, streamed.",
    tag: "runs",
    access: "research.read",
    params: idParam,
    status: 200,
    response: "jsonl",
    outputName: "PredictionLine",
    output: predictionLineSchema,
    call: (ctx) => runPredictionLines({ ...ctx, input: ctx.input.params }),
  }),
  operation({
    id: "listDatasets",
    method: "GET",
    path: "/datasets",
    summary: "List datasets, newest first, with their solution and problem counts",
    tag: "datasets",
    access: "research.read",
    status: 200,
    response: "json",
    outputName: "DatasetList",
    output: datasetListSchema,
    call: async (ctx) => ({ items: await listDatasets(ctx) }),
  }),
  operation({
    id: "listSolutions",
    method: "GET",
    path: "/datasets/{id}/solutions",
    summary: "List one page of a dataset's solutions",
    description: "Filtered and sorted as the solutions list is; a filter on a run's stats needs that run (annotateRunId, judgeRunId).",
    tag: "solutions",
    access: "research.read",
    params: idParam,
    query: solutionPageQuery,
    status: 200,
    response: "json",
    outputName: "SolutionPage",
    output: solutionPageSchema,
    call: (ctx) => listDatasetSolutions({ ...ctx, input: { ...ctx.input.query, datasetId: ctx.input.params.id } }),
  }),
  operation({
    id: "getSolutionChunks",
    method: "GET",
    path: "/solutions/{id}/chunks",
    summary: "Get a solution's chunks with every run's Q-values, labels and judge verdicts",
    tag: "solutions",
    access: "research.read",
    params: idParam,
    status: 200,
    response: "json",
    outputName: "SolutionChunks",
    output: solutionChunksSchema,
    call: (ctx) => solutionChunks({ ...ctx, input: ctx.input.params }),
  }),
];
