/**
 * PostgreSQL error codes that mean the connection, not the statement, failed:
 * class 08 (connection exception) and the server shutting down or starting up
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now).
 */
const CONNECTION_SQLSTATES = /^(08...|57P0[123])$/;
/** Prisma's own: the server cannot be reached, timed out, or closed the connection. */
const PRISMA_CONNECTION_CODES = new Set(["P1001", "P1002", "P1017"]);
const CONNECTION_SYSCALL_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
const CONNECTION_MESSAGES = /Connection terminated|connection (?:is )?closed|Can't reach database server|terminating connection/i;

/**
 * Whether an error only says the database could not be reached (down,
 * restarting, network trouble), as opposed to a failed statement or a bug.
 */
export function isDatabaseConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (CONNECTION_SQLSTATES.test(code) || CONNECTION_SYSCALL_CODES.has(code) || PRISMA_CONNECTION_CODES.has(code))) return true;
  if (error instanceof AggregateError && error.errors.some(isDatabaseConnectionError)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}
