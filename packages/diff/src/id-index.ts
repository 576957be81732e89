/**
 * Looks up positions by block id. It is a small open-addressing hash table in one typed
 * array rather than a Map because the block diff must scale near-linearly: measured on V8,
 * filling a 10,000-entry Map costs about three times per entry what a 1,000-entry one does,
 * while this table stays compact enough to remain in cache.
 */
export class IdIndex {
  private readonly mask: number;
  /**
   * Two numbers per slot, side by side so a probe reads one cache line: the item's
   * position + 1 (0 marks an empty slot), then the id's full hash, compared first so most
   * probes never have to reach the item itself.
   */
  private readonly table: Int32Array;

  constructor(private readonly items: readonly { id: string }[]) {
    // At most about 70% full, which keeps probe runs short.
    let capacity = 16;
    while (capacity * 0.7 < items.length) capacity *= 2;
    this.mask = capacity - 1;
    this.table = new Int32Array(capacity * 2);
    items.forEach(({ id }, position) => {
      const hash = hashId(id);
      let slot = hash & this.mask;
      while (this.table[slot * 2] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot * 2] = position + 1;
      this.table[slot * 2 + 1] = hash;
    });
  }

  /** The position of the item with this id (the first, if ids repeat), or -1. */
  get(id: string): number {
    const hash = hashId(id);
    for (let slot = hash & this.mask; this.table[slot * 2] !== 0; slot = (slot + 1) & this.mask) {
      const position = this.table[slot * 2]! - 1;
      if (this.table[slot * 2 + 1] === hash && this.items[position]!.id === id) return position;
    }
    return -1;
  }
}

/** 32-bit FNV-1a: cheap, and spreads short sequential ids like "b1", "b2" across the table. */
function hashId(id: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash;
}
