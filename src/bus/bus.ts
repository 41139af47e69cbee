import type { ChangeRecord } from '../store/store.ts';

/** A batch as the ledger committed it: its change rows in id order. */
export interface CommittedBatch {
  changes: ChangeRecord[];
  /** Events touched by the batch. */
  eventIds: string[];
  headId: number;
}

export type BatchListener = (batch: CommittedBatch) => void;

/**
 * Fans committed batches out to readers (streams, caches, other nodes' boards).
 * Delivery is in commit order; a listener sees a batch only after the store committed it.
 */
export interface Bus {
  publish(batch: CommittedBatch): void;
  subscribe(listener: BatchListener): () => void;
  close(): Promise<void>;
}
