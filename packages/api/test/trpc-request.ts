/** A tRPC answer's body as the fetch adapter sends it (superjson-wrapped). */
export interface TrpcBody {
  result?: { data: { json: unknown } };
  error?: { json: { message: string; data: { code: string; httpStatus: number } } };
}

export interface TrpcRequestOptions {
  /** Sent as `Authorization: Bearer …`. */
  token?: string;
  cookie?: string;
  /** The page's origin, as a browser sends it; none, as a script sends none. */
  origin?: string;
  input?: unknown;
  method?: "GET" | "POST";
}

/** A tRPC request to `path` as a browser (cookie and Origin) or a script (bearer token) sends it: GET with the input in the URL, or POST. */
export function trpcRequest(baseUrl: string, path: string, options: TrpcRequestOptions = {}): Request {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.origin) headers.origin = options.origin;
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  const body = JSON.stringify({ json: options.input ?? null });
  return options.method === "POST"
    ? new Request(`${baseUrl}/api/trpc/${path}`, { method: "POST", headers, body })
    : new Request(`${baseUrl}/api/trpc/${path}${options.input === undefined ? "" : `?input=${encodeURIComponent(body)}`}`, { headers });
}

export const readTrpc = async (response: Response) => (await response.json()) as TrpcBody;
