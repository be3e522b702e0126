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

/**
 * A least-recently-used list of block hashes in slots: `slotOf` finds a block's
 * slot, `prev`/`next` link the slots from least (`head`) to most (`tail`)
 * recently used, and an evicted block's slot is reused at once. Every step is
 * O(1) whatever the cache's size (a Map kept in recency order by delete and
 * set, evicted through a live iterator, cost most of a busy replica's CPU once
 * it held a few hundred thousand blocks).
 */
export class PrefixCache {
  private readonly slotOf = new Map<number, number>();
  private keys = new Float64Array(0);
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private head = NONE;
  private tail = NONE;
  private readonly capacityBlocks: number;

  constructor(capacityTokens: number) {
    this.capacityBlocks = Math.floor(capacityTokens / PREFIX_BLOCK_TOKENS);
  }

  get size(): number {
    return this.slotOf.size;
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
    while (hits < hitLimit && this.slotOf.has(hashes[hits]!)) hits++;
    // Touched last block first, so the chain's head is the most recent and eviction
    // takes tails first (vLLM frees a sequence's blocks in reverse order for the same reason).
    for (let i = hashes.length - 1; i >= 0; i--) this.touch(hashes[i]!);
    return hits * PREFIX_BLOCK_TOKENS;
  }

  clear(): void {
    this.slotOf.clear();
    this.head = NONE;
    this.tail = NONE;
  }

  /** Makes `key` the most recently used block, evicting the least recently used one when the cache is full. */
  private touch(key: number): void {
    let slot = this.slotOf.get(key);
    if (slot !== undefined) {
      if (slot === this.tail) return;
      this.unlink(slot);
    } else if (this.slotOf.size >= this.capacityBlocks) {
      slot = this.head;
      this.unlink(slot);
      this.slotOf.delete(this.keys[slot]!);
      this.slotOf.set(key, slot);
      this.keys[slot] = key;
    } else {
      slot = this.slotOf.size;
      if (slot >= this.keys.length) this.grow();
      this.slotOf.set(key, slot);
      this.keys[slot] = key;
    }
    this.prev[slot] = this.tail;
    this.next[slot] = NONE;
    if (this.tail === NONE) this.head = slot;
    else this.next[this.tail] = slot;
    this.tail = slot;
  }

  private unlink(slot: number): void {
    const before = this.prev[slot]!;
    const after = this.next[slot]!;
    if (before === NONE) this.head = after;
    else this.next[before] = after;
    if (after === NONE) this.tail = before;
    else this.prev[after] = before;
  }

  /** Slots are allocated as blocks arrive (doubling up to the capacity), so a large budget costs nothing until used. */
  private grow(): void {
    const length = Math.min(this.capacityBlocks, Math.max(1024, this.keys.length * 2));
    const keys = new Float64Array(length);
    const prev = new Int32Array(length);
    const next = new Int32Array(length);
    keys.set(this.keys);
    prev.set(this.prev);
    next.set(this.next);
    this.keys = keys;
    this.prev = prev;
    this.next = next;
  }
}

const NONE = -1;
