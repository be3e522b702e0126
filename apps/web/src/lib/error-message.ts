import { TRPCClientError } from "@trpc/client";

interface ZodIssueSummary {
  path: string;
  message: string;
}

/** One readable sentence for any error that reaches the UI; field errors name their field. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const issues = (error.data as { zodIssues?: ZodIssueSummary[] | null } | undefined)?.zodIssues;
    if (issues?.length) return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
    return error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
