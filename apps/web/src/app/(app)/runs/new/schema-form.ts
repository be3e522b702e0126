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

export type FieldKind =
  | { kind: "dataset" }
  | { kind: "endpoint"; role: "policy" | "judge" | "segmenter" }
  | { kind: "enum"; options: string[] }
  | { kind: "boolean" }
  | { kind: "number"; integer: boolean; min?: number; max?: number }
  | { kind: "text" }
  | { kind: "lines" }
  | { kind: "json" };

/** What the server says of one field: its form label and a sentence or two of help. */
export interface FieldHint {
  label: string;
  help: string;
}

export interface FormField {
  name: string;
  label: string;
  /** Shown under the control: what the field does and its default. */
  help?: string;
  required: boolean;
  control: FieldKind;
  /** The form's starting value: the schema default as the control shows it. */
  initial: string | boolean;
}

const ENDPOINT_ROLES = ["policy", "judge", "segmenter"] as const;
// JSON Schema writes "no bound" for integers as ±(2^53 - 1); a form shows no bound then.
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function humanize(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function controlFor(name: string, property: JsonSchemaProperty): FieldKind {
  if (name === "datasetId") return { kind: "dataset" };
  const role = ENDPOINT_ROLES.find((r) => name === `${r}Endpoint`);
  if (role) return { kind: "endpoint", role };
  if (property.enum) return { kind: "enum", options: property.enum.map(String) };
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

function initialFor(control: FieldKind, property: JsonSchemaProperty): string | boolean {
  const value = property.default;
  if (control.kind === "boolean") return value === true;
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
        initial: initialFor(control, property),
      };
    });
}

export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/**
 * The configuration to submit: empty optional fields are left out so the
 * server's defaults apply; values that cannot be read name their field.
 */
export function configFromValues(fields: FormField[], values: Record<string, string | boolean>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name] ?? field.initial;
    if (field.control.kind === "boolean") {
      config[field.name] = value === true;
      continue;
    }
    const text = String(value).trim();
    if (text === "") {
      if (field.required) throw new FieldError(field.name, "is required");
      continue;
    }
    switch (field.control.kind) {
      case "number": {
        const number = Number(text);
        if (!Number.isFinite(number)) throw new FieldError(field.name, `"${text}" is not a number`);
        if (field.control.integer && !Number.isInteger(number)) throw new FieldError(field.name, `${text} is not a whole number`);
        config[field.name] = number;
        break;
      }
      case "lines":
        config[field.name] = text.split(/\s*[\n,]\s*/).filter(Boolean);
        break;
      case "json":
        try {
          config[field.name] = JSON.parse(text);
        } catch (error) {
          throw new FieldError(field.name, `is not valid JSON (${(error as Error).message})`);
        }
        break;
      default:
        config[field.name] = text;
    }
  }
  return config;
}
