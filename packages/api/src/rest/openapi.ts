import { rolesWith } from "@stepwiser/core";
import { z } from "zod";
import { LAUNCHABLE_RUN_KINDS } from "../services/run/launch";
import { runConfigJsonSchema } from "../services/run/schemas";
import { REST_PREFIX } from "./handler";
import { REST_OPERATIONS, type RestOperation } from "./operations";
import {
  errorSchema,
  EXPORT_REQUEST_KINDS,
  exportOptionNames,
  exportOptionsSchema,
  exportRequestSchema,
  importRequestSchema,
  launchRequestSchema,
  runListItemSchema,
  runSchema,
  type ExportRequestKind,
} from "./schemas";

type JsonSchema = Record<string, unknown>;

const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `chunk_reset` → `ChunkResetConfig`. */
const configSchemaName = (kind: string) => `${kind.replace(/(^|_)(\w)/g, (_m, _u: string, c: string) => c.toUpperCase())}Config`;

/** `segmentation-sft` → `SegmentationSftExportOptions`. */
const exportOptionsName = (kind: string) => `${kind.replace(/(^|-)(\w)/g, (_m, _u: string, c: string) => c.toUpperCase())}ExportOptions`;

/** A standalone JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) without the keywords that only a root document carries. */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/**
 * The named schemas: every operation's answer (or line), the request bodies
 * and the error body. Converted together through one registry, so a schema
 * that two others share is written once and referenced.
 */
function componentSchemas(operations: readonly RestOperation[]): Record<string, JsonSchema> {
  const output = z.registry<{ id: string }>();
  const add = (registry: typeof output, schema: z.ZodType, id: string) => {
    const known = registry.get(schema);
    if (known && known.id !== id) throw new Error(`one schema under two names: ${known.id} and ${id}`);
    if (!known) registry.add(schema, { id });
  };
  add(output, errorSchema, "Error");
  add(output, runSchema, "Run");
  add(output, runListItemSchema, "RunListItem");
  for (const operation of operations) {
    if (operation.response === "bytes") continue;
    if (!operation.output || !operation.outputName) throw new Error(`${operation.id}: a ${operation.response} answer needs output and outputName`);
    add(output, operation.output, operation.outputName);
  }
  const converted = z.toJSONSchema(output, { target: "draft-2020-12", io: "output", unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, JsonSchema> };
  const schemas = Object.fromEntries(
    Object.entries(converted.schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]),
  );
  // Request bodies are described as the caller writes them (defaults optional). A launch's
  // configuration is the kind's own schema, the one the launch form is built from.
  for (const kind of LAUNCHABLE_RUN_KINDS) {
    const { $schema: _s, ...config } = runConfigJsonSchema(kind) as JsonSchema;
    schemas[configSchemaName(kind)] = { ...config, description: `The configuration of a ${kind} run` };
  }
  schemas.LaunchRequest = {
    ...jsonSchemaOf(launchRequestSchema, "input"),
    oneOf: LAUNCHABLE_RUN_KINDS.map((kind) => ({
      properties: { kind: { const: kind }, config: componentRef(configSchemaName(kind)) },
    })),
  };
  schemas.ImportRequest = jsonSchemaOf(importRequestSchema, "input");
  // An export's options are the kind's own spec fields (the run it reads is runId, beside them).
  const withOptions = EXPORT_REQUEST_KINDS.filter((kind) => exportOptionNames(kind).length > 0);
  for (const kind of withOptions) {
    schemas[exportOptionsName(kind)] = { ...jsonSchemaOf(exportOptionsSchema(kind), "input"), description: `The options of a ${kind} export` };
  }
  const optionsOf = (kind: ExportRequestKind) => (withOptions.includes(kind) ? componentRef(exportOptionsName(kind)) : { type: "object", maxProperties: 0, description: "none" });
  schemas.ExportRequest = {
    ...jsonSchemaOf(exportRequestSchema, "input"),
    oneOf: EXPORT_REQUEST_KINDS.map((kind) => ({ properties: { kind: { const: kind }, options: optionsOf(kind) } })),
  };
  return schemas;
}

const BODY_NAMES = new Map<z.ZodType, string>([
  [launchRequestSchema, "LaunchRequest"],
  [importRequestSchema, "ImportRequest"],
  [exportRequestSchema, "ExportRequest"],
]);

function parametersOf(operation: RestOperation) {
  const parameters: JsonSchema[] = [];
  for (const [location, schema] of [["path", operation.params], ["query", operation.query]] as const) {
    if (!schema) continue;
    const object = jsonSchemaOf(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...propertySchema } = property;
      parameters.push({
        name,
        in: location,
        required: location === "path" || (object.required ?? []).includes(name),
        ...(typeof description === "string" ? { description } : {}),
        schema: propertySchema,
      });
    }
  }
  return parameters;
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: componentRef("Error") } } });

/** A raw body or answer: the bytes themselves, as OpenAPI 3.1 describes binary content. */
const BYTES_CONTENT = { "application/octet-stream": { schema: { description: "The file's raw bytes" } } };

function successOf(operation: RestOperation) {
  switch (operation.response) {
    case "bytes":
      return { description: "The file's bytes, streamed, with Content-Length and an attachment Content-Disposition naming the file", content: BYTES_CONTENT };
    case "jsonl":
      return {
        description: `JSON Lines: one ${operation.outputName} object per line (the schema describes one line)`,
        content: { "application/x-ndjson": { schema: componentRef(operation.outputName!) } },
      };
    case "json":
      return { description: operation.status === 201 ? "Created" : "OK", content: { "application/json": { schema: componentRef(operation.outputName!) } } };
  }
}

function responsesOf(operation: RestOperation) {
  const extra = Object.fromEntries((operation.refusals ?? []).map((refusal) => [String(refusal.status), errorResponse(refusal.description)]));
  return {
    [String(operation.status)]: successOf(operation),
    "400": errorResponse("Bad input: the message names what is wrong, `field` where"),
    "401": errorResponse("No caller: sign in, or send a valid API token"),
    "403": errorResponse(`The caller's role lacks ${operation.access}, or a cookie-authenticated write came from another site`),
    ...(operation.params ? { "404": errorResponse("What the path names does not exist") } : {}),
    ...(operation.method === "POST" ? { "409": errorResponse("The request clashes with the current state") } : {}),
    ...extra,
    "503": errorResponse("The database cannot be reached right now; try again"),
    default: errorResponse("Any other failure"),
  };
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the operations
 * table and its zod schemas (zod's JSON Schema output, draft 2020-12, is
 * OpenAPI 3.1's schema dialect). `serverUrl` is the app's public origin.
 */
export function openApiDocument(serverUrl?: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of REST_OPERATIONS) {
    const body = operation.body && operation.body !== "bytes" ? BODY_NAMES.get(operation.body) : undefined;
    if (operation.body && operation.body !== "bytes" && !body) throw new Error(`${operation.id}: its request body has no component name`);
    const requestBody =
      operation.body === "bytes"
        ? { requestBody: { required: true, description: "The file's raw bytes (not a form)", content: BYTES_CONTENT } }
        : body
          ? { requestBody: { required: true, content: { "application/json": { schema: componentRef(body) } } } }
          : {};
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = {
      operationId: operation.id,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      tags: [operation.tag],
      "x-capability": operation.access,
      "x-roles": rolesWith(operation.access),
      parameters: parametersOf(operation),
      ...requestBody,
      responses: responsesOf(operation),
    };
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "StepWiser Studio API",
      version: "1.0.0",
      description: [
        "Plain JSON over HTTP for scripts, beside the tRPC API the web app uses. Send an API token (Settings → API tokens) as `Authorization: Bearer sw_…`;",
        "the browser's session cookie works too. Each operation needs one capability (`x-capability`; the roles that have it in `x-roles`).",
        "Dates are ISO 8601 strings in UTC. Token counts, stored as 64-bit integers, are JSON numbers (exact below 2^53).",
        "Labels, predictions, import reports and human labels download as JSON Lines (`application/x-ndjson`): the operation's schema describes one line.",
        "Uploads send a file's raw bytes and file downloads answer with them (`application/octet-stream`), streamed either way.",
        "Every refusal answers `{\"error\": {\"code\", \"message\", \"field\"?}}` with the HTTP status of its code.",
      ].join(" "),
    },
    servers: [{ url: `${serverUrl ? serverUrl.replace(/\/$/, "") : ""}${REST_PREFIX}` }],
    security: [{ bearer: [] }, { session: [] }],
    tags: [
      { name: "runs", description: "Runs: list, launch, cancel, resume; labels and predictions" },
      { name: "datasets", description: "Datasets" },
      { name: "solutions", description: "A dataset's solutions and their chunks" },
      { name: "files", description: "Uploads to import and stored files to download (uploads, export outputs)" },
      { name: "imports", description: "Imports of uploaded files and their reports" },
      { name: "exports", description: "Export runs and the files they wrote" },
      { name: "endpoints", description: "The inference endpoints runs name" },
      { name: "annotation-queues", description: "Annotation queues: progress, agreement and human labels" },
    ],
    paths,
    components: {
      schemas: componentSchemas(REST_OPERATIONS),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API token (`sw_…`), created under Settings → API tokens; it acts as its owner" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token", description: "The web app's session cookie (`__Secure-` prefixed over HTTPS); writes must come from the app's origin" },
      },
    },
  };
}
