import type { IngestBatch, IngestOutcome, IngestSink } from '../../domain/ingest.ts';
import { LedgerBusyError, LedgerError } from '../../ledger/ledger.ts';
import type { BatchOutcome, UpdateBatch } from '../../ledger/updates.ts';
import { checkRecords, type KnownIds } from './batch-check.ts';

/** The ledger as the ingest feed uses it: named batches, applied once. */
export interface NamedBatchSink {
  applyNamed(batch: UpdateBatch): Promise<BatchOutcome>;
}

/**
 * The ingest feed: a batch of records sent by a team's own source (POST /admin/v1/ingest), checked
 * whole and handed to the ledger as one named batch, so it is committed whole or not at all, and a
 * batch id sent again applies nothing the second time. It holds no queue of its own: the ledger's
 * bounded one says when to slow down (`busy`).
 */
export class IngestFeed implements IngestSink {
  constructor(
    private readonly ledger: NamedBatchSink,
    private readonly known: KnownIds,
    private readonly now: () => number = Date.now,
  ) {}

  async accept(batch: IngestBatch): Promise<IngestOutcome> {
    const checked = checkRecords(batch.records, this.known);
    if ('faults' in checked) return { kind: 'invalid', faults: checked.faults };
    const at = batch.at ?? new Date(this.now()).toISOString();
    try {
      const done = await this.ledger.applyNamed({ at, updates: checked.updates, batch_id: batch.batchId });
      return { kind: 'committed', applied: done.applied, headId: done.headId };
    } catch (err) {
      if (err instanceof LedgerBusyError) return { kind: 'busy' };
      if (err instanceof LedgerError) return { kind: 'refused', message: err.message };
      throw err;
    }
  }
}
