import { UNIT_RUN_KINDS, type FieldHint } from "@stepwiser/jobs";
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
  const handler = UNIT_RUN_KINDS.get(kind)!;
  const schema = z.toJSONSchema(handler.submitSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([, property]) => !isSnapshot(property)));
  return { ...schema, properties, required: (schema.required ?? []).filter((name) => name in properties) };
}

/** The kind's label and help per field (its `formHints`), for the fields a schema shows. */
function hintsOf(kind: LaunchableRunKind, schema: JsonSchema): Record<string, FieldHint> {
  const properties = schema.properties ?? {};
  return Object.fromEntries(Object.entries(UNIT_RUN_KINDS.get(kind)!.formHints).filter(([name]) => name in properties));
}

/** Every launchable kind with its configuration's JSON Schema and its fields' labels and help, for the launch form. */
export function launchableRunSchemas() {
  return LAUNCHABLE_RUN_KINDS.map((kind) => {
    const schema = runConfigJsonSchema(kind);
    return { kind, schema, hints: hintsOf(kind, schema) };
  });
}
