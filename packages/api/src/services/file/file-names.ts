/** Longest stored file name in characters, and in UTF-8 bytes (file systems cap a name at 255 bytes). */
const MAX_FILE_NAME_CHARS = 200;
const MAX_FILE_NAME_BYTES = 255;

/** How many layers of percent-encoding are undone at most: "%252e%252e%252f" is two. */
const MAX_DECODE_ROUNDS = 3;
const utf8Bytes = new TextEncoder();

/*
 * Characters that would let a name pass for another (bidirectional overrides
 * turning "gpj.exe" into "exe.jpg" on screen, zero-width and other invisible
 * format characters) or break a line or a header (controls, C1 controls,
 * line and paragraph separators).
 */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern removes
const INVISIBLE_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** Every character a system or a reader may take for a path separator, after NFKC (which maps ／ and ＼ to / and \). */
const SEPARATORS = /[\\/\u2044\u2215\u29f5\u29f8\u29f9]/;

function decodePercentLayers(raw: string): string {
  let current = raw;
  for (let round = 0; round < MAX_DECODE_ROUNDS && /%[0-9a-f]{2}/i.test(current); round++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      // A lone "%" (e.g. "100%.jsonl") is part of the name, not an encoding.
      break;
    }
  }
  return current;
}

/** Cuts a name to the character and byte limits, keeping its extension when it has a short one. */
function truncateName(name: string): string {
  const fits = (text: string) => Array.from(text).length <= MAX_FILE_NAME_CHARS && utf8Bytes.encode(text).length <= MAX_FILE_NAME_BYTES;
  if (fits(name)) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
  const stem = Array.from(name.slice(0, name.length - extension.length));
  while (stem.length > 0 && !fits(stem.join("") + extension)) stem.pop();
  return stem.join("") + extension;
}

/**
 * The name an upload is stored under: a safe base name of what the client
 * sent. Percent-encoding is undone (a name arrives URL-encoded, maybe twice),
 * compatibility forms folded (NFKC: fullwidth ／ becomes /), every kind of
 * slash treated as a separator and only the last segment kept, invisible,
 * bidirectional and control characters dropped, trailing dots and spaces
 * trimmed (Windows drops them anyway), and the result cut to 200 characters
 * and 255 UTF-8 bytes with its extension kept. Null when nothing usable is
 * left, so "../../etc/passwd" becomes "passwd" and "..", "/" or "" are refused.
 */
export function uploadFileName(raw: string | null): string | null {
  if (raw === null) return null;
  const decoded = decodePercentLayers(raw).normalize("NFKC");
  const base = decoded.split(SEPARATORS).pop() ?? "";
  const cleaned = base.replace(INVISIBLE_OR_CONTROL, "").trim().replace(/[. ]+$/, "");
  if (cleaned === "" || /^\.+$/.test(cleaned)) return null;
  return truncateName(cleaned);
}

/**
 * `Content-Disposition` for a download: a plain ASCII `filename` every client
 * reads (quotes, backslashes and anything outside printable ASCII replaced),
 * and the exact name as RFC 5987 `filename*` for clients that read UTF-8.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\/]/g, "_").trim() || "download";
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** A stored content type is echoed only when it looks like one; anything else is served as bytes. */
export function safeContentType(stored: string | null | undefined): string {
  return stored && /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=[\w.+-]+)*$/.test(stored) ? stored : "application/octet-stream";
}
