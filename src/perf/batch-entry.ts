import type { CommittedBatch } from '../changelog/change.ts';
import { pick } from './switch.ts';

/**
 * A committed batch as the Redis bus's entry: the UTF-8 bytes of
 * `JSON.stringify({ e: epoch, f: fromId, h: headId, c: changes, v: eventIds })`.
 *
 * Written a row at a time into one buffer: each row's text is small and still in the cache as it
 * is encoded. The whole text at once is a string of about 1.5 MB for a batch of 2,000 price rows,
 * allocated in the old generation, then read again to encode it: about 6 µs a row against 2
 * (docs/benchmarks.md), on the writer's one thread, for every batch.
 */
export const batchEntry: (batch: CommittedBatch) => Buffer = pick(rowByRow, wholeText);

/** The plain twin: the whole text, then its bytes. */
export function wholeText(batch: CommittedBatch): Buffer {
  return Buffer.from(
    JSON.stringify({ e: batch.epoch, f: batch.fromId, h: batch.headId, c: batch.changes, v: batch.eventIds }),
  );
}

/** A price row's entry text is about 800 bytes: most batches fit the first guess. */
const ROW_GUESS = 1024;

export function rowByRow(batch: CommittedBatch): Buffer {
  let buf = Buffer.allocUnsafe(256 + batch.changes.length * ROW_GUESS);
  let at = buf.write(`{"e":${JSON.stringify(batch.epoch)},"f":${batch.fromId},"h":${batch.headId},"c":[`, 0);
  const room = (text: string): void => {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    const need = at + text.length * 3 + 1;
    if (need <= buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, need));
    buf.copy(grown, 0, 0, at);
    buf = grown;
  };
  const rows = batch.changes;
  for (let i = 0; i < rows.length; i++) {
    const text = JSON.stringify(rows[i]);
    room(text);
    if (i > 0) buf[at++] = 0x2c;
    at += buf.write(text, at);
  }
  const tail = `],"v":${JSON.stringify(batch.eventIds)}}`;
  room(tail);
  at += buf.write(tail, at);
  return buf.subarray(0, at);
}
