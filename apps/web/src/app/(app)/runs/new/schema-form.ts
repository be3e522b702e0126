/**
 * Turns a run kind's JSON Schema (generated on the server from the zod schema
 * the worker validates with) into form fields, and form values back into a
 * configuration. Kept free of React so the conversion can be tested alone.
 */

export interface JsonSchemaProperty {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  items?: JsonSchemaProperty;
  properties?: Record<string, JsonSchemaProperty>;
}

export interface RunConfigSchema {
  properties: Record<string, JsonSchemaProperty>;
  required: string[];
}

import { SEGMENTATION_METHOD_IDS } from "@stepwiser/core";
import { confidenceDraft, confidenceFromDraft, rowsFromRules, rulesFromRows, type LabelConfidenceDraft, type LabelRuleRow } from "./label-editors";

export type FieldKind =
  | { kind: "dataset" }
  | { kind: "endpoint"; role: "policy" | "judge" | "segmenter" }
  /** Another run of the studio, chosen from a list (an annotate run a prior is fitted to). */
  | { kind: "run"; runKind: "annotate" }
  | { kind: "enum"; options: string[] }
  /** An annotate run's label rules, edited as rows. */
  | { kind: "labelRules" }
  /** An annotate run's label confidence options: the prior, its mixture parameters, ε. */
  | { kind: "labelConfidence" }
  | { kind: "boolean" }
  | { kind: "number"; integer: boolean; min?: number; max?: number }
  | { kind: "text" }
  | { kind: "lines" }
  | { kind: "json" };

/** What the server says of one field: its form label, a sentence or two of help, and whether it is folded under Advanced. */
export interface FieldHint {
  label: string;
  help: string;
  advanced?: boolean;
}

/** A field's value as the form holds it: text as typed, a checkbox, or a structured editor's rows. */
export type FieldValue = string | boolean | LabelRuleRow[] | LabelConfidenceDraft;

/** What cannot be read or is refused, at the field it belongs to (a dotted path: `labelRules.1.gamma`). */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface FormField {
  name: string;
  label: string;
  /** Shown under the control: what the field does and its default. */
  help?: string;
  required: boolean;
  control: FieldKind;
  /** Folded into the form's Advanced section (the hint says so). */
  advanced: boolean;
  /** The form's starting value: the schema default as the control shows it. */
  initial: FieldValue;
}

const ENDPOINT_ROLES = ["policy", "judge", "segmenter"] as const;
// JSON Schema writes "no bound" for integers as ±(2^53 - 1); a form shows no bound then.
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Free-text fields whose values are a known list: the segmentation methods. */
const SEGMENTATION_FIELDS = new Set(["segmentationMethod", "sourceMethod"]);

function controlFor(name: string, property: JsonSchemaProperty): FieldKind {
  if (name === "datasetId") return { kind: "dataset" };
  const role = ENDPOINT_ROLES.find((r) => name === `${r}Endpoint`);
  if (role) return { kind: "endpoint", role };
  if (name === "confidencePriorFromRun") return { kind: "run", runKind: "annotate" };
  if (name === "labelRules") return { kind: "labelRules" };
  if (name === "labelConfidence") return { kind: "labelConfidence" };
  if (property.enum) return { kind: "enum", options: property.enum.map(String) };
  if (SEGMENTATION_FIELDS.has(name) && property.type === "string") return { kind: "enum", options: [...SEGMENTATION_METHOD_IDS] };
  if (property.type === "boolean") return { kind: "boolean" };
  if (property.type === "integer" || property.type === "number") {
    const min = property.minimum ?? property.exclusiveMinimum;
    const max = property.maximum;
    return { kind: "number", integer: property.type === "integer", min: min !== undefined && Math.abs(min) < UNBOUNDED ? min : undefined, max: max !== undefined && max < UNBOUNDED ? max : undefined };
  }
  if (property.type === "string") return { kind: "text" };
  if (property.type === "array" && property.items?.type === "string") return { kind: "lines" };
  return { kind: "json" };
}

function initialFor(control: FieldKind, property: JsonSchemaProperty): FieldValue {
  const value = property.default;
  if (control.kind === "boolean") return value === true;
  if (control.kind === "labelRules") return rowsFromRules(value);
  if (control.kind === "labelConfidence") return confidenceDraft(value);
  if (value === undefined) return "";
  if (control.kind === "json") return JSON.stringify(value, null, 2);
  if (control.kind === "lines") return Array.isArray(value) ? value.join("\n") : "";
  return String(value);
}

/**
 * Form fields in schema order; constants (fixed prompt template ids) are not editable and stay out.
 * A field with a hint takes its label and help; one without is labelled from its name.
 */
export function formFields(schema: RunConfigSchema, hints: Readonly<Record<string, FieldHint>> = {}): FormField[] {
  return Object.entries(schema.properties)
    .filter(([, property]) => property.const === undefined)
    .map(([name, property]) => {
      const control = controlFor(name, property);
      const hint = Object.hasOwn(hints, name) ? hints[name] : undefined;
      return {
        name,
        label: hint?.label ?? humanize(name),
        ...(hint?.help ? { help: hint.help } : {}),
        required: schema.required.includes(name) && property.default === undefined,
        control,
        advanced: hint?.advanced === true,
        initial: initialFor(control, property),
      };
    });
}

export class FieldError extends Error {
  constructor(
    readonly field: string,
    /** What is wrong, without the field's name. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/**
 * The configuration to submit and every problem found reading it: empty optional fields
 * are left out so the server's defaults apply; a value that cannot be read (or a required
 * one left empty) is a problem naming its field. Ranges and cross-field rules are the
 * server's to check (`run.validate`), so the form never disagrees with it.
 */
export function readConfig(fields: FormField[], values: Record<string, FieldValue | undefined>): { config: Record<string, unknown>; problems: FieldProblem[] } {
  const config: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  for (const field of fields) {
    const value = values[field.name] ?? field.initial;
    if (field.control.kind === "boolean") {
      config[field.name] = value === true;
      continue;
    }
    // A structured editor left as the schema's default is left out too, so the server's defaults apply
    // (an untouched rule list takes the run's absQEvidence, as a config without labelRules does).
    if (field.control.kind === "labelRules") {
      const read = rulesFromRows(Array.isArray(value) ? value : [], field.name);
      const initial = rulesFromRows(Array.isArray(field.initial) ? field.initial : [], field.name);
      if (JSON.stringify(read.rules) !== JSON.stringify(initial.rules)) config[field.name] = read.rules;
      problems.push(...read.problems);
      continue;
    }
    if (field.control.kind === "labelConfidence") {
      const draftOf = (v: FieldValue) => (typeof v === "object" && !Array.isArray(v) ? v : confidenceDraft(undefined));
      const read = confidenceFromDraft(draftOf(value), field.name);
      if (JSON.stringify(read.options) !== JSON.stringify(confidenceFromDraft(draftOf(field.initial), field.name).options)) config[field.name] = read.options;
      problems.push(...read.problems);
      continue;
    }
    const text = String(value).trim();
    if (text === "") {
      if (field.required) problem(field.name, "is required");
      continue;
    }
    switch (field.control.kind) {
      case "number": {
        const number = Number(text);
        if (!Number.isFinite(number)) problem(field.name, `"${text}" is not a number`);
        else if (field.control.integer && !Number.isInteger(number)) problem(field.name, `${text} is not a whole number`);
        else config[field.name] = number;
        break;
      }
      case "lines":
        config[field.name] = text.split(/\s*[\n,]\s*/).filter(Boolean);
        break;
      case "json":
        try {
          config[field.name] = JSON.parse(text);
        } catch (error) {
          problem(field.name, `is not valid JSON (${(error as Error).message})`);
        }
        break;
      default:
        config[field.name] = text;
    }
  }
  return { config, problems };
}

/** `readConfig`'s configuration, throwing a FieldError for its first problem. */
export function configFromValues(fields: FormField[], values: Record<string, FieldValue | undefined>): Record<string, unknown> {
  const { config, problems } = readConfig(fields, values);
  if (problems.length > 0) throw new FieldError(problems[0]!.field, problems[0]!.message);
  return config;
}
