/** Wrong flags or arguments: reported with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
