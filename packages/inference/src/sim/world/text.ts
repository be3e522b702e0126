/** "she" → "She". */
export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * FNV-1a over UTF-16 code units, 32 bits. Used for problem ids and to mix the
 * prompt into a sample's seed; not for anything that leaves the process in a
 * form another language must reproduce.
 */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function fnv1a32Hex(text: string): string {
  return fnv1a32(text).toString(16).padStart(8, "0");
}
