import { InputError, type Capability } from "@stepwiser/core";
import { RunStatus } from "@stepwiser/db";
import { RUN_KIND_NAMES } from "@stepwiser/jobs";
import { z } from "zod";
import { methodChangesState } from "../auth/caller";
import { listVisibleQueues } from "../services/annotation-queue/list-queues";
import { queueLabelLines } from "../services/annotation-queue/export";
import { queueReadout } from "../services/annotation-queue/queue-read";
import type { QueueServiceArgs } from "../services/args";
import { listDatasets } from "../services/dataset/list";
import { listEndpoints } from "../services/endpoint/list";
import { completedExportFiles } from "../services/export/files";
import { startExport } from "../services/export/start";
import { importReportLinesOf, openStoredFile } from "../services/file/stored-file";
import { receiveUpload } from "../services/file/upload";
import { startImports } from "../services/import/start";
import { cancelRun } from "../services/run/cancel";
import { getRun } from "../services/run/get";
import { launchRun } from "../services/run/launch";
import { runLabelLines, runPredictionLines } from "../services/run/lines";
import { listRuns, RUN_LIST_SORTS } from "../services/run/list";
import { resumeStoppedRun } from "../services/run/resume";
import { solutionChunks } from "../services/solution/chunks";
import { checkSolutionFilter, SOLUTION_SORTS } from "../services/solution/filters";
import { listDatasetSolutions } from "../services/solution/list";
import {
  datasetListSchema,
  endpointListSchema,
  exportBodyField,
  exportFilesSchema,
  exportRequestSchema,
  humanLabelLineSchema,
  importReportLineSchema,
  importRequestSchema,
  importRunsSchema,
  labelLineSchema,
  launchRequestSchema,
  predictionLineSchema,
  queueDetailSchema,
  queueListSchema,
  runDetailSchema,
  runPageSchema,
  solutionChunksSchema,
  solutionPageSchema,
  uploadedFileSchema,
} from "./schemas";

/*
 * The REST API (`/api/v1/…`): one table of operations. Each names its method
 * and path, its inputs (path parameters, query parameters, a JSON body or a
 * raw "bytes" body) and its answer (JSON, JSON Lines or the bytes of a stored
 * file) as zod schemas, the capability a caller needs, and one call into the
 * services the tRPC procedures use. `handleRestRequest` serves the table and
 * `openApiDocument` describes it; neither knows any operation by name.
 */

type ParamsSchema = z.ZodObject;

/** A raw request body (`application/octet-stream`), handed to the operation unread: its service streams it to storage. */
export interface BytesBody {
  stream: ReadableStream<Uint8Array> | null;
  /** The Content-Length header as sent (null when absent). */
  contentLength: string | null;
  contentType: string | null;
  /** The upload cap (packages/api/src/request-limits): the service refuses the body once it passes this. */
  maxBytes: number;
}

/** A stored file to answer with, streamed (`openStoredFile`). */
export type BytesAnswer = Awaited<ReturnType<typeof openStoredFile>>;

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
  tag: "runs" | "datasets" | "solutions" | "files" | "imports" | "exports" | "endpoints" | "annotation-queues";
  access: Capability;
  params?: ParamsSchema;
  query?: ParamsSchema;
  /** A JSON body's schema, or "bytes": the raw body, streamed (a BytesBody). */
  body?: z.ZodType | "bytes";
  /** The success status. */
  status: 200 | 201;
  /**
   * "json": one JSON body; "jsonl": JSON Lines (`application/x-ndjson`), `output` describing one line;
   * "bytes": a stored file's bytes (`application/octet-stream`, the call answers a BytesAnswer), without `output`.
   */
  response: "json" | "jsonl" | "bytes";
  /** Refusals an operation answers beside the ones every operation may (400, 401, 403, 404 with a path parameter, 409 on a POST, 503). */
  refusals?: ReadonlyArray<{ status: 409 | 413 | 415; description: string }>;
  /** The name of the answer's (or line's) schema in the document's components; not for "bytes". */
  outputName?: string;
  output?: z.ZodType;
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
type BodyOf<B> = B extends "bytes" ? BytesBody : B extends z.ZodType ? z.output<B> : never;

function operation<P extends ParamsSchema = NoParams, Q extends ParamsSchema = NoParams, B extends z.ZodType | "bytes" = z.ZodUndefined>(
  op: Omit<RestOperation, "params" | "query" | "body" | "call"> & {
    params?: P;
    query?: Q;
    body?: B;
    call(args: RestCallArgs<z.output<P>, z.output<Q>, BodyOf<B>>): Promise<unknown>;
  },
): RestOperation {
  return op as RestOperation;
}

/**
 * The configuration's own field names in a refusal's reason, written as the
 * body holds them (`config.temperature`) where the reason uses them as fields:
 * before "is", a comparison or a number ("samples is 2 but temperature is 0 …;
 * set temperature > 0 … or samples 1"). Only keys the caller sent are touched.
 */
function qualifyConfigFields(reason: string, config: Record<string, unknown>): string {
  const keys = Object.keys(config).filter((key) => /^\w+$/.test(key));
  if (keys.length === 0) return reason;
  const asField = new RegExp(`(?<![\\w.])(${keys.join("|")})(?= (?:is |[<>]=? |=|\\d))`, "g");
  return reason.replace(asField, "config.$1");
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
  includeDataJobs: queryBoolean.default(false).describe("Also list data jobs (import and export runs); without it they are listed only when kind names one"),
  sort: z
    .enum(RUN_LIST_SORTS)
    .default("createdAt")
    .describe(
      "createdAt, name, tokens (prompt + generated), cost, status, duration (finished − started), averageF1 (ProcessBench-scored benchmark runs), prmscore (PRMBench-scored benchmark runs), negativeShare (judge runs: Negative among readable verdicts), labelBalance (annotate runs: Positive share under the first label rule), meanConfidence (annotate runs) or mcAgreement (judge runs: agreement with the Monte-Carlo labels of the latest annotate run before them, under its first label rule); runs without the figure come last in either order, ties newest first then by id",
    ),
  order: z.enum(["asc", "desc"]).default("desc").describe("Sort direction"),
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

/** An InputError of a service, with its field as the REST body names it. */
function relocated(error: unknown, field: (given: string | undefined) => string | undefined): unknown {
  if (!(error instanceof InputError)) return error;
  return new InputError(error.reason, { ...error.location, field: field(error.location.field) });
}

const NEW_OPERATIONS: readonly RestOperation[] = [
  operation({
    id: "listEndpoints",
    method: "GET",
    path: "/endpoints",
    summary: "List the inference endpoints runs can name",
    description: "Name, model, role, replica URLs, concurrency, judge protocols and prices of every endpoint; whether a key is stored, never the key.",
    tag: "endpoints",
    access: "research.read",
    status: 200,
    response: "json",
    outputName: "EndpointList",
    output: endpointListSchema,
    call: async (ctx) => ({
      endpoints: (await listEndpoints(ctx)).map(({ baseUrls, promptPricePerMTokens, cachedPromptPricePerMTokens, completionPricePerMTokens, ...endpoint }) => ({
        ...endpoint,
        urls: baseUrls,
        prices: { promptPerMTokens: promptPricePerMTokens, cachedPromptPerMTokens: cachedPromptPricePerMTokens, completionPerMTokens: completionPricePerMTokens },
      })),
    }),
  }),
  operation({
    id: "uploadFile",
    method: "POST",
    path: "/uploads",
    summary: "Upload a file to import",
    description:
      "The body is the file's raw bytes (application/octet-stream, not a form), stored as it streams in under the upload limit (8 GiB): a body over it (declared or counted) is refused with 413 and nothing is kept. Every import format but Parquet must be UTF-8 text; other content is refused with 415. The same upload as the web app's POST /api/uploads.",
    tag: "files",
    access: "research.manage",
    query: z.strictObject({ fileName: z.string().optional().describe("The file's name; stored as its safe base name (required)") }),
    body: "bytes",
    refusals: [
      { status: 413, description: "The file is larger than the upload limit (declared or counted); nothing is kept" },
      { status: 415, description: "The file is neither UTF-8 text nor a Parquet file; nothing is kept" },
    ],
    status: 201,
    response: "json",
    outputName: "UploadedFile",
    output: uploadedFileSchema,
    call: (ctx) => {
      const { stream, contentLength, contentType, maxBytes } = ctx.input.body;
      return receiveUpload({ ...ctx, input: { fileName: ctx.input.query.fileName ?? null, contentLength, contentType, maxBytes, body: stream } });
    },
  }),
  operation({
    id: "startImports",
    method: "POST",
    path: "/imports",
    summary: "Import uploaded files: one import run per file",
    description: "Every file is checked first, so a bad one queues nothing. Poll each run (GET /runs/{id}) until it has ended; its dataset is the run's datasetId, its report GET /imports/{id}/report.",
    tag: "imports",
    access: "research.manage",
    body: importRequestSchema,
    status: 201,
    response: "json",
    outputName: "ImportRuns",
    output: importRunsSchema,
    call: async (ctx) => {
      const { fileIds, options } = ctx.input.body;
      const { runIds } = await startImports({ ...ctx, input: { fileIds, options } }).catch((error: unknown) => {
        throw relocated(error, (field) => (field === "datasetName" ? "name" : field === "fileId" ? "fileIds" : field));
      });
      return { runs: await Promise.all(runIds.map((id) => getRun({ ...ctx, input: { id } }))) };
    },
  }),
  operation({
    id: "getImportReport",
    method: "GET",
    path: "/imports/{id}/report",
    summary: "Download an import run's report as JSON Lines",
    description: "One line per record left out of the import (invalid under onInvalid skip, or ignored), in file order; empty when none was.",
    tag: "imports",
    access: "research.read",
    params: idParam,
    status: 200,
    response: "jsonl",
    outputName: "ImportReportLine",
    output: importReportLineSchema,
    call: (ctx) => importReportLinesOf({ ...ctx, input: { runId: ctx.input.params.id } }),
  }),
  operation({
    id: "startExport",
    method: "POST",
    path: "/exports",
    summary: "Start an export run",
    description:
      "Checks the options and the run read, then queues an export run and answers with it. Poll it (GET /runs/{id}) until its status is completed, then list its files (GET /exports/{id}/files) and download them (GET /files/{id}).",
    tag: "exports",
    access: "research.manage",
    body: exportRequestSchema,
    status: 201,
    response: "json",
    outputName: "RunDetail",
    output: runDetailSchema,
    call: async (ctx) => {
      const { runId } = await startExport({ ...ctx, input: ctx.input.body }).catch((error: unknown) => {
        throw relocated(error, exportBodyField);
      });
      return getRun({ ...ctx, input: { id: runId } });
    },
  }),
  operation({
    id: "listExportFiles",
    method: "GET",
    path: "/exports/{id}/files",
    summary: "List the files a completed export run wrote",
    description: "Refused with 409 while the run is queued or running (and when it failed or was cancelled: it wrote nothing).",
    tag: "exports",
    access: "research.read",
    params: idParam,
    refusals: [{ status: 409, description: "The export run has not completed (queued or running), or it failed or was cancelled" }],
    status: 200,
    response: "json",
    outputName: "ExportFiles",
    output: exportFilesSchema,
    call: async (ctx) => ({
      files: (await completedExportFiles({ ...ctx, input: { runId: ctx.input.params.id } })).map((file) => ({ fileId: file.id, name: file.fileName, sizeBytes: file.sizeBytes, sha256: file.sha256 })),
    }),
  }),
  operation({
    id: "downloadFile",
    method: "GET",
    path: "/files/{id}",
    summary: "Download a stored file (an export's output or an upload)",
    description: "The file's bytes, streamed, with Content-Length and a Content-Disposition naming it. A file still being written is refused (409). The same file as the web app's GET /api/files/{id}.",
    tag: "files",
    access: "research.manage",
    params: idParam,
    refusals: [{ status: 409, description: "The file is still being written (its export run has not finished)" }],
    status: 200,
    response: "bytes",
    call: (ctx) => openStoredFile({ ...ctx, input: ctx.input.params }),
  }),
  operation({
    id: "listAnnotationQueues",
    method: "GET",
    path: "/annotation-queues",
    summary: "List the annotation queues the caller may see, with progress",
    description: "Newest first, archived ones too (archivedAt). An annotator sees the queues they are a member of, without dataset names.",
    tag: "annotation-queues",
    access: "annotationQueues.view",
    status: 200,
    response: "json",
    outputName: "QueueList",
    output: queueListSchema,
    call: async (ctx) => ({
      queues: (await listVisibleQueues({ ...ctx, input: {} })).map(({ items, completedItems, adjudicatedItems, submissions, mySubmitted, ...queue }) => ({
        id: queue.id,
        name: queue.name,
        datasetId: queue.datasetId,
        datasetName: queue.datasetName,
        scheme: queue.scheme,
        blind: queue.blind,
        annotatorsPerItem: queue.annotatorsPerItem,
        items,
        progress: { completedItems, adjudicatedItems, submissions, mySubmitted, fraction: items > 0 ? completedItems / items : 0 },
        archivedAt: queue.archivedAt,
        createdAt: queue.createdAt,
      })),
    }),
  }),
  operation({
    id: "getAnnotationQueue",
    method: "GET",
    path: "/annotation-queues/{id}",
    summary: "Get one annotation queue: settings, progress per annotator and agreement",
    description: "An annotator sees only queues they are a member of (others: 404), only their own progress and no agreement (null).",
    tag: "annotation-queues",
    access: "annotationQueues.view",
    params: idParam,
    status: 200,
    response: "json",
    outputName: "QueueDetail",
    output: queueDetailSchema,
    call: (ctx) => queueReadout({ ...ctx, input: { queueId: ctx.input.params.id } }),
  }),
  operation({
    id: "getAnnotationQueueLabels",
    method: "GET",
    path: "/annotation-queues/{id}/labels",
    summary: "Download a queue's human labels as JSON Lines",
    description: "Every label row with its provenance (author, assignment, time, current or superseded), oldest first: the lines of the web app's label download, streamed.",
    tag: "annotation-queues",
    access: "annotationQueues.manage",
    params: idParam,
    status: 200,
    response: "jsonl",
    outputName: "HumanLabelLine",
    output: humanLabelLineSchema,
    call: (ctx) => queueLabelLines({ ...ctx, input: { queueId: ctx.input.params.id } }),
  }),
];

export const REST_OPERATIONS: readonly RestOperation[] = [
  operation({
    id: "listRuns",
    method: "GET",
    path: "/runs",
    summary: "List runs, newest first unless sorted otherwise",
    description:
      "Filtered by kind, status, dataset, name, tag and model (the Runs page's list), data jobs (imports, exports) left out unless includeDataJobs is true or kind names one; sorted on the server by sort and order; paged by limit and offset (follow nextOffset until it is null).",
    tag: "runs",
    access: "research.read",
    query: runPageQuery,
    status: 200,
    response: "json",
    outputName: "RunPage",
    output: runPageSchema,
    call: async (ctx) => {
      const { kind, status, limit, offset, ...filter } = ctx.input.query;
      const page = await listRuns({ ...ctx, input: { ...filter, kinds: kind && [kind], statuses: status && [status], offset, limit } });
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
        if (!field || field === "kind") throw error;
        const { reason, location } = error as InputError;
        throw new InputError(qualifyConfigFields(reason, ctx.input.body.config), { ...location, field: `config.${field}` });
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
  ...NEW_OPERATIONS,
];
