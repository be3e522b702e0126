import { InputError, nearestName } from "@stepwiser/core";
import type { z } from "zod";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The first field of `given` that validation dropped, as a dotted path: a key
 * the schema does not know (a typo such as "rollout" for "rollouts" would
 * otherwise be ignored and the run would go ahead on the default). Compares the
 * input with the parsed output, which keeps every known key.
 */
export function firstUnknownField(given: unknown, parsed: unknown, path: readonly string[] = []): string[] | undefined {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    for (let i = 0; i < given.length; i++) {
      const found = firstUnknownField(given[i], parsed[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isPlainObject(given) || !isPlainObject(parsed)) return undefined;
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(parsed, key)) return [...path, key];
    const found = firstUnknownField(given[key], parsed[key], [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Longest text a configuration value may hold. Configurations name things (ids,
 * endpoints, methods); a longer value is a mistake (a pasted file), and echoing
 * or looking up megabytes would make the error itself unreadable.
 */
export const MAX_CONFIG_STRING_LENGTH = 10_000;

interface Visit {
  value: unknown;
  key?: string;
  parent?: Visit;
}

function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/** The first string longer than MAX_CONFIG_STRING_LENGTH, with its path; iterative, so any nesting depth is safe. */
export function firstOverlongString(value: unknown): { path: string[]; length: number } | undefined {
  const pending: Visit[] = [{ value }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const current = visit.value;
    if (typeof current === "string") {
      if (current.length > MAX_CONFIG_STRING_LENGTH) return { path: pathOf(visit), length: current.length };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], key: String(i), parent: visit });
    } else if (typeof current === "object" && current !== null) {
      for (const key of Object.keys(current).reverse()) pending.push({ value: (current as Record<string, unknown>)[key], key, parent: visit });
    }
  }
  return undefined;
}

/**
 * A run configuration checked at the boundary: no value over
 * MAX_CONFIG_STRING_LENGTH, the kind's schema, and no field the schema does
 * not know. Every refusal is an InputError naming the file (when there is
 * one) and the field.
 */
export function validateRunConfig<S extends z.ZodType>(kind: string, schema: S, raw: unknown, source?: string): z.output<S> {
  const overlong = firstOverlongString(raw);
  if (overlong) {
    throw new InputError(`text of ${overlong.length} characters; a configuration value holds at most ${MAX_CONFIG_STRING_LENGTH}`, {
      file: source,
      field: overlong.path.join(".") || undefined,
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file: source, field: issue.path.map(String).join(".") || undefined });
  }
  const unknown = firstUnknownField(raw, parsed.data);
  if (unknown) {
    const suggestion = nearestKnownField(schema, parsed.data, unknown);
    throw new InputError(`unknown field (not part of the ${kind} run configuration)${suggestion ? `; did you mean "${suggestion}"?` : ""}`, {
      file: source,
      field: unknown.join("."),
    });
  }
  return parsed.data;
}

/** A zod schema's definition, read only for its kind and the schemas it wraps. */
interface SchemaDef {
  type?: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

function defOf(schema: unknown): SchemaDef {
  return ((schema as { _zod?: { def?: SchemaDef } })._zod?.def ?? {}) as SchemaDef;
}

/** The schemas a value at `schema` may be checked by once wrappers (optional, default, pipe, union…) are looked through. */
function objectSchemasOf(schema: z.ZodType, depth = 0): Array<Record<string, z.ZodType>> {
  if (depth > 32) return [];
  const def = defOf(schema);
  switch (def.type) {
    case "object":
      return def.shape ? [def.shape] : [];
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
    case "success":
      return def.innerType ? objectSchemasOf(def.innerType, depth + 1) : [];
    case "pipe":
      return [...(def.in ? objectSchemasOf(def.in, depth + 1) : []), ...(def.out ? objectSchemasOf(def.out, depth + 1) : [])];
    case "union":
      return (def.options ?? []).flatMap((option) => objectSchemasOf(option, depth + 1));
    case "intersection":
      return [...(def.left ? objectSchemasOf(def.left, depth + 1) : []), ...(def.right ? objectSchemasOf(def.right, depth + 1) : [])];
    case "lazy":
      return def.getter ? objectSchemasOf(def.getter(), depth + 1) : [];
    default:
      return [];
  }
}

/** The schemas of what sits at `key` (a field, or an array's item) inside a value checked by `schema`. */
function childSchemas(schema: z.ZodType, key: string, depth = 0): z.ZodType[] {
  if (depth > 32) return [];
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const field = def.shape?.[key];
      return field ? [field] : [];
    }
    case "array":
      return def.element ? [def.element] : [];
    case "tuple": {
      const item = def.items?.[Number(key)];
      return item ? [item] : [];
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
    case "success":
      return def.innerType ? childSchemas(def.innerType, key, depth + 1) : [];
    case "pipe":
      return [...(def.in ? childSchemas(def.in, key, depth + 1) : []), ...(def.out ? childSchemas(def.out, key, depth + 1) : [])];
    case "union":
      return (def.options ?? []).flatMap((option) => childSchemas(option, key, depth + 1));
    case "intersection":
      return [...(def.left ? childSchemas(def.left, key, depth + 1) : []), ...(def.right ? childSchemas(def.right, key, depth + 1) : [])];
    case "lazy":
      return def.getter ? childSchemas(def.getter(), key, depth + 1) : [];
    default:
      return [];
  }
}

/**
 * The field names a schema knows for the object at `path` (dotted, array items by
 * index): every object shape that may check it, through optional, default, pipe,
 * union and the like. Empty where the schema is not an object there.
 */
export function knownFieldsAt(schema: z.ZodType, path: readonly string[]): string[] {
  let at: z.ZodType[] = [schema];
  for (const key of path) at = at.flatMap((s) => childSchemas(s, key));
  return [...new Set(at.flatMap((s) => objectSchemasOf(s)).flatMap((shape) => Object.keys(shape)))];
}

/**
 * The known field nearest to the unknown one at `unknown` (its full path): among the
 * fields the schema declares for that object and those the parsed config holds there.
 */
function nearestKnownField(schema: z.ZodType, parsed: unknown, unknown: readonly string[]): string | undefined {
  const parent = unknown.slice(0, -1);
  let value: unknown = parsed;
  for (const key of parent) value = isPlainObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  const known = [...knownFieldsAt(schema, parent), ...(isPlainObject(value) ? Object.keys(value) : [])];
  return nearestName(unknown.at(-1)!, known);
}

/**
 * A stored config with a field read under its current name: `from`, the name a
 * previous release stored it under, becomes `to` (kept when both are present).
 * For stored schemas only, so a new submission still names the field one way.
 */
export function withRenamedStoredField(stored: unknown, from: string, to: string): unknown {
  if (!isPlainObject(stored) || !Object.hasOwn(stored, from)) return stored;
  const { [from]: value, ...rest } = stored;
  return Object.hasOwn(rest, to) ? rest : { ...rest, [to]: value };
}
