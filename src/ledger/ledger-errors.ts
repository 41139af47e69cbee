/** A batch the ledger refuses: nothing of it is written. */
export class LedgerError extends Error {}

/** The ledger's queue is full: the feed should wait for its earlier batches before sending more. */
export class LedgerBusyError extends LedgerError {}
