/**
 * Automatic prefix caching as vLLM does it: the prompt is cut into blocks of 16
 * tokens, a block is identified by a hash chained over every block before it
 * (so equal blocks after different prefixes differ), and a replica keeps the
 * most recently used blocks up to a token budget.
 */

export const PREFIX_BLOCK_TOKENS = 16;

/** 53-bit string hash (cyrb53): collisions are negligible for millions of blocks. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Chained hashes of the prompt's full blocks (a trailing partial block is never
 * cached). `salt` keeps the blocks of different models apart on one replica.
 */
export function promptBlockHashes(salt: string, tokens: readonly string[]): number[] {
  const hashes: number[] = [];
  let parent = hash53(salt);
  for (let start = 0; start + PREFIX_BLOCK_TOKENS <= tokens.length; start += PREFIX_BLOCK_TOKENS) {
    // \u0000 between tokens: the same characters split into different tokens are different blocks.
    parent = hash53(`${parent}\u0001${tokens.slice(start, start + PREFIX_BLOCK_TOKENS).join("\u0000")}`);
    hashes.push(parent);
  }
  return hashes;
}

export class PrefixCache {
  /** Map order is recency order: the first key is the least recently used block. */
  private readonly blocks = new Map<number, true>();
  /**
   * Where eviction goes on: a live iterator over `blocks`, which sees keys re-set after it (they move to the
   * end) and skips deleted ones. Asking a fresh iterator for the first key would walk past every hole the
   * deletions left since the table was last rebuilt — per eviction, so a full cache took milliseconds per
   * admitted sequence; this one walks each hole once.
   */
  private lru: IterableIterator<number> = this.blocks.keys();
  private readonly capacityBlocks: number;

  constructor(capacityTokens: number) {
    this.capacityBlocks = Math.floor(capacityTokens / PREFIX_BLOCK_TOKENS);
  }

  get size(): number {
    return this.blocks.size;
  }

  /**
   * Cached tokens of a sequence being admitted, then its blocks enter the cache.
   * Like vLLM, the prompt's last token is always computed (its logits are needed),
   * so a prompt that is entirely cached still hits one block less when it ends on
   * a block boundary.
   */
  admit(hashes: readonly number[], promptTokenCount: number): number {
    if (this.capacityBlocks === 0) return 0;
    const hitLimit = Math.min(hashes.length, Math.floor((promptTokenCount - 1) / PREFIX_BLOCK_TOKENS));
    let hits = 0;
    while (hits < hitLimit && this.blocks.has(hashes[hits]!)) hits++;
    // Touched last block first, so the chain's head is the most recent and eviction
    // takes tails first (vLLM frees a sequence's blocks in reverse order for the same reason).
    for (let i = hashes.length - 1; i >= 0; i--) {
      const key = hashes[i]!;
      this.blocks.delete(key);
      this.blocks.set(key, true);
    }
    while (this.blocks.size > this.capacityBlocks) {
      let oldest = this.lru.next();
      // Every live key lies ahead of the iterator (the ones behind it were evicted), so it ends only on an empty map.
      if (oldest.done) {
        this.lru = this.blocks.keys();
        oldest = this.lru.next();
        if (oldest.done) break;
      }
      this.blocks.delete(oldest.value);
    }
    return hits * PREFIX_BLOCK_TOKENS;
  }

  clear(): void {
    this.blocks.clear();
    this.lru = this.blocks.keys();
  }
}
