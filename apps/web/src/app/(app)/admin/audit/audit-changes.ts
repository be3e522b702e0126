/** One field an audited change touched: its dotted path and its value before and after, as display text. */
export interface AuditFieldChange {
  field: string;
  before: string | null;
  after: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A stored value as one line of text: strings as they are, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function collect(before: unknown, after: unknown, path: string, out: AuditFieldChange[]): void {
  if (isRecord(before) || isRecord(after)) {
    const b = isRecord(before) ? before : {};
    const a = isRecord(after) ? after : {};
    // Nested objects (a queue's settings, an endpoint snapshot) are walked so each leaf shows on its own line.
    if (isRecord(before) !== isRecord(after) && before !== undefined && after !== undefined) {
      out.push({ field: path || "(value)", before: shown(before), after: shown(after) });
      return;
    }
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])]) collect(b[key], a[key], path ? `${path}.${key}` : key, out);
    return;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  out.push({ field: path || "(value)", before: before === undefined ? null : shown(before), after: after === undefined ? null : shown(after) });
}

/**
 * What an audit entry changed, field by field: the leaves whose value differs
 * between `before` and `after` (an entry with only `after` lists every field
 * it records). Values are text for display, never markup.
 */
export function auditFieldChanges(before: unknown, after: unknown): AuditFieldChange[] {
  const out: AuditFieldChange[] = [];
  if ((before === null || before === undefined) && (after === null || after === undefined)) return out;
  collect(before ?? undefined, after ?? undefined, "", out);
  return out;
}
