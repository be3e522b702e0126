/** Longest stored file name; longer names are cut (file systems cap a name at 255 bytes anyway). */
const MAX_FILE_NAME_CHARS = 200;

/**
 * The name an upload is stored under: the last path segment of what the client
 * sent (either slash), without control characters. Null when nothing usable is
 * left, so "../../etc/passwd" becomes "passwd" and "..", "/" or "" are refused.
 */
export function uploadFileName(raw: string | null): string | null {
  if (raw === null) return null;
  const base = raw.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (cleaned === "" || cleaned === "." || cleaned === "..") return null;
  const chars = Array.from(cleaned);
  return chars.length > MAX_FILE_NAME_CHARS ? chars.slice(0, MAX_FILE_NAME_CHARS).join("") : cleaned;
}

/**
 * `Content-Disposition` for a download: a plain ASCII `filename` every client
 * reads (quotes, backslashes and anything outside printable ASCII replaced),
 * and the exact name as RFC 5987 `filename*` for clients that read UTF-8.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_").trim() || "download";
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** A stored content type is echoed only when it looks like one; anything else is served as bytes. */
export function safeContentType(stored: string | null | undefined): string {
  return stored && /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=[\w.+-]+)*$/.test(stored) ? stored : "application/octet-stream";
}
