import type { CommittedBatch } from '../changelog/change.ts';

export type { CommittedBatch };

export type BatchListener = (batch: CommittedBatch) => void;

/**
 * Fans committed batches out to readers (the change feed, delayed views, streams, other nodes).
 *
 * Contract:
 * - A batch is published only after the store committed it and the publishing node's board holds it.
 * - Order: each listener receives batches in commit order.
 * - Delivery is at most once: a listener that falls behind (another node's bus connection drops)
 *   may miss batches. Batches span ids without gaps (`fromId` is the previous `headId`), so a
 *   listener detects a miss by comparing the two and then reads the missing range from the Store,
 *   which is the reliable copy. Within one process the memory bus misses nothing.
 * - Isolation: a listener that throws neither stops the others from receiving the batch nor fails
 *   the publisher; its error goes to the bus's error handler.
 */
export interface Bus {
  /**
   * The batch the writer is about to commit, told while the store still works on it: published
   * next if the commit succeeds (the same object), else never. A bus that sends batches elsewhere
   * may make its entry now instead of after the commit; delivering anything stays `publish`'s.
   */
  prepare?(batch: CommittedBatch): void;
  publish(batch: CommittedBatch): void;
  subscribe(listener: BatchListener): () => void;
  close(): Promise<void>;
}
