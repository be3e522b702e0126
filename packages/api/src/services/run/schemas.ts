import { RUN_HANDLERS } from "@stepwiser/jobs";
import { z } from "zod";
import { LAUNCHABLE_RUN_KINDS, type LaunchableRunKind } from "./launch";

export type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };

/** Properties the launch fills in itself: endpoint snapshots (found by their replica URLs). */
function isSnapshot(property: JsonSchema): boolean {
  return property.type === "object" && property.properties?.baseUrls !== undefined;
}

/**
 * The input JSON Schema of every launchable run kind's configuration, straight
 * from the zod schemas the worker validates with, so the launch form can never
 * drift from what a run accepts. Snapshot fields are left out: the server fills them.
 */
export function runConfigJsonSchema(kind: LaunchableRunKind) {
  const handler = RUN_HANDLERS.get(kind)!;
  const schema = z.toJSONSchema(handler.configSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([, property]) => !isSnapshot(property)));
  return { ...schema, properties, required: (schema.required ?? []).filter((name) => name in properties) };
}

/** Every launchable kind with its configuration's JSON Schema, for the launch form. */
export function launchableRunSchemas() {
  return LAUNCHABLE_RUN_KINDS.map((kind) => ({ kind, schema: runConfigJsonSchema(kind) }));
}
