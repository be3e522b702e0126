/**
 * Server-side HTTP probes of an endpoint's replicas. The stored key is sent as a
 * bearer token from here only; it never goes to the browser. Only URLs an admin
 * saved are fetched, and redirects are not followed (so the key cannot be
 * forwarded to another host).
 */

/** The server root of an OpenAI base URL: `http://h:8000/v1` → `http://h:8000` (where vLLM serves /health and /metrics). */
export function serverRootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

export type ProbeResult =
  | { ok: true; status: number; body: string; latencyMs: number }
  | { ok: false; status: number | null; error: string; latencyMs: number };

const MAX_BODY_CHARS = 8 * 1024 * 1024;

/** GET `url` within `timeoutMs` (body included). Non-2xx answers and network failures come back as `ok: false` with a readable reason. */
export async function probe(url: string, options: { apiKey?: string | null; timeoutMs: number }): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(url, {
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      redirect: "manual",
      signal,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      return { ok: false, status: response.status, error: `HTTP ${response.status}: redirected${location ? ` to ${location}` : ""}; save the final URL instead`, latencyMs: elapsed() };
    }
    if (!response.ok) {
      await response.body?.cancel();
      const hint = response.status === 401 || response.status === 403 ? " (the API key is missing or was refused)" : "";
      return { ok: false, status: response.status, error: `HTTP ${response.status}${hint}`, latencyMs: elapsed() };
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > MAX_BODY_CHARS) {
      await response.body?.cancel();
      return { ok: false, status: response.status, error: `the answer is too large (${declared} bytes)`, latencyMs: elapsed() };
    }
    const body = await response.text();
    if (body.length > MAX_BODY_CHARS) return { ok: false, status: response.status, error: `the answer is too large (${body.length} characters)`, latencyMs: elapsed() };
    return { ok: true, status: response.status, body, latencyMs: elapsed() };
  } catch (error) {
    return { ok: false, status: null, error: describeFetchError(error, options.timeoutMs), latencyMs: elapsed() };
  }
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused (nothing listens on that port?)",
  ECONNRESET: "connection reset by the server",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed (DNS)",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "the connection closed unexpectedly",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match its host name",
};

/** "connection refused (…)" rather than undici's bare "fetch failed". */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code) return `${NETWORK_CODES[code] ?? (typeof cause?.message === "string" ? cause.message : "network error")} [${code}]`;
  if (cause?.message === "bad port") return "this port is blocked for HTTP clients by the fetch standard (bad port)";
  if (typeof cause?.message === "string" && cause.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
