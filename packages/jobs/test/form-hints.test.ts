import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RUN_KINDS } from "../src/registry";

type JsonSchemaNode = { properties?: Record<string, unknown>; anyOf?: JsonSchemaNode[]; oneOf?: JsonSchemaNode[]; allOf?: JsonSchemaNode[] };

/** The top-level fields of a configuration: every branch's properties where the schema is a union. */
function topLevelFields(node: JsonSchemaNode): Set<string> {
  const fields = new Set(Object.keys(node.properties ?? {}));
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) for (const name of topLevelFields(branch)) fields.add(name);
  return fields;
}

describe("launch form hints", () => {
  for (const [name, kind] of Object.entries(RUN_KINDS)) {
    it(`${name}: a label and help for every configuration field, and for no other`, () => {
      const schema = z.toJSONSchema(kind.submitSchema as z.ZodType, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
      const fields = [...topLevelFields(schema)].sort();
      expect(fields.length).toBeGreaterThan(0);
      const hints: Readonly<Record<string, { label: string; help: string }>> = kind.formHints;
      expect(Object.keys(hints).sort()).toEqual(fields);
      for (const field of fields) {
        expect(hints[field]!.label.trim(), `${name}.${field} label`).not.toBe("");
        expect(hints[field]!.help.trim(), `${name}.${field} help`).not.toBe("");
      }
    });
  }
});
