import { z } from "zod";
import { InputError } from "../errors/input-error";
import { plainIssueMessages } from "./record-context";

/**
 * Where the generic JSONL reader finds each part of a solution in a record.
 * Every value is a dotted path into the record: `solution.steps`, `turns.0.text`
 * (a numeric part indexes an array), `completions.*.text` (a `*` part takes the
 * rest of the path in every item of an array, giving an array: the texts of a
 * list of {text, rating} objects). Keys holding a "." cannot be addressed, nor
 * a key named "*".
 */
export interface FieldMapping {
  problem: string;
  /** An array of step strings. Exactly one of `steps` and `text` is required. */
  steps?: string;
  /** One string, split into steps by `split`. */
  text?: string;
  /** How `text` is split; default "blank-line". */
  split?: TextSplit;
  /** The problem's reference (gold) answer. */
  answer?: string;
  /** An array with one label per step (null = unlabelled). */
  labels?: string;
  /** How `labels` are read; default "auto". */
  labelKind?: LabelKind;
  id?: string;
  generator?: string;
  subset?: string;
  /** Whether the solution's final answer is correct (boolean). */
  correct?: string;
  /** 0-based index of the first wrong step, -1 for none. */
  firstError?: string;
}

export const TEXT_SPLITS = ["blank-line", "step-markers", "lines"] as const;
export type TextSplit = (typeof TEXT_SPLITS)[number];

export const LABEL_KINDS = ["auto", "hard", "soft", "rating"] as const;
export type LabelKind = (typeof LABEL_KINDS)[number];

const FIELD_MAPPING_KEYS = [
  "problem",
  "steps",
  "text",
  "split",
  "answer",
  "labels",
  "labelKind",
  "id",
  "generator",
  "subset",
  "correct",
  "firstError",
] as const satisfies readonly (keyof FieldMapping)[];

const path = z
  .string()
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, { error: "must be a dotted path into the record, such as solution.steps" });

export const fieldMappingSchema: z.ZodType<FieldMapping> = z
  .strictObject({
    problem: path,
    steps: path.optional(),
    text: path.optional(),
    split: z.enum(TEXT_SPLITS).optional(),
    answer: path.optional(),
    labels: path.optional(),
    labelKind: z.enum(LABEL_KINDS).optional(),
    id: path.optional(),
    generator: path.optional(),
    subset: path.optional(),
    correct: path.optional(),
    firstError: path.optional(),
  })
  .superRefine((mapping, ctx) => {
    if ((mapping.steps === undefined) === (mapping.text === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: mapping.steps === undefined ? ["steps"] : ["text"],
        message:
          mapping.steps === undefined
            ? "map either steps (an array of step strings) or text (one string to split)"
            : "map steps or text, not both",
      });
    }
    if (mapping.split !== undefined && mapping.text === undefined) {
      ctx.addIssue({ code: "custom", path: ["split"], message: "applies only to text; steps are already split" });
    }
    if (mapping.labelKind !== undefined && mapping.labels === undefined) {
      ctx.addIssue({ code: "custom", path: ["labelKind"], message: "needs labels to be mapped too" });
    }
  });

const mappingError = (reason: string) => new InputError(reason, { field: "--map" });

/**
 * Reads the CLI form of a mapping: `problem=question,steps=solution.steps,labels=step_labels,labelKind=hard`.
 * Errors name the offending key.
 */
export function parseFieldMapping(spec: string): FieldMapping {
  const entries: Record<string, string> = {};
  for (const part of spec.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq === -1) throw mappingError(`"${entry}" is not key=value (for example problem=question)`);
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (!(FIELD_MAPPING_KEYS as readonly string[]).includes(key)) {
      throw mappingError(`unknown key "${key}" (known: ${FIELD_MAPPING_KEYS.join(", ")})`);
    }
    if (key in entries) throw mappingError(`key "${key}" is given twice`);
    if (value === "") throw mappingError(`key "${key}" has no value`);
    entries[key] = value;
  }
  if (Object.keys(entries).length === 0) throw mappingError("the mapping is empty (for example problem=question,steps=steps)");
  const result = fieldMappingSchema.safeParse(entries, { error: plainIssueMessages() });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = issue.path.map(String).join(".");
    throw mappingError(key ? `key "${key}": ${issue.message}` : issue.message);
  }
  return result.data;
}

/**
 * The value at a dotted path, or `found: false` when any part of the path is
 * absent. A `*` part maps the rest of the path over an array's items (absent
 * unless it is found in every item).
 */
export function valueAtPath(record: unknown, dotted: string): { found: true; value: unknown } | { found: false } {
  return valueAtParts(record, dotted.split("."));
}

function valueAtParts(record: unknown, parts: readonly string[]): { found: true; value: unknown } | { found: false } {
  let current: unknown = record;
  for (const [at, part] of parts.entries()) {
    if (part === "*") {
      if (!Array.isArray(current)) return { found: false };
      const rest = parts.slice(at + 1);
      const values: unknown[] = [];
      for (const item of current) {
        const found = valueAtParts(item, rest);
        if (!found.found) return found;
        values.push(found.value);
      }
      return { found: true, value: values };
    }
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(part) || Number(part) >= current.length) return { found: false };
      current = current[Number(part)];
    } else if (current !== null && typeof current === "object" && Object.hasOwn(current, part)) {
      current = (current as Record<string, unknown>)[part];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
