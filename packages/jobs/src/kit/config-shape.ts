import { InputError } from "@stepwiser/core";
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
  if (unknown) throw new InputError(`unknown field (not part of the ${kind} run configuration)`, { file: source, field: unknown.join(".") });
  return parsed.data;
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
