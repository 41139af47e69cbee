/**
 * The plan's cap on a key's concurrent WebSocket connections: a slot is taken before an upgrade
 * completes and given back when its connection closes. Taking is a reservation, not a check, so
 * two upgrades of one key can never both take its last slot.
 */
export interface ConnectionSlots {
  /** Takes a slot of the key if fewer than `cap` are taken: whether it did. */
  take(keyHash: string, cap: number): Promise<boolean>;
  /** Gives back a slot taken here (its connection closed, or its upgrade did not complete). */
  give(keyHash: string): void;
  /** The key's connections as this node knows them (every node's, where they are shared). */
  count(keyHash: string): number;
  close(): Promise<void>;
}

/** One process's slots: what the embedded server runs. */
export class LocalConnectionSlots implements ConnectionSlots {
  private readonly taken = new Map<string, number>();

  async take(keyHash: string, cap: number): Promise<boolean> {
    const n = this.count(keyHash);
    if (n >= cap) return false;
    this.taken.set(keyHash, n + 1);
    return true;
  }

  give(keyHash: string): void {
    const n = this.count(keyHash) - 1;
    if (n > 0) this.taken.set(keyHash, n);
    else this.taken.delete(keyHash);
  }

  count(keyHash: string): number {
    return this.taken.get(keyHash) ?? 0;
  }

  async close(): Promise<void> {}
}
