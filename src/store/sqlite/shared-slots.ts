/**
 * Memory that the page reader's thread writes pages into, lent slot by slot and reused. A page read
 * on that thread otherwise arrives as a new ArrayBuffer, and V8 counts every such buffer against the
 * main thread's old-generation limit until a full collection frees it, however short its life: 500
 * clients reading 1.8 MB pages at old cursors (36 MB a second) made the main thread mark its whole
 * heap every 2 s, 70-150 ms of marking each time, and the other requests waited for it
 * (docs/benchmarks.md). A view on a SharedArrayBuffer allocates no such memory.
 */
export class SharedSlots {
  readonly memory: SharedArrayBuffer;
  private readonly free: number[];

  constructor(
    slots: number,
    readonly slotBytes: number,
  ) {
    this.memory = new SharedArrayBuffer(slots * slotBytes);
    // Taken from the end: the lowest slots first, so that a light load touches (and keeps resident) few.
    this.free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  }

  /** A free slot, or undefined when all are lent. */
  take(): number | undefined {
    return this.free.pop();
  }

  /** The first `length` bytes of `slot`, as a Buffer over the shared memory (no copy). */
  view(slot: number, length: number): Buffer {
    return Buffer.from(this.memory, slot * this.slotBytes, length);
  }

  /** Returns a slot: its bytes may be overwritten from now on. */
  give(slot: number): void {
    this.free.push(slot);
  }
}
