import type { z } from "zod";
import { InputError } from "../errors/input-error";

/** Where the record being converted sits in its file: every error names it. */
export interface RecordAt {
  file: string;
  /** 1-based line the record starts on. */
  line: number;
  /** 0-based index of the record in its file. */
  record: number;
}

export function recordError(at: RecordAt, reason: string, field?: string): InputError {
  return new InputError(reason, { file: at.file, line: at.line, record: at.record, ...(field ? { field } : {}) });
}

/** "a string", "an integer": JSON's names for what a field should hold. */
const EXPECTED_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean (true or false)",
  array: "an array",
  object: "an object",
  null: "null",
};

/** JSON's names for what the file holds, so messages speak about the file and not about JavaScript. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return "a non-finite number";
  return typeof value === "object" ? "object" : typeof value;
}

function describeValue(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return jsonTypeOf(value);
}

/**
 * zod's messages ("Invalid input: expected string, received number") are
 * replaced by plain ones; messages a schema sets itself take precedence over
 * this map, so record schemas keep their own wording.
 */
const plainMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return "missing";
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      if (issue.expected === "int" && typeof issue.input === "number") return `expected an integer, got ${issue.input}`;
      return `expected ${expected}, got ${jsonTypeOf(issue.input)}`;
    }
    case "invalid_value":
      if (issue.input === undefined) return "missing";
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(", ").replace(/, ([^,]*)$/, " or $1")}, got ${describeValue(issue.input)}`;
    case "too_small":
      if (issue.origin === "array") return `must hold at least ${String(issue.minimum)} item${issue.minimum === 1 ? "" : "s"}`;
      if (issue.origin === "string") return "must not be empty";
      return `must be at least ${String(issue.minimum)}, got ${describeValue(issue.input)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}, got ${describeValue(issue.input)}`;
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    default:
      return undefined;
  }
};

/**
 * A schema's own message for a bad value, but "missing" for an absent field,
 * as the default messages say.
 */
export function unlessMissing(message: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? "missing" : message);
}

/** Validates one record; the first issue becomes an InputError naming the record's line and the issue's dotted path. */
export function parseRecord<T extends z.ZodType>(schema: T, value: unknown, at: RecordAt): z.output<T> {
  const result = schema.safeParse(value, { error: plainMessages });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw recordError(at, issue.message, issue.path.map(String).join(".") || undefined);
}

/** The same plain wording for checks outside a schema. */
export function plainIssueMessages(): z.core.$ZodErrorMap {
  return plainMessages;
}
