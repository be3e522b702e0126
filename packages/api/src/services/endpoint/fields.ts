import type { AuditEndpointSnapshot, Prisma } from "@stepwiser/db";
import { JUDGE_PROTOCOL_IDS, tokenPriceSchema } from "@stepwiser/core";
import { ENDPOINT_ROLES, SERVER_KIND_SETTINGS } from "@stepwiser/inference";
import { z } from "zod";

/**
 * One replica's OpenAI base URL, normally ending in /v1 (vLLM, SGLang), stored
 * without trailing slashes. Base URLs are shown to every viewer, so a URL may not
 * carry credentials or a query string: the key belongs in the API key field.
 */
export const baseUrlSchema = z
  .string()
  .trim()
  .min(1, "an empty line is not a URL")
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: `"${raw}" is not a URL; expected e.g. http://gpu-node-1:8000/v1` });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: `"${raw}" must be an http(s) URL` });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: "must not contain a user name or password; put the key in the API key field" });
      return z.NEVER;
    }
    if (url.search || url.hash) {
      ctx.addIssue({ code: "custom", message: "must not contain a query string or fragment" });
      return z.NEVER;
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  });

/** The judge protocols an endpoint declares; a run whose protocol is not among them is refused at launch. */
export const protocolsSchema = z
  .array(z.enum(JUDGE_PROTOCOL_IDS, { error: (issue) => `"${String(issue.input)}" is not a judge protocol; expected one of ${JUDGE_PROTOCOL_IDS.join(", ")}` }))
  .min(1, "needs at least one protocol the server speaks")
  .refine((ids) => new Set(ids).size === ids.length, "lists the same protocol twice");

export const endpointFields = {
  name: z.string().trim().min(1, "is required").max(100),
  /** One base URL per replica serving `model`. */
  baseUrls: z
    .array(baseUrlSchema)
    .min(1, "needs at least one replica URL")
    .max(256)
    .refine((urls) => new Set(urls).size === urls.length, "lists the same replica URL twice"),
  model: z.string().trim().min(1, "is required").max(300),
  role: z.enum(ENDPOINT_ROLES),
  /** Requests in flight per replica. */
  maxConcurrency: z.number().int().min(1).max(4096),
  /** Prices in USD per 1M tokens (absent: keep / none; null: none). Runs snapshot them at launch to state their cost. */
  promptPricePerMTokens: tokenPriceSchema.nullable().optional(),
  /** Cached prompt tokens; without it they cost the prompt price. */
  cachedPromptPricePerMTokens: tokenPriceSchema.nullable().optional(),
  completionPricePerMTokens: tokenPriceSchema.nullable().optional(),
  /** The judge protocols the server behind it speaks (absent on create: the chat prompts every chat model can be given). */
  protocols: protocolsSchema.optional(),
  /** The server behind it; absent on create: "auto" (asked from its model list). */
  serverKind: z
    .enum(SERVER_KIND_SETTINGS, { error: (issue) => `"${String(issue.input)}" is not a server kind; expected one of ${SERVER_KIND_SETTINGS.join(", ")}` })
    .optional(),
};

/** A key as typed: surrounding whitespace is never part of it; "" means no key. */
export const apiKeySchema = z.string().trim().max(4096);

/** What any signed-in user may see of an endpoint: everything but the key. */
export const publicEndpointSelect = {
  id: true,
  name: true,
  baseUrls: true,
  model: true,
  role: true,
  maxConcurrency: true,
  apiKey: true,
  promptPricePerMTokens: true,
  cachedPromptPricePerMTokens: true,
  completionPricePerMTokens: true,
  protocols: true,
  serverKind: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.EndpointSelect;

type EndpointRow = Prisma.EndpointGetPayload<{ select: typeof publicEndpointSelect }>;

/** Drops the key, keeping only whether one is stored. */
export function toPublicEndpoint({ apiKey, ...endpoint }: EndpointRow) {
  return { ...endpoint, hasApiKey: apiKey !== null && apiKey !== "" };
}

/** The audit log's picture of an endpoint: the key is only ever "[set]" or "[none]". */
export function auditSnapshot(
  endpoint: Pick<EndpointRow, "name" | "baseUrls" | "model" | "role" | "maxConcurrency" | "apiKey" | "promptPricePerMTokens" | "cachedPromptPricePerMTokens" | "completionPricePerMTokens" | "protocols" | "serverKind">,
): AuditEndpointSnapshot {
  return {
    name: endpoint.name,
    baseUrls: endpoint.baseUrls,
    model: endpoint.model,
    role: endpoint.role,
    maxConcurrency: endpoint.maxConcurrency,
    apiKey: endpoint.apiKey ? "[set]" : "[none]",
    promptPricePerMTokens: endpoint.promptPricePerMTokens,
    cachedPromptPricePerMTokens: endpoint.cachedPromptPricePerMTokens,
    completionPricePerMTokens: endpoint.completionPricePerMTokens,
    protocols: endpoint.protocols,
    serverKind: endpoint.serverKind,
  };
}

/** Prisma's unique-constraint violation (a concurrent create/rename won the race). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

export function nameTakenMessage(name: string): string {
  return `an endpoint named "${name}" already exists; pick another name or edit that endpoint`;
}
