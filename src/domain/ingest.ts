/**
 * What becomes of a batch sent to POST /admin/v1/ingest: the contract between the ingest feed
 * (src/feeds/ingest), which checks and commits it, and the route (src/http/routes/admin), which
 * answers it. docs/feeds.md shows each answer.
 */

/** One fault of one record: its index in the batch, the field (a JSON pointer, '' for the record) and why. */
export interface RecordFault {
  index: number;
  field: string;
  message: string;
}

export type IngestOutcome =
  /** Committed now (`applied`), or committed before under the same batch id (nothing written again). */
  | { kind: 'committed'; applied: boolean; headId: number }
  /** Refused whole, nothing written: every fault found, by record. */
  | { kind: 'invalid'; faults: RecordFault[] }
  /** Refused whole by the ledger's own checks (a play's unknown player, a decided board), nothing written. */
  | { kind: 'refused'; message: string }
  /** The ledger has as many batches waiting as it takes: send again after a moment, nothing written. */
  | { kind: 'busy' };

/** What the route hands the feed: the records as parsed, the batch's id, and the time it describes. */
export interface IngestBatch {
  batchId: string;
  /** ISO 8601; undefined: the time the batch arrives. */
  at: string | undefined;
  records: readonly unknown[];
}

/** The ingest feed as the route sees it. */
export interface IngestSink {
  accept(batch: IngestBatch): Promise<IngestOutcome>;
}
