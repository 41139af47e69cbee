/**
 * A fixed number of slots, handed out in the order they were asked for: at most `size` holders at
 * once, the rest waiting. `acquire` resolves with the function that gives the slot back.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`slots must be a positive integer, got ${size}`);
    this.free = size;
  }

  acquire(): Promise<() => void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  /** Holders waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
