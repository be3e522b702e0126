import { UsageError } from "../usage-error";

/** A flag's value as a finite number, or a usage error naming the flag. */
export function numberFlag(flag: string, raw: string | undefined, fallback?: number): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required`);
    return fallback;
  }
  const value = Number(raw.trim());
  if (raw.trim() === "" || !Number.isFinite(value)) throw new UsageError(`--${flag} must be a number, got "${raw}"`);
  return value;
}

/** A comma-separated list of numbers; a bad item is named by its position. */
export function numberListFlag(flag: string, raw: string | undefined): number[] {
  if (raw === undefined) throw new UsageError(`--${flag} is required`);
  return raw.split(",").map((item, i) => {
    const value = Number(item.trim());
    if (item.trim() === "" || !Number.isFinite(value)) {
      throw new UsageError(`--${flag}: item ${i + 1} must be a number, got "${item}"`);
    }
    return value;
  });
}
