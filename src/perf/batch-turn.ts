import { pick } from './switch.ts';

/**
 * What the writer's queue (src/ledger/write-queue.ts) waits for before it starts a batch or step.
 * A commit runs from promise callbacks and holds the thread for its whole length (tens of ms for
 * 1,000 prices). Started in the same run of callbacks as the batch before it resolved, it ran ahead
 * of that batch's answer, which node's HTTP response sends from a `process.nextTick` (its socket is
 * uncorked there): a sender of two batches at a time got both answers at once, after the second
 * commit, and the server then waited with nothing to do while the next two came. The trick,
 * `nextTurn`, starts each batch after a turn of the event loop (setImmediate), so answers already
 * given are written, and bodies that arrived are read and checked, first. The plain twin waits for
 * nothing: a batch starts in the same run of callbacks.
 */
export type BatchTurn = (() => Promise<void>) | undefined;

export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const batchTurn: BatchTurn = pick<BatchTurn>(nextTurn, undefined);
