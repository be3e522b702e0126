import { InputError } from "@stepwiser/core";
import type { z } from "zod";

export interface JsonLine<T> {
  /** 1-based line number in the file. */
  line: number;
  value: T;
}

/**
 * Parses and validates a JSON-lines file completely before anything uses it, so
 * a bad line is reported (file, line, field) before any output is written.
 * Blank lines are skipped.
 */
export function parseJsonLines<S extends z.ZodType>(text: string, file: string, schema: S): JsonLine<z.infer<S>>[] {
  const out: JsonLine<z.infer<S>>[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new InputError(`not valid JSON (${(error as Error).message})`, { file, line });
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new InputError(issue.message, { file, line, field: issue.path.map(String).join(".") || undefined });
    }
    out.push({ line, value: result.data });
  });
  return out;
}
