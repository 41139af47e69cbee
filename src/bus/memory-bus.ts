import type { BatchListener, Bus, CommittedBatch } from './bus.ts';

/** The embedded bus: synchronous, in-process delivery. */
export class MemoryBus implements Bus {
  private readonly listeners = new Set<BatchListener>();

  publish(batch: CommittedBatch): void {
    for (const listener of this.listeners) listener(batch);
  }

  subscribe(listener: BatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
