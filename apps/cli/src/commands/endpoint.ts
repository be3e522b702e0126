import {
  apiKeySchema,
  createEndpoint,
  deleteEndpoint,
  endpointFields,
  findEndpointByName,
  listEndpoints,
  testEndpoint,
  updateEndpoint,
} from "@stepwiser/api/services/endpoint";
import { actingUser } from "@stepwiser/api/services/user";
import { ConflictError, InputError, NotFoundError } from "@stepwiser/core";
import type { Db } from "@stepwiser/db";
import { z } from "zod";
import { withDatabase } from "../database";
import { UsageError } from "../usage-error";
import { parseFlags } from "../input/flags";

export const ENDPOINT_ACTIONS = ["list", "add", "update", "remove", "test"] as const;
type Action = (typeof ENDPOINT_ACTIONS)[number];

const USAGE = "endpoint list|add|update|remove|test …";

/** The flag that carries each field of the services' input, for messages. */
const FLAG_OF: Record<string, string> = {
  name: "--name",
  model: "--model",
  role: "--role",
  baseUrls: "--url",
  maxConcurrency: "--max-concurrency",
  apiKey: "--api-key-env",
  promptPricePerMTokens: "--prompt-price",
  cachedPromptPricePerMTokens: "--cached-prompt-price",
  completionPricePerMTokens: "--completion-price",
  protocols: "--protocol",
  serverKind: "--server",
};

/** Price flags (USD per 1M tokens) and the fields they set; "none" removes a price. */
const PRICE_FLAGS = {
  "prompt-price": "promptPricePerMTokens",
  "cached-prompt-price": "cachedPromptPricePerMTokens",
  "completion-price": "completionPricePerMTokens",
} as const;

const FIELD_OPTIONS = {
  name: { type: "string" },
  model: { type: "string" },
  role: { type: "string" },
  url: { type: "string", multiple: true },
  "max-concurrency": { type: "string" },
  "api-key-env": { type: "string" },
  "prompt-price": { type: "string" },
  "cached-prompt-price": { type: "string" },
  "completion-price": { type: "string" },
  protocol: { type: "string", multiple: true },
  server: { type: "string" },
} as const;

/**
 * `stepwiser endpoint list|add|update|remove|test`: the API's endpoint services on
 * the configured database (DATABASE_URL, else the embedded one). Changes are
 * recorded in the audit log as made by the first admin user (by creation date).
 * API keys are read from the environment variable --api-key-env names, and never printed.
 */
export async function endpointCommand(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  if (!ENDPOINT_ACTIONS.includes(verb as Action)) {
    throw new UsageError(verb ? `endpoint: unknown command "${verb}"\nusage: stepwiser ${USAGE}` : `endpoint needs a command\nusage: stepwiser ${USAGE}`);
  }
  const action = verb as Action;
  const { values, positionals } = parseFlags(`endpoint ${action}`, { args: rest, allowPositionals: true, options: action === "add" || action === "update" ? FIELD_OPTIONS : {} });
  const wantsName = action !== "list" && action !== "add";
  if (positionals.length > (wantsName ? 1 : 0)) throw new UsageError(`endpoint ${action}: unexpected argument "${positionals[wantsName ? 1 : 0]}"`);
  const name = positionals[0];
  if (wantsName && !name) throw new UsageError(`endpoint ${action} needs the endpoint's NAME\nusage: stepwiser endpoint ${action} NAME`);

  const fields = z.object(endpointFields);
  const input = action === "add" || action === "update" ? fieldInput(values as FieldValues) : {};

  await withDatabase(async (db) => {
    const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
    if (action === "list") return print(await listEndpoints({ db, user: await actingUser({ db }) }));
    if (action === "add") {
      const parsed = parseFields(fields.extend({ maxConcurrency: endpointFields.maxConcurrency.default(64), apiKey: apiKeySchema.optional() }), input);
      return print(await asInputError(async () => createEndpoint({ db, user: await actingUser({ db }), input: parsed })));
    }
    const endpointId = await idOf(db, name!);
    if (action === "update") {
      const parsed = parseFields(fields.partial().extend({ apiKey: apiKeySchema.optional() }), input);
      return print(await asInputError(async () => updateEndpoint({ db, user: await actingUser({ db }), input: { id: endpointId, ...parsed } })));
    }
    if (action === "remove") return print(await asInputError(async () => deleteEndpoint({ db, user: await actingUser({ db }), input: { id: endpointId } })));
    const result = await testEndpoint({ db, user: await actingUser({ db }), input: { id: endpointId, timeoutMs: 5_000 } });
    print(result);
    if (!result.ok) process.exitCode = 1;
  });
}

type FieldValues = { name?: string; model?: string; role?: string; url?: string[]; "max-concurrency"?: string; "api-key-env"?: string; protocol?: string[]; server?: string } & {
  [flag in keyof typeof PRICE_FLAGS]?: string;
};

/** The flags as the services' input fields (absent flags stay absent); the key comes from the environment. */
function fieldInput(values: FieldValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (values.name !== undefined) input.name = values.name;
  if (values.model !== undefined) input.model = values.model;
  if (values.role !== undefined) input.role = values.role;
  if (values.url !== undefined) input.baseUrls = values.url;
  if (values.server !== undefined) input.serverKind = values.server.trim();
  if (values.protocol !== undefined) input.protocols = values.protocol.flatMap((list) => list.split(",")).map((id) => id.trim());
  if (values["max-concurrency"] !== undefined) {
    const raw = values["max-concurrency"];
    if (!/^\s*\d+\s*$/.test(raw)) throw new InputError(`"${raw}" is not a whole number`, { field: "--max-concurrency" });
    input.maxConcurrency = Number(raw);
  }
  for (const [flag, field] of Object.entries(PRICE_FLAGS) as [keyof typeof PRICE_FLAGS, string][]) {
    const raw = values[flag];
    if (raw === undefined) continue;
    if (raw.trim() === "none") input[field] = null;
    else if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) input[field] = Number(raw);
    else throw new InputError(`"${raw}" is not a price; give USD per 1M tokens (e.g. 0.15), or "none" to remove it`, { field: `--${flag}` });
  }
  const envName = values["api-key-env"];
  if (envName !== undefined) {
    const key = process.env[envName];
    if (key === undefined) throw new InputError(`the environment variable ${envName} is not set`, { field: "--api-key-env" });
    input.apiKey = key;
  }
  return input;
}

function parseFields<T extends z.ZodType>(schema: T, input: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = String(issue.path[0] ?? "");
  const flag = FLAG_OF[key] ?? key;
  // Never echo a key: the issue's message may quote the value.
  const message = key === "apiKey" ? "the key in that variable is not valid (too long?)" : !(key in input) ? "is required" : issue.message;
  throw new InputError(message, { field: flag });
}

/** Conflicts and missing endpoints are bad input here: exit 2 with the flag or argument they concern. */
async function asInputError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConflictError) throw new InputError(error.message, { field: "--name" });
    if (error instanceof NotFoundError) throw new InputError(error.message, { field: "NAME" });
    throw error;
  }
}

async function idOf(db: Db, name: string): Promise<string> {
  const endpoint = await findEndpointByName({ db, input: { name } });
  if (!endpoint) throw new InputError(`no endpoint is named "${name}" (see \`stepwiser endpoint list\`)`, { field: "NAME" });
  return endpoint.id;
}

/**
 * The services act for a signed-in user and audit changes as theirs; the command
 * line acts as the first admin user (by creation date), as its help says.
 */
