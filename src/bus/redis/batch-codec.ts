import type { CommittedBatch } from '../bus.ts';

/**
 * A batch as one stream entry's bytes: the rows as the ledger made them, their payloads unparsed
 * (JSON of `{ e: epoch, f: fromId, h: headId, c: changes, v: eventIds }`, src/perf/batch-entry.ts).
 */
export { batchEntry as encodeBatch } from '../../perf/batch-entry.ts';

interface Wire {
  e: string;
  f: number;
  h: number;
  c: CommittedBatch['changes'];
  v: string[];
}

/** The batch `encodeBatch` wrote; throws on text that is not one. */
export function decodeBatch(text: string): CommittedBatch {
  const w = JSON.parse(text) as Wire;
  if (typeof w.e !== 'string' || !Number.isInteger(w.f) || !Number.isInteger(w.h) || !Array.isArray(w.c)) {
    throw new Error('a bus entry that is not a committed batch');
  }
  return { epoch: w.e, fromId: w.f, headId: w.h, changes: w.c, eventIds: w.v };
}
