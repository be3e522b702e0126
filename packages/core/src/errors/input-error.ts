/**
 * Bad input, located precisely: which file, which line, which record and field.
 * Every surface (CLI, tRPC, UI) renders it through `message`.
 */
export interface InputLocation {
  file?: string;
  line?: number;
  /** 0-based index of the record in its file. */
  record?: number;
  /** Dotted path of the offending field inside the record, e.g. "steps.3". */
  field?: string;
}

export class InputError extends Error {
  override readonly name = "InputError";
  constructor(
    readonly reason: string,
    readonly location: InputLocation = {},
  ) {
    super(formatLocated(reason, location));
  }
}

export function formatLocated(reason: string, { file, line, record, field }: InputLocation): string {
  const where = [
    file !== undefined ? `${file}${line !== undefined ? `:${line}` : ""}` : line !== undefined ? `line ${line}` : undefined,
    record !== undefined ? `record ${record}` : undefined,
    field ? `field "${field}"` : undefined,
  ].filter(Boolean);
  return where.length ? `${where.join(", ")}: ${reason}` : reason;
}
