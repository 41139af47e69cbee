import type { CommittedBatch } from '../bus.ts';

/** A batch as one stream entry's text: the rows as the ledger made them, their payloads unparsed. */
export function encodeBatch(batch: CommittedBatch): string {
  return JSON.stringify({ e: batch.epoch, f: batch.fromId, h: batch.headId, c: batch.changes, v: batch.eventIds });
}

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
