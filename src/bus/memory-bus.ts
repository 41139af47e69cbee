import type { BatchListener, Bus, CommittedBatch } from './bus.ts';

/** The embedded bus: synchronous, in-process delivery, each listener isolated from the others. */
export class MemoryBus implements Bus {
  private readonly listeners = new Set<BatchListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  publish(batch: CommittedBatch): void {
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  subscribe(listener: BatchListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two listeners.
    const own: BatchListener = (b) => listener(b);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
